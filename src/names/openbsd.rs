//! Generated name tables for the `openbsd` dialect -- do not edit.
//!
//! Upstream inputs:
//! - syscalls.master: $OpenBSD: syscalls.master,v 1.269 2025/02/17$ as stored in github.com/cjeker/src (mirror of openbsd/src) commit 084c752f7825d30800f7dbe7af990fa5fb1c270c, path sys/kern/syscalls.master
//! - errno.h: $OpenBSD: errno.h,v 1.25 2017/09/05$ (openbsd/src sys/sys/errno.h; the copy used was found by content in a code index that did not name its repository; ELAST 95 = EPROTO)
//! - signal.h: openbsd/src sys/sys/signal.h as stored in github.com/shiftypenguin/src commit d9a005e1d41b774b4fb2f352bf04c273a0a2c03e (definitions only; license header omitted)
//!
//! Regenerate with:
//!
//! ```text
//! python3 tools/gen_names.py openbsd /tmp/upstream/openbsd/syscalls.master /tmp/upstream/openbsd/errno.h /tmp/upstream/openbsd/signal.h.from-offset-1800 --origin 'syscalls.master: $OpenBSD: syscalls.master,v 1.269 2025/02/17$ as stored in github.com/cjeker/src (mirror of openbsd/src) commit 084c752f7825d30800f7dbe7af990fa5fb1c270c, path sys/kern/syscalls.master' --origin 'errno.h: $OpenBSD: errno.h,v 1.25 2017/09/05$ (openbsd/src sys/sys/errno.h; the copy used was found by content in a code index that did not name its repository; ELAST 95 = EPROTO)' --origin 'signal.h: openbsd/src sys/sys/signal.h as stored in github.com/shiftypenguin/src commit d9a005e1d41b774b4fb2f352bf04c273a0a2c03e (definitions only; license header omitted)' > src/names/openbsd.rs
//! rustfmt src/names/openbsd.rs
//! ```

#![allow(missing_docs)]

