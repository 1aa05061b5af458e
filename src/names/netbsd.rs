//! Generated name tables for the `netbsd` dialect -- do not edit.
//!
//! Upstream inputs:
//! - syscalls.master: $NetBSD: syscalls.master,v 1.316 2024/10/09$ as stored in github.com/maksymlanko/netbsd-src (mirror of NetBSD/src) commit 4dbab557728c32289c6fc53b44b8bef02a7e35f2, path sys/kern/syscalls.master
//! - errno.h: $NetBSD: errno.h,v 1.42 2020/03/08$ as stored in github.com/wataash/netbsd-src commit f579842273374f1a1c29e4ffd0210726cfaedc7e, path sys/sys/errno.h
//! - signal.h: $NetBSD: signal.h,v 1.65 2009/12/09$, github.com/NetBSD/src commit 4303cb3c6f5d139d038feffad5d027b6f8bfb259, path sys/sys/signal.h
//! - 507 (unshare, under #if defined(NS)) is dropped: it belongs to that mirror's own namespaces work (sys/kern/sys_ns.c, opt_ns.h), not to NetBSD.
//!
//! Regenerate with:
//!
//! ```text
//! python3 tools/gen_names.py netbsd /tmp/upstream/netbsd/syscalls.master /tmp/upstream/netbsd/errno.h /tmp/upstream/netbsd/signal.h --origin 'syscalls.master: $NetBSD: syscalls.master,v 1.316 2024/10/09$ as stored in github.com/maksymlanko/netbsd-src (mirror of NetBSD/src) commit 4dbab557728c32289c6fc53b44b8bef02a7e35f2, path sys/kern/syscalls.master' --origin 'errno.h: $NetBSD: errno.h,v 1.42 2020/03/08$ as stored in github.com/wataash/netbsd-src commit f579842273374f1a1c29e4ffd0210726cfaedc7e, path sys/sys/errno.h' --origin 'signal.h: $NetBSD: signal.h,v 1.65 2009/12/09$, github.com/NetBSD/src commit 4303cb3c6f5d139d038feffad5d027b6f8bfb259, path sys/sys/signal.h' --origin '507 (unshare, under #if defined(NS)) is dropped: it belongs to that mirror'"'"'s own namespaces work (sys/kern/sys_ns.c, opt_ns.h), not to NetBSD.' --drop 507 > src/names/netbsd.rs
//! rustfmt src/names/netbsd.rs
//! ```

#![allow(missing_docs)]

