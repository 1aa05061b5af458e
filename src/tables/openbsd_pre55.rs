//! Generated name tables for the `openbsd_pre55` dialect -- do not edit.
//!
//! Upstream inputs:
//! - syscalls.master: $OpenBSD: syscalls.master,v 1.133 2013/06/09$ (OpenBSD 5.4, before the 5.5 time_t renumbering) as stored in github.com/bingos/bitrig commit 32c572c331ca4ba0a0383e2865100974c406ba78, path sys/kern/syscalls.master
//! - 331 (uuidgen) is dropped: it is a Bitrig addition; OpenBSD never had a uuidgen syscall (its table ends at 330 __get_tcb).
//! - errno and signal tables are shared with the openbsd dialect.
//!
//! Regenerate with:
//!
//! ```text
//! python3 tools/gen_tables.py openbsd_pre55 /tmp/upstream/openbsd-5.4/syscalls.master - - --origin 'syscalls.master: $OpenBSD: syscalls.master,v 1.133 2013/06/09$ (OpenBSD 5.4, before the 5.5 time_t renumbering) as stored in github.com/bingos/bitrig commit 32c572c331ca4ba0a0383e2865100974c406ba78, path sys/kern/syscalls.master' --origin '331 (uuidgen) is dropped: it is a Bitrig addition; OpenBSD never had a uuidgen syscall (its table ends at 330 __get_tcb).' --drop 331 --origin 'errno and signal tables are shared with the openbsd dialect.' > src/tables/openbsd_pre55.rs
//! rustfmt src/tables/openbsd_pre55.rs
//! ```

#![allow(missing_docs)]

/// Syscall names indexed by number; "" where the number names
/// nothing (obsolete, unimplemented, reserved).
pub(super) static SYSCALLS: &[&str] = &[
    "syscall",          // 0
    "exit",             // 1
    "fork",             // 2
    "read",             // 3
    "write",            // 4
    "open",             // 5
    "close",            // 6
    "wait4",            // 7
    "__tfork",          // 8
    "link",             // 9
    "unlink",           // 10
    "execv",            // 11
    "chdir",            // 12
    "fchdir",           // 13
    "mknod",            // 14
    "chmod",            // 15
    "chown",            // 16
    "break",            // 17
    "getdtablecount",   // 18
    "olseek",           // 19
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
    "kill",             // 37
    "stat43",           // 38
    "getppid",          // 39
    "lstat43",          // 40
    "dup",              // 41
    "opipe",            // 42
    "getegid",          // 43
    "profil",           // 44
    "ktrace",           // 45
    "sigaction",        // 46
    "getgid",           // 47
    "sigprocmask",      // 48
    "getlogin",         // 49
    "setlogin",         // 50
    "acct",             // 51
    "sigpending",       // 52
    "osigaltstack",     // 53
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
    "vread",            // 67
    "vwrite",           // 68
    "sbrk",             // 69
    "sstk",             // 70
    "ommap",            // 71
    "vadvise",          // 72
    "munmap",           // 73
    "mprotect",         // 74
    "madvise",          // 75
    "vhangup",          // 76
    "vlimit",           // 77
    "mincore",          // 78
    "getgroups",        // 79
    "setgroups",        // 80
    "getpgrp",          // 81
    "setpgid",          // 82
    "setitimer",        // 83
    "owait",            // 84
    "swapon25",         // 85
    "getitimer",        // 86
    "ogethostname",     // 87
    "osethostname",     // 88
    "ogetdtablesize",   // 89
    "dup2",             // 90
    "",                 // 91
    "fcntl",            // 92
    "select",           // 93
    "",                 // 94
    "fsync",            // 95
    "setpriority",      // 96
    "socket",           // 97
    "connect",          // 98
    "oaccept",          // 99
    "getpriority",      // 100
    "osend",            // 101
    "orecv",            // 102
    "sigreturn",        // 103
    "bind",             // 104
    "setsockopt",       // 105
    "listen",           // 106
    "vtimes",           // 107
    "osigvec",          // 108
    "ppoll",            // 109
    "pselect",          // 110
    "sigsuspend",       // 111
    "osigstack",        // 112
    "orecvmsg",         // 113
    "osendmsg",         // 114
    "vtrace",           // 115
    "gettimeofday",     // 116
    "getrusage",        // 117
    "getsockopt",       // 118
    "resuba",           // 119
    "readv",            // 120
    "writev",           // 121
    "settimeofday",     // 122
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
    "ogetpeername",     // 141
    "ogethostid",       // 142
    "osethostid",       // 143
    "ogetrlimit",       // 144
    "osetrlimit",       // 145
    "okillpg",          // 146
    "setsid",           // 147
    "quotactl",         // 148
    "oquota",           // 149
    "ogetsockname",     // 150
    "",                 // 151
    "",                 // 152
    "",                 // 153
    "",                 // 154
    "nfssvc",           // 155
    "ogetdirentries",   // 156
    "statfs25",         // 157
    "fstatfs25",        // 158
    "",                 // 159
    "",                 // 160
    "getfh",            // 161
    "ogetdomainname",   // 162
    "osetdomainname",   // 163
    "",                 // 164
    "sysarch",          // 165
    "",                 // 166
    "",                 // 167
    "",                 // 168
    "semsys10",         // 169
    "msgsys10",         // 170
    "shmsys10",         // 171
    "",                 // 172
    "pread",            // 173
    "pwrite",           // 174
    "",                 // 175
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
    "lstat35",          // 190
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
    "__sysctl",         // 202
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
    "kevent",           // 270
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
    "getfsstat",        // 306
    "statfs",           // 307
    "fstatfs",          // 308
    "fhstatfs",         // 309
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
    "",                 // 328
    "__set_tcb",        // 329
    "__get_tcb",        // 330
];