/// Syscall names indexed by number; "" where the number names
/// nothing (obsolete, unimplemented, reserved).
pub(super) static SYSCALLS: &[&str] = &[
    "",                 // 0
    "exit",             // 1
    "fork",             // 2
    "read",             // 3
    "write",            // 4
    "open",             // 5
    "close",            // 6
    "getentropy",       // 7
    "__tfork",          // 8
    "link",             // 9
    "unlink",           // 10
    "wait4",            // 11
    "chdir",            // 12
    "fchdir",           // 13
    "mknod",            // 14
    "chmod",            // 15
    "chown",            // 16
    "break",            // 17
    "getdtablecount",   // 18
    "getrusage",        // 19
    "getpid",           // 20
    "mount",            // 21
    "unmount",          // 22
    "setuid",           // 23
    "getuid",           // 24
    "geteuid",          // 25
    "ptrace",           // 26
    "recvmsg",          // 27
    "sendmsg",          // 28
    "recvfrom",         // 29
    "accept",           // 30
    "getpeername",      // 31
    "getsockname",      // 32
    "access",           // 33
    "chflags",          // 34
    "fchflags",         // 35
    "sync",             // 36
    "msyscall",         // 37
    "stat",             // 38
    "getppid",          // 39
    "lstat",            // 40
    "dup",              // 41
    "fstatat",          // 42
    "getegid",          // 43
    "",                 // 44
    "ktrace",           // 45
    "sigaction",        // 46
    "getgid",           // 47
    "sigprocmask",      // 48
    "mmap",             // 49
    "setlogin",         // 50
    "acct",             // 51
    "sigpending",       // 52
    "fstat",            // 53
    "ioctl",            // 54
    "reboot",           // 55
    "revoke",           // 56
    "symlink",          // 57
    "readlink",         // 58
    "execve",           // 59
    "umask",            // 60
    "chroot",           // 61
    "getfsstat",        // 62
    "statfs",           // 63
    "fstatfs",          // 64
    "fhstatfs",         // 65
    "vfork",            // 66
    "gettimeofday",     // 67
    "settimeofday",     // 68
    "setitimer",        // 69
    "getitimer",        // 70
    "select",           // 71
    "kevent",           // 72
    "munmap",           // 73
    "mprotect",         // 74
    "madvise",          // 75
    "utimes",           // 76
    "futimes",          // 77
    "mquery",           // 78
    "getgroups",        // 79
    "setgroups",        // 80
    "getpgrp",          // 81
    "setpgid",          // 82
    "futex",            // 83
    "utimensat",        // 84
    "futimens",         // 85
    "kbind",            // 86
    "clock_gettime",    // 87
    "clock_settime",    // 88
    "clock_getres",     // 89
    "dup2",             // 90
    "nanosleep",        // 91
    "fcntl",            // 92
    "accept4",          // 93
    "__thrsleep",       // 94
    "fsync",            // 95
    "setpriority",      // 96
    "socket",           // 97
    "connect",          // 98
    "getdents",         // 99
    "getpriority",      // 100
    "pipe2",            // 101
    "dup3",             // 102
    "sigreturn",        // 103
    "bind",             // 104
    "setsockopt",       // 105
    "listen",           // 106
    "chflagsat",        // 107
    "pledge",           // 108
    "ppoll",            // 109
    "pselect",          // 110
    "sigsuspend",       // 111
    "sendsyslog",       // 112
    "",                 // 113
    "unveil",           // 114
    "__realpath",       // 115
    "recvmmsg",         // 116
    "sendmmsg",         // 117
    "getsockopt",       // 118
    "thrkill",          // 119
    "readv",            // 120
    "writev",           // 121
    "kill",             // 122
    "fchown",           // 123
    "fchmod",           // 124
    "orecvfrom",        // 125
    "setreuid",         // 126
    "setregid",         // 127
    "rename",           // 128
    "otruncate",        // 129
    "oftruncate",       // 130
    "flock",            // 131
    "mkfifo",           // 132
    "sendto",           // 133
    "shutdown",         // 134
    "socketpair",       // 135
    "mkdir",            // 136
    "rmdir",            // 137
    "utimes",           // 138
    "",                 // 139
    "adjtime",          // 140
    "getlogin_r",       // 141
    "getthrname",       // 142
    "setthrname",       // 143
    "ogetrlimit",       // 144
    "osetrlimit",       // 145
    "pinsyscall",       // 146
    "setsid",           // 147
    "quotactl",         // 148
    "oquota",           // 149
    "ypconnect",        // 150
    "",                 // 151
    "",                 // 152
    "",                 // 153
    "",                 // 154
    "nfssvc",           // 155
    "ogetdirentries",   // 156
    "statfs25",         // 157
    "pinsyscalls",      // 158
    "mimmutable",       // 159
    "waitid",           // 160
    "getfh",            // 161
    "ogetdomainname",   // 162
    "osetdomainname",   // 163
    "__tmpfd",          // 164
    "sysarch",          // 165
    "lseek",            // 166
    "truncate",         // 167
    "ftruncate",        // 168
    "pread",            // 169
    "pwrite",           // 170
    "preadv",           // 171
    "pwritev",          // 172
    "pread",            // 173
    "pwrite",           // 174
    "profil",           // 175
    "",                 // 176
    "",                 // 177
    "",                 // 178
    "",                 // 179
    "",                 // 180
    "setgid",           // 181
    "setegid",          // 182
    "seteuid",          // 183
    "lfs_bmapv",        // 184
    "lfs_markv",        // 185
    "lfs_segclean",     // 186
    "lfs_segwait",      // 187
    "stat35",           // 188
    "fstat35",          // 189
    "pathconfat",       // 190
    "pathconf",         // 191
    "fpathconf",        // 192
    "swapctl",          // 193
    "getrlimit",        // 194
    "setrlimit",        // 195
    "ogetdirentries48", // 196
    "mmap",             // 197
    "__syscall",        // 198
    "lseek",            // 199
    "truncate",         // 200
    "ftruncate",        // 201
    "sysctl",           // 202
    "mlock",            // 203
    "munlock",          // 204
    "",                 // 205
    "futimes",          // 206
    "getpgid",          // 207
    "nnpfspioctl",      // 208
    "utrace",           // 209
    "",                 // 210
    "",                 // 211
    "",                 // 212
    "",                 // 213
    "",                 // 214
    "",                 // 215
    "",                 // 216
    "",                 // 217
    "",                 // 218
    "",                 // 219
    "",                 // 220
    "semget",           // 221
    "semop35",          // 222
    "semconfig35",      // 223
    "",                 // 224
    "msgget",           // 225
    "msgsnd",           // 226
    "msgrcv",           // 227
    "shmat",            // 228
    "",                 // 229
    "shmdt",            // 230
    "shmget35",         // 231
    "clock_gettime",    // 232
    "clock_settime",    // 233
    "clock_getres",     // 234
    "",                 // 235
    "",                 // 236
    "",                 // 237
    "",                 // 238
    "",                 // 239
    "nanosleep",        // 240
    "",                 // 241
    "",                 // 242
    "",                 // 243
    "",                 // 244
    "",                 // 245
    "",                 // 246
    "",                 // 247
    "",                 // 248
    "",                 // 249
    "minherit",         // 250
    "rfork",            // 251
    "poll",             // 252
    "issetugid",        // 253
    "lchown",           // 254
    "getsid",           // 255
    "msync",            // 256
    "semctl35",         // 257
    "shmctl35",         // 258
    "msgctl35",         // 259
    "",                 // 260
    "",                 // 261
    "",                 // 262
    "pipe",             // 263
    "fhopen",           // 264
    "",                 // 265
    "",                 // 266
    "preadv",           // 267
    "pwritev",          // 268
    "kqueue",           // 269
    "kqueue1",          // 270
    "mlockall",         // 271
    "munlockall",       // 272
    "",                 // 273
    "",                 // 274
    "",                 // 275
    "",                 // 276
    "",                 // 277
    "",                 // 278
    "",                 // 279
    "",                 // 280
    "getresuid",        // 281
    "setresuid",        // 282
    "getresgid",        // 283
    "setresgid",        // 284
    "sys_omquery",      // 285
    "mquery",           // 286
    "closefrom",        // 287
    "sigaltstack",      // 288
    "shmget",           // 289
    "semop",            // 290
    "stat",             // 291
    "fstat",            // 292
    "lstat",            // 293
    "fhstat",           // 294
    "__semctl",         // 295
    "shmctl",           // 296
    "msgctl",           // 297
    "sched_yield",      // 298
    "getthrid",         // 299
    "__thrsleep",       // 300
    "__thrwakeup",      // 301
    "__threxit",        // 302
    "__thrsigdivert",   // 303
    "__getcwd",         // 304
    "adjfreq",          // 305
    "getfsstat53",      // 306
    "statfs53",         // 307
    "fstatfs53",        // 308
    "fhstatfs53",       // 309
    "setrtable",        // 310
    "getrtable",        // 311
    "getdirentries",    // 312
    "faccessat",        // 313
    "fchmodat",         // 314
    "fchownat",         // 315
    "fstatat",          // 316
    "linkat",           // 317
    "mkdirat",          // 318
    "mkfifoat",         // 319
    "mknodat",          // 320
    "openat",           // 321
    "readlinkat",       // 322
    "renameat",         // 323
    "symlinkat",        // 324
    "unlinkat",         // 325
    "utimensat",        // 326
    "futimens",         // 327
    "__tfork51",        // 328
    "__set_tcb",        // 329
    "__get_tcb",        // 330
];