/// Syscall names indexed by number; "" where the number names
/// nothing (obsolete, unimplemented, reserved).
pub(super) static SYSCALLS: &[&str] = &[
    "syscall",                 // 0
    "exit",                    // 1
    "fork",                    // 2
    "read",                    // 3
    "write",                   // 4
    "open",                    // 5
    "close",                   // 6
    "wait4",                   // 7
    "creat",                   // 8
    "link",                    // 9
    "unlink",                  // 10
    "",                        // 11
    "chdir",                   // 12
    "fchdir",                  // 13
    "mknod",                   // 14
    "chmod",                   // 15
    "chown",                   // 16
    "break",                   // 17
    "getfsstat",               // 18
    "lseek",                   // 19
    "getpid",                  // 20
    "mount",                   // 21
    "unmount",                 // 22
    "setuid",                  // 23
    "getuid",                  // 24
    "geteuid",                 // 25
    "ptrace",                  // 26
    "recvmsg",                 // 27
    "sendmsg",                 // 28
    "recvfrom",                // 29
    "accept",                  // 30
    "getpeername",             // 31
    "getsockname",             // 32
    "access",                  // 33
    "chflags",                 // 34
    "fchflags",                // 35
    "sync",                    // 36
    "kill",                    // 37
    "stat",                    // 38
    "getppid",                 // 39
    "lstat",                   // 40
    "dup",                     // 41
    "pipe",                    // 42
    "getegid",                 // 43
    "profil",                  // 44
    "ktrace",                  // 45
    "sigaction",               // 46
    "getgid",                  // 47
    "sigprocmask",             // 48
    "__getlogin",              // 49
    "__setlogin",              // 50
    "acct",                    // 51
    "sigpending",              // 52
    "sigaltstack",             // 53
    "ioctl",                   // 54
    "reboot",                  // 55
    "revoke",                  // 56
    "symlink",                 // 57
    "readlink",                // 58
    "execve",                  // 59
    "umask",                   // 60
    "chroot",                  // 61
    "fstat",                   // 62
    "getkerninfo",             // 63
    "getpagesize",             // 64
    "msync",                   // 65
    "vfork",                   // 66
    "",                        // 67
    "",                        // 68
    "",                        // 69
    "",                        // 70
    "mmap",                    // 71
    "vadvise",                 // 72
    "munmap",                  // 73
    "mprotect",                // 74
    "madvise",                 // 75
    "",                        // 76
    "",                        // 77
    "mincore",                 // 78
    "getgroups",               // 79
    "setgroups",               // 80
    "getpgrp",                 // 81
    "setpgid",                 // 82
    "setitimer",               // 83
    "wait",                    // 84
    "swapon",                  // 85
    "getitimer",               // 86
    "gethostname",             // 87
    "sethostname",             // 88
    "getdtablesize",           // 89
    "dup2",                    // 90
    "getrandom",               // 91
    "fcntl",                   // 92
    "select",                  // 93
    "",                        // 94
    "fsync",                   // 95
    "setpriority",             // 96
    "socket",                  // 97
    "connect",                 // 98
    "accept",                  // 99
    "getpriority",             // 100
    "send",                    // 101
    "recv",                    // 102
    "sigreturn",               // 103
    "bind",                    // 104
    "setsockopt",              // 105
    "listen",                  // 106
    "",                        // 107
    "sigvec",                  // 108
    "sigblock",                // 109
    "sigsetmask",              // 110
    "sigsuspend",              // 111
    "sigstack",                // 112
    "recvmsg",                 // 113
    "sendmsg",                 // 114
    "",                        // 115
    "gettimeofday",            // 116
    "getrusage",               // 117
    "getsockopt",              // 118
    "",                        // 119
    "readv",                   // 120
    "writev",                  // 121
    "settimeofday",            // 122
    "fchown",                  // 123
    "fchmod",                  // 124
    "recvfrom",                // 125
    "setreuid",                // 126
    "setregid",                // 127
    "rename",                  // 128
    "truncate",                // 129
    "ftruncate",               // 130
    "flock",                   // 131
    "mkfifo",                  // 132
    "sendto",                  // 133
    "shutdown",                // 134
    "socketpair",              // 135
    "mkdir",                   // 136
    "rmdir",                   // 137
    "utimes",                  // 138
    "",                        // 139
    "adjtime",                 // 140
    "getpeername",             // 141
    "gethostid",               // 142
    "sethostid",               // 143
    "getrlimit",               // 144
    "setrlimit",               // 145
    "killpg",                  // 146
    "setsid",                  // 147
    "quotactl",                // 148
    "quota",                   // 149
    "getsockname",             // 150
    "",                        // 151
    "",                        // 152
    "",                        // 153
    "",                        // 154
    "nfssvc",                  // 155
    "getdirentries",           // 156
    "statfs",                  // 157
    "fstatfs",                 // 158
    "",                        // 159
    "",                        // 160
    "getfh",                   // 161
    "getdomainname",           // 162
    "setdomainname",           // 163
    "uname",                   // 164
    "sysarch",                 // 165
    "__futex",                 // 166
    "__futex_set_robust_list", // 167
    "__futex_get_robust_list", // 168
    "",                        // 169
    "",                        // 170
    "",                        // 171
    "",                        // 172
    "pread",                   // 173
    "pwrite",                  // 174
    "ntp_gettime",             // 175
    "ntp_adjtime",             // 176
    "timerfd_create",          // 177
    "timerfd_settime",         // 178
    "timerfd_gettime",         // 179
    "",                        // 180
    "setgid",                  // 181
    "setegid",                 // 182
    "seteuid",                 // 183
    "lfs_bmapv",               // 184
    "lfs_markv",               // 185
    "lfs_segclean",            // 186
    "lfs_segwait",             // 187
    "stat",                    // 188
    "fstat",                   // 189
    "lstat",                   // 190
    "pathconf",                // 191
    "fpathconf",               // 192
    "getsockopt2",             // 193
    "getrlimit",               // 194
    "setrlimit",               // 195
    "getdirentries",           // 196
    "mmap",                    // 197
    "__syscall",               // 198
    "lseek",                   // 199
    "truncate",                // 200
    "ftruncate",               // 201
    "__sysctl",                // 202
    "mlock",                   // 203
    "munlock",                 // 204
    "undelete",                // 205
    "futimes",                 // 206
    "getpgid",                 // 207
    "reboot",                  // 208
    "poll",                    // 209
    "afssys",                  // 210
    "",                        // 211
    "",                        // 212
    "",                        // 213
    "",                        // 214
    "",                        // 215
    "",                        // 216
    "",                        // 217
    "",                        // 218
    "",                        // 219
    "__semctl",                // 220
    "semget",                  // 221
    "semop",                   // 222
    "semconfig",               // 223
    "msgctl",                  // 224
    "msgget",                  // 225
    "msgsnd",                  // 226
    "msgrcv",                  // 227
    "shmat",                   // 228
    "shmctl",                  // 229
    "shmdt",                   // 230
    "shmget",                  // 231
    "clock_gettime",           // 232
    "clock_settime",           // 233
    "clock_getres",            // 234
    "timer_create",            // 235
    "timer_delete",            // 236
    "timer_settime",           // 237
    "timer_gettime",           // 238
    "timer_getoverrun",        // 239
    "nanosleep",               // 240
    "fdatasync",               // 241
    "mlockall",                // 242
    "munlockall",              // 243
    "__sigtimedwait",          // 244
    "sigqueueinfo",            // 245
    "modctl",                  // 246
    "_ksem_init",              // 247
    "_ksem_open",              // 248
    "_ksem_unlink",            // 249
    "_ksem_close",             // 250
    "_ksem_post",              // 251
    "_ksem_wait",              // 252
    "_ksem_trywait",           // 253
    "_ksem_getvalue",          // 254
    "_ksem_destroy",           // 255
    "_ksem_timedwait",         // 256
    "mq_open",                 // 257
    "mq_close",                // 258
    "mq_unlink",               // 259
    "mq_getattr",              // 260
    "mq_setattr",              // 261
    "mq_notify",               // 262
    "mq_send",                 // 263
    "mq_receive",              // 264
    "mq_timedsend",            // 265
    "mq_timedreceive",         // 266
    "eventfd",                 // 267
    "",                        // 268
    "",                        // 269
    "__posix_rename",          // 270
    "swapctl",                 // 271
    "getdents",                // 272
    "minherit",                // 273
    "lchmod",                  // 274
    "lchown",                  // 275
    "lutimes",                 // 276
    "__msync13",               // 277
    "__stat13",                // 278
    "__fstat13",               // 279
    "__lstat13",               // 280
    "__sigaltstack14",         // 281
    "__vfork14",               // 282
    "__posix_chown",           // 283
    "__posix_fchown",          // 284
    "__posix_lchown",          // 285
    "getsid",                  // 286
    "__clone",                 // 287
    "fktrace",                 // 288
    "preadv",                  // 289
    "pwritev",                 // 290
    "__sigaction14",           // 291
    "__sigpending14",          // 292
    "__sigprocmask14",         // 293
    "__sigsuspend14",          // 294
    "__sigreturn14",           // 295
    "__getcwd",                // 296
    "fchroot",                 // 297
    "fhopen",                  // 298
    "fhstat",                  // 299
    "fhstatfs",                // 300
    "____semctl13",            // 301
    "__msgctl13",              // 302
    "__shmctl13",              // 303
    "lchflags",                // 304
    "issetugid",               // 305
    "utrace",                  // 306
    "getcontext",              // 307
    "setcontext",              // 308
    "_lwp_create",             // 309
    "_lwp_exit",               // 310
    "_lwp_self",               // 311
    "_lwp_wait",               // 312
    "_lwp_suspend",            // 313
    "_lwp_continue",           // 314
    "_lwp_wakeup",             // 315
    "_lwp_getprivate",         // 316
    "_lwp_setprivate",         // 317
    "_lwp_kill",               // 318
    "_lwp_detach",             // 319
    "_lwp_park",               // 320
    "_lwp_unpark",             // 321
    "_lwp_unpark_all",         // 322
    "_lwp_setname",            // 323
    "_lwp_getname",            // 324
    "_lwp_ctl",                // 325
    "",                        // 326
    "",                        // 327
    "",                        // 328
    "",                        // 329
    "sa_register",             // 330
    "sa_stacks",               // 331
    "sa_enable",               // 332
    "sa_setconcurrency",       // 333
    "sa_yield",                // 334
    "sa_preempt",              // 335
    "",                        // 336
    "",                        // 337
    "",                        // 338
    "",                        // 339
    "__sigaction_sigtramp",    // 340
    "",                        // 341
    "",                        // 342
    "rasctl",                  // 343
    "kqueue",                  // 344
    "kevent",                  // 345
    "_sched_setparam",         // 346
    "_sched_getparam",         // 347
    "_sched_setaffinity",      // 348
    "_sched_getaffinity",      // 349
    "sched_yield",             // 350
    "_sched_protect",          // 351
    "",                        // 352
    "",                        // 353
    "fsync_range",             // 354
    "uuidgen",                 // 355
    "getvfsstat",              // 356
    "statvfs1",                // 357
    "fstatvfs1",               // 358
    "fhstatvfs1",              // 359
    "extattrctl",              // 360
    "extattr_set_file",        // 361
    "extattr_get_file",        // 362
    "extattr_delete_file",     // 363
    "extattr_set_fd",          // 364
    "extattr_get_fd",          // 365
    "extattr_delete_fd",       // 366
    "extattr_set_link",        // 367
    "extattr_get_link",        // 368
    "extattr_delete_link",     // 369
    "extattr_list_fd",         // 370
    "extattr_list_file",       // 371
    "extattr_list_link",       // 372
    "pselect",                 // 373
    "pollts",                  // 374
    "setxattr",                // 375
    "lsetxattr",               // 376
    "fsetxattr",               // 377
    "getxattr",                // 378
    "lgetxattr",               // 379
    "fgetxattr",               // 380
    "listxattr",               // 381
    "llistxattr",              // 382
    "flistxattr",              // 383
    "removexattr",             // 384
    "lremovexattr",            // 385
    "fremovexattr",            // 386
    "__stat30",                // 387
    "__fstat30",               // 388
    "__lstat30",               // 389
    "__getdents30",            // 390
    "",                        // 391
    "__fhstat30",              // 392
    "__ntp_gettime30",         // 393
    "__socket30",              // 394
    "__getfh30",               // 395
    "__fhopen40",              // 396
    "fhstatvfs1",              // 397
    "__fhstat40",              // 398
    "aio_cancel",              // 399
    "aio_error",               // 400
    "aio_fsync",               // 401
    "aio_read",                // 402
    "aio_return",              // 403
    "aio_suspend",             // 404
    "aio_write",               // 405
    "lio_listio",              // 406
    "",                        // 407
    "",                        // 408
    "",                        // 409
    "__mount50",               // 410
    "mremap",                  // 411
    "pset_create",             // 412
    "pset_destroy",            // 413
    "pset_assign",             // 414
    "_pset_bind",              // 415
    "__posix_fadvise50",       // 416
    "__select50",              // 417
    "__gettimeofday50",        // 418
    "__settimeofday50",        // 419
    "__utimes50",              // 420
    "__adjtime50",             // 421
    "__lfs_segwait50",         // 422
    "__futimes50",             // 423
    "__lutimes50",             // 424
    "__setitimer50",           // 425
    "__getitimer50",           // 426
    "__clock_gettime50",       // 427
    "__clock_settime50",       // 428
    "__clock_getres50",        // 429
    "__nanosleep50",           // 430
    "____sigtimedwait50",      // 431
    "__mq_timedsend50",        // 432
    "__mq_timedreceive50",     // 433
    "_lwp_park",               // 434
    "__kevent50",              // 435
    "__pselect50",             // 436
    "__pollts50",              // 437
    "__aio_suspend50",         // 438
    "__stat50",                // 439
    "__fstat50",               // 440
    "__lstat50",               // 441
    "____semctl50",            // 442
    "__shmctl50",              // 443
    "__msgctl50",              // 444
    "__getrusage50",           // 445
    "__timer_settime50",       // 446
    "__timer_gettime50",       // 447
    "__ntp_gettime50",         // 448
    "__wait450",               // 449
    "__mknod50",               // 450
    "__fhstat50",              // 451
    "",                        // 452
    "pipe2",                   // 453
    "dup3",                    // 454
    "kqueue1",                 // 455
    "paccept",                 // 456
    "linkat",                  // 457
    "renameat",                // 458
    "mkfifoat",                // 459
    "mknodat",                 // 460
    "mkdirat",                 // 461
    "faccessat",               // 462
    "fchmodat",                // 463
    "fchownat",                // 464
    "fexecve",                 // 465
    "fstatat",                 // 466
    "utimensat",               // 467
    "openat",                  // 468
    "readlinkat",              // 469
    "symlinkat",               // 470
    "unlinkat",                // 471
    "futimens",                // 472
    "__quotactl",              // 473
    "posix_spawn",             // 474
    "recvmmsg",                // 475
    "sendmmsg",                // 476
    "clock_nanosleep",         // 477
    "___lwp_park60",           // 478
    "posix_fallocate",         // 479
    "fdiscard",                // 480
    "wait6",                   // 481
    "clock_getcpuclockid2",    // 482
    "__getvfsstat90",          // 483
    "__statvfs190",            // 484
    "__fstatvfs190",           // 485
    "__fhstatvfs190",          // 486
    "__acl_get_link",          // 487
    "__acl_set_link",          // 488
    "__acl_delete_link",       // 489
    "__acl_aclcheck_link",     // 490
    "__acl_get_file",          // 491
    "__acl_set_file",          // 492
    "__acl_get_fd",            // 493
    "__acl_set_fd",            // 494
    "__acl_delete_file",       // 495
    "__acl_delete_fd",         // 496
    "__acl_aclcheck_file",     // 497
    "__acl_aclcheck_fd",       // 498
    "lpathconf",               // 499
    "memfd_create",            // 500
    "__kevent100",             // 501
    "epoll_create1",           // 502
    "epoll_ctl",               // 503
    "epoll_pwait2",            // 504
    "__dup3100",               // 505
    "semtimedop",              // 506
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
    ("ERANGE", "Result too large or too small"),       // 34
    ("EAGAIN", "Resource temporarily unavailable"),    // 35
    ("EINPROGRESS", "Operation now in progress"),      // 36
    ("EALREADY", "Operation already in progress"),     // 37
    ("ENOTSOCK", "Socket operation on non-socket"),    // 38
    ("EDESTADDRREQ", "Destination address required"),  // 39
    ("EMSGSIZE", "Message too long"),                  // 40
    ("EPROTOTYPE", "Protocol wrong type for socket"),  // 41
    ("ENOPROTOOPT", "Protocol option not available"),  // 42
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
    ("EDQUOT", "Disc quota exceeded"),                 // 69
    ("ESTALE", "Stale NFS file handle"),               // 70
    ("EREMOTE", "Too many levels of remote in path"),  // 71
    ("EBADRPC", "RPC struct is bad"),                  // 72
    ("ERPCMISMATCH", "RPC version wrong"),             // 73
    ("EPROGUNAVAIL", "RPC prog. not avail"),           // 74
    ("EPROGMISMATCH", "Program version wrong"),        // 75
    ("EPROCUNAVAIL", "Bad procedure for program"),     // 76
    ("ENOLCK", "No locks available"),                  // 77
    ("ENOSYS", "Function not implemented"),            // 78
    ("EFTYPE", "Inappropriate file type or format"),   // 79
    ("EAUTH", "Authentication error"),                 // 80
    ("ENEEDAUTH", "Need authenticator"),               // 81
    ("EIDRM", "Identifier removed"),                   // 82
    ("ENOMSG", "No message of desired type"),          // 83
    ("EOVERFLOW", "Value too large to be stored in data type"), // 84
    ("EILSEQ", "Illegal byte sequence"),               // 85
    ("ENOTSUP", "Not supported"),                      // 86
    ("ECANCELED", "Operation canceled"),               // 87
    ("EBADMSG", "Bad or Corrupt message"),             // 88
    ("ENODATA", "No message available"),               // 89
    ("ENOSR", "No STREAM resources"),                  // 90
    ("ENOSTR", "Not a STREAM"),                        // 91
    ("ETIME", "STREAM ioctl timeout"),                 // 92
    ("ENOATTR", "Attribute not found"),                // 93
    ("EMULTIHOP", "Multihop attempted"),               // 94
    ("ENOLINK", "Link has been severed"),              // 95
    ("EPROTO", "Protocol error"),                      // 96
    ("EOWNERDEAD", "Previous owner died"),             // 97
    ("ENOTRECOVERABLE", "State not recoverable"),      // 98
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
    "SIGPWR",    // 32
];