/// (name, number) sorted by name, one number per name (live entry
/// first, else the most recent compat slot).
pub(super) static SYSCALLS_BY_NAME: &[(&str, u16)] = &[
    ("__get_tcb", 330),
    ("__getcwd", 304),
    ("__semctl", 295),
    ("__set_tcb", 329),
    ("__syscall", 198),
    ("__sysctl", 202),
    ("__tfork", 8),
    ("__threxit", 302),
    ("__thrsigdivert", 303),
    ("__thrsleep", 300),
    ("__thrwakeup", 301),
    ("accept", 30),
    ("access", 33),
    ("acct", 51),
    ("adjfreq", 305),
    ("adjtime", 140),
    ("bind", 104),
    ("break", 17),
    ("chdir", 12),
    ("chflags", 34),
    ("chmod", 15),
    ("chown", 16),
    ("chroot", 61),
    ("clock_getres", 234),
    ("clock_gettime", 232),
    ("clock_settime", 233),
    ("close", 6),
    ("closefrom", 287),
    ("connect", 98),
    ("dup", 41),
    ("dup2", 90),
    ("execv", 11),
    ("execve", 59),
    ("exit", 1),
    ("faccessat", 313),
    ("fchdir", 13),
    ("fchflags", 35),
    ("fchmod", 124),
    ("fchmodat", 314),
    ("fchown", 123),
    ("fchownat", 315),
    ("fcntl", 92),
    ("fhopen", 264),
    ("fhstat", 294),
    ("fhstatfs", 65),
    ("flock", 131),
    ("fork", 2),
    ("fpathconf", 192),
    ("fstat", 292),
    ("fstat35", 189),
    ("fstatat", 316),
    ("fstatfs", 64),
    ("fstatfs25", 158),
    ("fsync", 95),
    ("ftruncate", 201),
    ("futimens", 327),
    ("futimes", 206),
    ("getdirentries", 312),
    ("getdtablecount", 18),
    ("getegid", 43),
    ("geteuid", 25),
    ("getfh", 161),
    ("getfsstat", 62),
    ("getgid", 47),
    ("getgroups", 79),
    ("getitimer", 86),
    ("getlogin", 49),
    ("getpeername", 31),
    ("getpgid", 207),
    ("getpgrp", 81),
    ("getpid", 20),
    ("getppid", 39),
    ("getpriority", 100),
    ("getresgid", 283),
    ("getresuid", 281),
    ("getrlimit", 194),
    ("getrtable", 311),
    ("getrusage", 117),
    ("getsid", 255),
    ("getsockname", 32),
    ("getsockopt", 118),
    ("getthrid", 299),
    ("gettimeofday", 116),
    ("getuid", 24),
    ("ioctl", 54),
    ("issetugid", 253),
    ("kevent", 270),
    ("kill", 37),
    ("kqueue", 269),
    ("ktrace", 45),
    ("lchown", 254),
    ("lfs_bmapv", 184),
    ("lfs_markv", 185),
    ("lfs_segclean", 186),
    ("lfs_segwait", 187),
    ("link", 9),
    ("linkat", 317),
    ("listen", 106),
    ("lseek", 199),
    ("lstat", 293),
    ("lstat35", 190),
    ("lstat43", 40),
    ("madvise", 75),
    ("mincore", 78),
    ("minherit", 250),
    ("mkdir", 136),
    ("mkdirat", 318),
    ("mkfifo", 132),
    ("mkfifoat", 319),
    ("mknod", 14),
    ("mknodat", 320),
    ("mlock", 203),
    ("mlockall", 271),
    ("mmap", 197),
    ("mount", 21),
    ("mprotect", 74),
    ("mquery", 286),
    ("msgctl", 297),
    ("msgctl35", 259),
    ("msgget", 225),
    ("msgrcv", 227),
    ("msgsnd", 226),
    ("msgsys10", 170),
    ("msync", 256),
    ("munlock", 204),
    ("munlockall", 272),
    ("munmap", 73),
    ("nanosleep", 240),
    ("nfssvc", 155),
    ("nnpfspioctl", 208),
    ("oaccept", 99),
    ("oftruncate", 130),
    ("ogetdirentries", 156),
    ("ogetdirentries48", 196),
    ("ogetdomainname", 162),
    ("ogetdtablesize", 89),
    ("ogethostid", 142),
    ("ogethostname", 87),
    ("ogetpeername", 141),
    ("ogetrlimit", 144),
    ("ogetsockname", 150),
    ("okillpg", 146),
    ("olseek", 19),
    ("ommap", 71),
    ("open", 5),
    ("openat", 321),
    ("opipe", 42),
    ("oquota", 149),
    ("orecv", 102),
    ("orecvfrom", 125),
    ("orecvmsg", 113),
    ("osend", 101),
    ("osendmsg", 114),
    ("osetdomainname", 163),
    ("osethostid", 143),
    ("osethostname", 88),
    ("osetrlimit", 145),
    ("osigaltstack", 53),
    ("osigstack", 112),
    ("osigvec", 108),
    ("otruncate", 129),
    ("owait", 84),
    ("pathconf", 191),
    ("pipe", 263),
    ("poll", 252),
    ("ppoll", 109),
    ("pread", 173),
    ("preadv", 267),
    ("profil", 44),
    ("pselect", 110),
    ("ptrace", 26),
    ("pwrite", 174),
    ("pwritev", 268),
    ("quotactl", 148),
    ("read", 3),
    ("readlink", 58),
    ("readlinkat", 322),
    ("readv", 120),
    ("reboot", 55),
    ("recvfrom", 29),
    ("recvmsg", 27),
    ("rename", 128),
    ("renameat", 323),
    ("resuba", 119),
    ("revoke", 56),
    ("rfork", 251),
    ("rmdir", 137),
    ("sbrk", 69),
    ("sched_yield", 298),
    ("select", 93),
    ("semconfig35", 223),
    ("semctl35", 257),
    ("semget", 221),
    ("semop", 290),
    ("semop35", 222),
    ("semsys10", 169),
    ("sendmsg", 28),
    ("sendto", 133),
    ("setegid", 182),
    ("seteuid", 183),
    ("setgid", 181),
    ("setgroups", 80),
    ("setitimer", 83),
    ("setlogin", 50),
    ("setpgid", 82),
    ("setpriority", 96),
    ("setregid", 127),
    ("setresgid", 284),
    ("setresuid", 282),
    ("setreuid", 126),
    ("setrlimit", 195),
    ("setrtable", 310),
    ("setsid", 147),
    ("setsockopt", 105),
    ("settimeofday", 122),
    ("setuid", 23),
    ("shmat", 228),
    ("shmctl", 296),
    ("shmctl35", 258),
    ("shmdt", 230),
    ("shmget", 289),
    ("shmget35", 231),
    ("shmsys10", 171),
    ("shutdown", 134),
    ("sigaction", 46),
    ("sigaltstack", 288),
    ("sigpending", 52),
    ("sigprocmask", 48),
    ("sigreturn", 103),
    ("sigsuspend", 111),
    ("socket", 97),
    ("socketpair", 135),
    ("sstk", 70),
    ("stat", 291),
    ("stat35", 188),
    ("stat43", 38),
    ("statfs", 63),
    ("statfs25", 157),
    ("swapctl", 193),
    ("swapon25", 85),
    ("symlink", 57),
    ("symlinkat", 324),
    ("sync", 36),
    ("sys_omquery", 285),
    ("sysarch", 165),
    ("syscall", 0),
    ("truncate", 200),
    ("umask", 60),
    ("unlink", 10),
    ("unlinkat", 325),
    ("unmount", 22),
    ("utimensat", 326),
    ("utimes", 138),
    ("utrace", 209),
    ("vadvise", 72),
    ("vfork", 66),
    ("vhangup", 76),
    ("vlimit", 77),
    ("vread", 67),
    ("vtimes", 107),
    ("vtrace", 115),
    ("vwrite", 68),
    ("wait4", 7),
    ("write", 4),
    ("writev", 121),
];