/// (symbolic name, strerror-style text) indexed by errno; ("", "")
/// where undefined.
pub(super) static ERRNOS: &[(&str, &str)] = &[
    ("", ""),                                          // 0
    ("EPERM", "Operation not permitted"),              // 1
    ("ENOENT", "No such file or directory"),           // 2
    ("ESRCH", "No such process"),                      // 3
    ("EINTR", "Interrupted system call"),              // 4
    ("EIO", "Input/output error"),                     // 5
    ("ENXIO", "Device not configured"),                // 6
    ("E2BIG", "Argument list too long"),               // 7
    ("ENOEXEC", "Exec format error"),                  // 8
    ("EBADF", "Bad file descriptor"),                  // 9
    ("ECHILD", "No child processes"),                  // 10
    ("EDEADLK", "Resource deadlock avoided"),          // 11
    ("ENOMEM", "Cannot allocate memory"),              // 12
    ("EACCES", "Permission denied"),                   // 13
    ("EFAULT", "Bad address"),                         // 14
    ("ENOTBLK", "Block device required"),              // 15
    ("EBUSY", "Device busy"),                          // 16
    ("EEXIST", "File exists"),                         // 17
    ("EXDEV", "Cross-device link"),                    // 18
    ("ENODEV", "Operation not supported by device"),   // 19
    ("ENOTDIR", "Not a directory"),                    // 20
    ("EISDIR", "Is a directory"),                      // 21
    ("EINVAL", "Invalid argument"),                    // 22
    ("ENFILE", "Too many open files in system"),       // 23
    ("EMFILE", "Too many open files"),                 // 24
    ("ENOTTY", "Inappropriate ioctl for device"),      // 25
    ("ETXTBSY", "Text file busy"),                     // 26
    ("EFBIG", "File too large"),                       // 27
    ("ENOSPC", "No space left on device"),             // 28
    ("ESPIPE", "Illegal seek"),                        // 29
    ("EROFS", "Read-only file system"),                // 30
    ("EMLINK", "Too many links"),                      // 31
    ("EPIPE", "Broken pipe"),                          // 32
    ("EDOM", "Numerical argument out of domain"),      // 33
    ("ERANGE", "Result too large"),                    // 34
    ("EAGAIN", "Resource temporarily unavailable"),    // 35
    ("EINPROGRESS", "Operation now in progress"),      // 36
    ("EALREADY", "Operation already in progress"),     // 37
    ("ENOTSOCK", "Socket operation on non-socket"),    // 38
    ("EDESTADDRREQ", "Destination address required"),  // 39
    ("EMSGSIZE", "Message too long"),                  // 40
    ("EPROTOTYPE", "Protocol wrong type for socket"),  // 41
    ("ENOPROTOOPT", "Protocol not available"),         // 42
    ("EPROTONOSUPPORT", "Protocol not supported"),     // 43
    ("ESOCKTNOSUPPORT", "Socket type not supported"),  // 44
    ("EOPNOTSUPP", "Operation not supported"),         // 45
    ("EPFNOSUPPORT", "Protocol family not supported"), // 46
    (
        "EAFNOSUPPORT",
        "Address family not supported by protocol family",
    ), // 47
    ("EADDRINUSE", "Address already in use"),          // 48
    ("EADDRNOTAVAIL", "Can't assign requested address"), // 49
    ("ENETDOWN", "Network is down"),                   // 50
    ("ENETUNREACH", "Network is unreachable"),         // 51
    ("ENETRESET", "Network dropped connection on reset"), // 52
    ("ECONNABORTED", "Software caused connection abort"), // 53
    ("ECONNRESET", "Connection reset by peer"),        // 54
    ("ENOBUFS", "No buffer space available"),          // 55
    ("EISCONN", "Socket is already connected"),        // 56
    ("ENOTCONN", "Socket is not connected"),           // 57
    ("ESHUTDOWN", "Can't send after socket shutdown"), // 58
    ("ETOOMANYREFS", "Too many references: can't splice"), // 59
    ("ETIMEDOUT", "Operation timed out"),              // 60
    ("ECONNREFUSED", "Connection refused"),            // 61
    ("ELOOP", "Too many levels of symbolic links"),    // 62
    ("ENAMETOOLONG", "File name too long"),            // 63
    ("EHOSTDOWN", "Host is down"),                     // 64
    ("EHOSTUNREACH", "No route to host"),              // 65
    ("ENOTEMPTY", "Directory not empty"),              // 66
    ("EPROCLIM", "Too many processes"),                // 67
    ("EUSERS", "Too many users"),                      // 68
    ("EDQUOT", "Disk quota exceeded"),                 // 69
    ("ESTALE", "Stale NFS file handle"),               // 70
    ("EREMOTE", "Too many levels of remote in path"),  // 71
    ("EBADRPC", "RPC struct is bad"),                  // 72
    ("ERPCMISMATCH", "RPC version wrong"),             // 73
    ("EPROGUNAVAIL", "RPC program not available"),     // 74
    ("EPROGMISMATCH", "Program version wrong"),        // 75
    ("EPROCUNAVAIL", "Bad procedure for program"),     // 76
    ("ENOLCK", "No locks available"),                  // 77
    ("ENOSYS", "Function not implemented"),            // 78
    ("EFTYPE", "Inappropriate file type or format"),   // 79
    ("EAUTH", "Authentication error"),                 // 80
    ("ENEEDAUTH", "Need authenticator"),               // 81
    ("EIPSEC", "IPsec processing failure"),            // 82
    ("ENOATTR", "Attribute not found"),                // 83
    ("EILSEQ", "Illegal byte sequence"),               // 84
    ("ENOMEDIUM", "No medium found"),                  // 85
    ("EMEDIUMTYPE", "Wrong medium type"),              // 86
    ("EOVERFLOW", "Value too large to be stored in data type"), // 87
    ("ECANCELED", "Operation canceled"),               // 88
    ("EIDRM", "Identifier removed"),                   // 89
    ("ENOMSG", "No message of desired type"),          // 90
    ("ENOTSUP", "Not supported"),                      // 91
    ("EBADMSG", "Bad message"),                        // 92
    ("ENOTRECOVERABLE", "State not recoverable"),      // 93
    ("EOWNERDEAD", "Previous owner died"),             // 94
    ("EPROTO", "Protocol error"),                      // 95
];

/// Signal names indexed by number; "" where undefined.
pub(super) static SIGNALS: &[&str] = &[
    "",          // 0
    "SIGHUP",    // 1
    "SIGINT",    // 2
    "SIGQUIT",   // 3
    "SIGILL",    // 4
    "SIGTRAP",   // 5
    "SIGABRT",   // 6
    "SIGEMT",    // 7
    "SIGFPE",    // 8
    "SIGKILL",   // 9
    "SIGBUS",    // 10
    "SIGSEGV",   // 11
    "SIGSYS",    // 12
    "SIGPIPE",   // 13
    "SIGALRM",   // 14
    "SIGTERM",   // 15
    "SIGURG",    // 16
    "SIGSTOP",   // 17
    "SIGTSTP",   // 18
    "SIGCONT",   // 19
    "SIGCHLD",   // 20
    "SIGTTIN",   // 21
    "SIGTTOU",   // 22
    "SIGIO",     // 23
    "SIGXCPU",   // 24
    "SIGXFSZ",   // 25
    "SIGVTALRM", // 26
    "SIGPROF",   // 27
    "SIGWINCH",  // 28
    "SIGINFO",   // 29
    "SIGUSR1",   // 30
    "SIGUSR2",   // 31
    "SIGTHR",    // 32
];
