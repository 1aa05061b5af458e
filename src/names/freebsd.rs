//! Generated name tables for the `freebsd` dialect -- do not edit.
//!
//! Upstream inputs:
//! - syscalls.master: github.com/kostikbel/freebsd-src (a fork tracking freebsd/freebsd-src main, early 2026) commit 7fbdafd437f758b9bdd7a3b2fd7bbcb521b51907, path sys/kern/syscalls.master (600-604 cross-checked against github.com/CHERI-Alliance/freebsd-src commit 9c2e342c)
//! - errno.h: github.com/sobomax/freebsd14_vendor (FreeBSD 14 vendor tree, $FreeBSD: e53a8d4c$) commit 0f7ff3427c99afe8b7a0ccf8638dc10aed02c3f8, path sys/sys/errno.h
//! - signal.h: github.com/sobomax/freebsd14_vendor commit 4b33055d8aff7e8e51b0c2e7650dc0f75e9da8a7, path sys/sys/signal.h
//! - Syscall 1 is spelled _exit in FreeBSD main and renamed to exit here (every release through 14 and every other BSD spell it exit).
//!
//! Regenerate with:
//!
//! ```text
//! python3 tools/gen_names.py freebsd /tmp/upstream/freebsd/syscalls.master /tmp/upstream/freebsd/errno.h /tmp/upstream/freebsd/signal.h --origin 'syscalls.master: github.com/kostikbel/freebsd-src (a fork tracking freebsd/freebsd-src main, early 2026) commit 7fbdafd437f758b9bdd7a3b2fd7bbcb521b51907, path sys/kern/syscalls.master (600-604 cross-checked against github.com/CHERI-Alliance/freebsd-src commit 9c2e342c)' --origin 'errno.h: github.com/sobomax/freebsd14_vendor (FreeBSD 14 vendor tree, $FreeBSD: e53a8d4c$) commit 0f7ff3427c99afe8b7a0ccf8638dc10aed02c3f8, path sys/sys/errno.h' --origin 'signal.h: github.com/sobomax/freebsd14_vendor commit 4b33055d8aff7e8e51b0c2e7650dc0f75e9da8a7, path sys/sys/signal.h' --origin 'Syscall 1 is spelled _exit in FreeBSD main and renamed to exit here (every release through 14 and every other BSD spell it exit).' > src/names/freebsd.rs
//! rustfmt src/names/freebsd.rs
//! ```

#![allow(missing_docs)]

/// Syscall names indexed by number; "" where the number names
/// nothing (obsolete, unimplemented, reserved).
pub(super) static SYSCALLS: &[&str] = &[
    "syscall",                  // 0
    "exit",                     // 1
    "fork",                     // 2
    "read",                     // 3
    "write",                    // 4
    "open",                     // 5
    "close",                    // 6
    "wait4",                    // 7
    "creat",                    // 8
    "link",                     // 9
    "unlink",                   // 10
    "",                         // 11
    "chdir",                    // 12
    "fchdir",                   // 13
    "mknod",                    // 14
    "chmod",                    // 15
    "chown",                    // 16
    "break",                    // 17
    "getfsstat",                // 18
    "lseek",                    // 19
    "getpid",                   // 20
    "mount",                    // 21
    "unmount",                  // 22
    "setuid",                   // 23
    "getuid",                   // 24
    "geteuid",                  // 25
    "ptrace",                   // 26
    "recvmsg",                  // 27
    "sendmsg",                  // 28
    "recvfrom",                 // 29
    "accept",                   // 30
    "getpeername",              // 31
    "getsockname",              // 32
    "access",                   // 33
    "chflags",                  // 34
    "fchflags",                 // 35
    "sync",                     // 36
    "kill",                     // 37
    "stat",                     // 38
    "getppid",                  // 39
    "lstat",                    // 40
    "dup",                      // 41
    "pipe",                     // 42
    "getegid",                  // 43
    "profil",                   // 44
    "ktrace",                   // 45
    "sigaction",                // 46
    "getgid",                   // 47
    "sigprocmask",              // 48
    "getlogin",                 // 49
    "setlogin",                 // 50
    "acct",                     // 51
    "sigpending",               // 52
    "sigaltstack",              // 53
    "ioctl",                    // 54
    "reboot",                   // 55
    "revoke",                   // 56
    "symlink",                  // 57
    "readlink",                 // 58
    "execve",                   // 59
    "umask",                    // 60
    "chroot",                   // 61
    "fstat",                    // 62
    "getkerninfo",              // 63
    "getpagesize",              // 64
    "msync",                    // 65
    "vfork",                    // 66
    "",                         // 67
    "",                         // 68
    "",                         // 69
    "",                         // 70
    "mmap",                     // 71
    "vadvise",                  // 72
    "munmap",                   // 73
    "mprotect",                 // 74
    "madvise",                  // 75
    "",                         // 76
    "",                         // 77
    "mincore",                  // 78
    "getgroups",                // 79
    "setgroups",                // 80
    "getpgrp",                  // 81
    "setpgid",                  // 82
    "setitimer",                // 83
    "wait",                     // 84
    "swapon",                   // 85
    "getitimer",                // 86
    "gethostname",              // 87
    "sethostname",              // 88
    "getdtablesize",            // 89
    "dup2",                     // 90
    "",                         // 91
    "fcntl",                    // 92
    "select",                   // 93
    "",                         // 94
    "fsync",                    // 95
    "setpriority",              // 96
    "socket",                   // 97
    "connect",                  // 98
    "accept",                   // 99
    "getpriority",              // 100
    "send",                     // 101
    "recv",                     // 102
    "sigreturn",                // 103
    "bind",                     // 104
    "setsockopt",               // 105
    "listen",                   // 106
    "",                         // 107
    "sigvec",                   // 108
    "sigblock",                 // 109
    "sigsetmask",               // 110
    "sigsuspend",               // 111
    "sigstack",                 // 112
    "recvmsg",                  // 113
    "sendmsg",                  // 114
    "",                         // 115
    "gettimeofday",             // 116
    "getrusage",                // 117
    "getsockopt",               // 118
    "",                         // 119
    "readv",                    // 120
    "writev",                   // 121
    "settimeofday",             // 122
    "fchown",                   // 123
    "fchmod",                   // 124
    "recvfrom",                 // 125
    "setreuid",                 // 126
    "setregid",                 // 127
    "rename",                   // 128
    "truncate",                 // 129
    "ftruncate",                // 130
    "flock",                    // 131
    "mkfifo",                   // 132
    "sendto",                   // 133
    "shutdown",                 // 134
    "socketpair",               // 135
    "mkdir",                    // 136
    "rmdir",                    // 137
    "utimes",                   // 138
    "",                         // 139
    "adjtime",                  // 140
    "getpeername",              // 141
    "gethostid",                // 142
    "sethostid",                // 143
    "getrlimit",                // 144
    "setrlimit",                // 145
    "killpg",                   // 146
    "setsid",                   // 147
    "quotactl",                 // 148
    "quota",                    // 149
    "getsockname",              // 150
    "",                         // 151
    "",                         // 152
    "",                         // 153
    "nlm_syscall",              // 154
    "nfssvc",                   // 155
    "getdirentries",            // 156
    "statfs",                   // 157
    "fstatfs",                  // 158
    "",                         // 159
    "lgetfh",                   // 160
    "getfh",                    // 161
    "getdomainname",            // 162
    "setdomainname",            // 163
    "uname",                    // 164
    "sysarch",                  // 165
    "rtprio",                   // 166
    "",                         // 167
    "",                         // 168
    "semsys",                   // 169
    "msgsys",                   // 170
    "shmsys",                   // 171
    "",                         // 172
    "pread",                    // 173
    "pwrite",                   // 174
    "setfib",                   // 175
    "ntp_adjtime",              // 176
    "",                         // 177
    "",                         // 178
    "",                         // 179
    "",                         // 180
    "setgid",                   // 181
    "setegid",                  // 182
    "seteuid",                  // 183
    "",                         // 184
    "",                         // 185
    "",                         // 186
    "",                         // 187
    "stat",                     // 188
    "fstat",                    // 189
    "lstat",                    // 190
    "pathconf",                 // 191
    "fpathconf",                // 192
    "",                         // 193
    "getrlimit",                // 194
    "setrlimit",                // 195
    "getdirentries",            // 196
    "mmap",                     // 197
    "__syscall",                // 198
    "lseek",                    // 199
    "truncate",                 // 200
    "ftruncate",                // 201
    "__sysctl",                 // 202
    "mlock",                    // 203
    "munlock",                  // 204
    "undelete",                 // 205
    "futimes",                  // 206
    "getpgid",                  // 207
    "",                         // 208
    "poll",                     // 209
    "",                         // 210
    "",                         // 211
    "",                         // 212
    "",                         // 213
    "",                         // 214
    "",                         // 215
    "",                         // 216
    "",                         // 217
    "",                         // 218
    "",                         // 219
    "__semctl",                 // 220
    "semget",                   // 221
    "semop",                    // 222
    "",                         // 223
    "msgctl",                   // 224
    "msgget",                   // 225
    "msgsnd",                   // 226
    "msgrcv",                   // 227
    "shmat",                    // 228
    "shmctl",                   // 229
    "shmdt",                    // 230
    "shmget",                   // 231
    "clock_gettime",            // 232
    "clock_settime",            // 233
    "clock_getres",             // 234
    "ktimer_create",            // 235
    "ktimer_delete",            // 236
    "ktimer_settime",           // 237
    "ktimer_gettime",           // 238
    "ktimer_getoverrun",        // 239
    "nanosleep",                // 240
    "ffclock_getcounter",       // 241
    "ffclock_setestimate",      // 242
    "ffclock_getestimate",      // 243
    "clock_nanosleep",          // 244
    "",                         // 245
    "",                         // 246
    "clock_getcpuclockid2",     // 247
    "ntp_gettime",              // 248
    "",                         // 249
    "minherit",                 // 250
    "rfork",                    // 251
    "",                         // 252
    "issetugid",                // 253
    "lchown",                   // 254
    "aio_read",                 // 255
    "aio_write",                // 256
    "lio_listio",               // 257
    "",                         // 258
    "",                         // 259
    "",                         // 260
    "",                         // 261
    "",                         // 262
    "",                         // 263
    "",                         // 264
    "",                         // 265
    "",                         // 266
    "",                         // 267
    "",                         // 268
    "",                         // 269
    "",                         // 270
    "",                         // 271
    "getdents",                 // 272
    "",                         // 273
    "lchmod",                   // 274
    "",                         // 275
    "lutimes",                  // 276
    "",                         // 277
    "nstat",                    // 278
    "nfstat",                   // 279
    "nlstat",                   // 280
    "",                         // 281
    "",                         // 282
    "",                         // 283
    "",                         // 284
    "",                         // 285
    "",                         // 286
    "",                         // 287
    "",                         // 288
    "preadv",                   // 289
    "pwritev",                  // 290
    "",                         // 291
    "",                         // 292
    "",                         // 293
    "",                         // 294
    "",                         // 295
    "",                         // 296
    "fhstatfs",                 // 297
    "fhopen",                   // 298
    "fhstat",                   // 299
    "modnext",                  // 300
    "modstat",                  // 301
    "modfnext",                 // 302
    "modfind",                  // 303
    "kldload",                  // 304
    "kldunload",                // 305
    "kldfind",                  // 306
    "kldnext",                  // 307
    "kldstat",                  // 308
    "kldfirstmod",              // 309
    "getsid",                   // 310
    "setresuid",                // 311
    "setresgid",                // 312
    "",                         // 313
    "aio_return",               // 314
    "aio_suspend",              // 315
    "aio_cancel",               // 316
    "aio_error",                // 317
    "aio_read",                 // 318
    "aio_write",                // 319
    "lio_listio",               // 320
    "yield",                    // 321
    "",                         // 322
    "",                         // 323
    "mlockall",                 // 324
    "munlockall",               // 325
    "__getcwd",                 // 326
    "sched_setparam",           // 327
    "sched_getparam",           // 328
    "sched_setscheduler",       // 329
    "sched_getscheduler",       // 330
    "sched_yield",              // 331
    "sched_get_priority_max",   // 332
    "sched_get_priority_min",   // 333
    "sched_rr_get_interval",    // 334
    "utrace",                   // 335
    "sendfile",                 // 336
    "kldsym",                   // 337
    "jail",                     // 338
    "nnpfs_syscall",            // 339
    "sigprocmask",              // 340
    "sigsuspend",               // 341
    "sigaction",                // 342
    "sigpending",               // 343
    "sigreturn",                // 344
    "sigtimedwait",             // 345
    "sigwaitinfo",              // 346
    "__acl_get_file",           // 347
    "__acl_set_file",           // 348
    "__acl_get_fd",             // 349
    "__acl_set_fd",             // 350
    "__acl_delete_file",        // 351
    "__acl_delete_fd",          // 352
    "__acl_aclcheck_file",      // 353
    "__acl_aclcheck_fd",        // 354
    "extattrctl",               // 355
    "extattr_set_file",         // 356
    "extattr_get_file",         // 357
    "extattr_delete_file",      // 358
    "aio_waitcomplete",         // 359
    "getresuid",                // 360
    "getresgid",                // 361
    "kqueue",                   // 362
    "kevent",                   // 363
    "",                         // 364
    "",                         // 365
    "",                         // 366
    "",                         // 367
    "",                         // 368
    "",                         // 369
    "",                         // 370
    "extattr_set_fd",           // 371
    "extattr_get_fd",           // 372
    "extattr_delete_fd",        // 373
    "__setugid",                // 374
    "",                         // 375
    "eaccess",                  // 376
    "afs3_syscall",             // 377
    "nmount",                   // 378
    "",                         // 379
    "",                         // 380
    "",                         // 381
    "",                         // 382
    "",                         // 383
    "__mac_get_proc",           // 384
    "__mac_set_proc",           // 385
    "__mac_get_fd",             // 386
    "__mac_get_file",           // 387
    "__mac_set_fd",             // 388
    "__mac_set_file",           // 389
    "kenv",                     // 390
    "lchflags",                 // 391
    "uuidgen",                  // 392
    "sendfile",                 // 393
    "mac_syscall",              // 394
    "getfsstat",                // 395
    "statfs",                   // 396
    "fstatfs",                  // 397
    "fhstatfs",                 // 398
    "",                         // 399
    "ksem_close",               // 400
    "ksem_post",                // 401
    "ksem_wait",                // 402
    "ksem_trywait",             // 403
    "ksem_init",                // 404
    "ksem_open",                // 405
    "ksem_unlink",              // 406
    "ksem_getvalue",            // 407
    "ksem_destroy",             // 408
    "__mac_get_pid",            // 409
    "__mac_get_link",           // 410
    "__mac_set_link",           // 411
    "extattr_set_link",         // 412
    "extattr_get_link",         // 413
    "extattr_delete_link",      // 414
    "__mac_execve",             // 415
    "sigaction",                // 416
    "sigreturn",                // 417
    "",                         // 418
    "",                         // 419
    "",                         // 420
    "getcontext",               // 421
    "setcontext",               // 422
    "swapcontext",              // 423
    "swapoff",                  // 424
    "__acl_get_link",           // 425
    "__acl_set_link",           // 426
    "__acl_delete_link",        // 427
    "__acl_aclcheck_link",      // 428
    "sigwait",                  // 429
    "thr_create",               // 430
    "thr_exit",                 // 431
    "thr_self",                 // 432
    "thr_kill",                 // 433
    "_umtx_lock",               // 434
    "_umtx_unlock",             // 435
    "jail_attach",              // 436
    "extattr_list_fd",          // 437
    "extattr_list_file",        // 438
    "extattr_list_link",        // 439
    "",                         // 440
    "ksem_timedwait",           // 441
    "thr_suspend",              // 442
    "thr_wake",                 // 443
    "kldunloadf",               // 444
    "audit",                    // 445
    "auditon",                  // 446
    "getauid",                  // 447
    "setauid",                  // 448
    "getaudit",                 // 449
    "setaudit",                 // 450
    "getaudit_addr",            // 451
    "setaudit_addr",            // 452
    "auditctl",                 // 453
    "_umtx_op",                 // 454
    "thr_new",                  // 455
    "sigqueue",                 // 456
    "kmq_open",                 // 457
    "kmq_setattr",              // 458
    "kmq_timedreceive",         // 459
    "kmq_timedsend",            // 460
    "kmq_notify",               // 461
    "kmq_unlink",               // 462
    "abort2",                   // 463
    "thr_set_name",             // 464
    "aio_fsync",                // 465
    "rtprio_thread",            // 466
    "",                         // 467
    "",                         // 468
    "",                         // 469
    "",                         // 470
    "sctp_peeloff",             // 471
    "sctp_generic_sendmsg",     // 472
    "sctp_generic_sendmsg_iov", // 473
    "sctp_generic_recvmsg",     // 474
    "pread",                    // 475
    "pwrite",                   // 476
    "mmap",                     // 477
    "lseek",                    // 478
    "truncate",                 // 479
    "ftruncate",                // 480
    "thr_kill2",                // 481
    "shm_open",                 // 482
    "shm_unlink",               // 483
    "cpuset",                   // 484
    "cpuset_setid",             // 485
    "cpuset_getid",             // 486
    "cpuset_getaffinity",       // 487
    "cpuset_setaffinity",       // 488
    "faccessat",                // 489
    "fchmodat",                 // 490
    "fchownat",                 // 491
    "fexecve",                  // 492
    "fstatat",                  // 493
    "futimesat",                // 494
    "linkat",                   // 495
    "mkdirat",                  // 496
    "mkfifoat",                 // 497
    "mknodat",                  // 498
    "openat",                   // 499
    "readlinkat",               // 500
    "renameat",                 // 501
    "symlinkat",                // 502
    "unlinkat",                 // 503
    "posix_openpt",             // 504
    "",                         // 505
    "jail_get",                 // 506
    "jail_set",                 // 507
    "jail_remove",              // 508
    "closefrom",                // 509
    "__semctl",                 // 510
    "msgctl",                   // 511
    "shmctl",                   // 512
    "lpathconf",                // 513
    "",                         // 514
    "__cap_rights_get",         // 515
    "cap_enter",                // 516
    "cap_getmode",              // 517
    "pdfork",                   // 518
    "pdkill",                   // 519
    "pdgetpid",                 // 520
    "",                         // 521
    "pselect",                  // 522
    "getloginclass",            // 523
    "setloginclass",            // 524
    "rctl_get_racct",           // 525
    "rctl_get_rules",           // 526
    "rctl_get_limits",          // 527
    "rctl_add_rule",            // 528
    "rctl_remove_rule",         // 529
    "posix_fallocate",          // 530
    "posix_fadvise",            // 531
    "wait6",                    // 532
    "cap_rights_limit",         // 533
    "cap_ioctls_limit",         // 534
    "cap_ioctls_get",           // 535
    "cap_fcntls_limit",         // 536
    "cap_fcntls_get",           // 537
    "bindat",                   // 538
    "connectat",                // 539
    "chflagsat",                // 540
    "accept4",                  // 541
    "pipe2",                    // 542
    "aio_mlock",                // 543
    "procctl",                  // 544
    "ppoll",                    // 545
    "futimens",                 // 546
    "utimensat",                // 547
    "",                         // 548
    "",                         // 549
    "fdatasync",                // 550
    "fstat",                    // 551
    "fstatat",                  // 552
    "fhstat",                   // 553
    "getdirentries",            // 554
    "statfs",                   // 555
    "fstatfs",                  // 556
    "getfsstat",                // 557
    "fhstatfs",                 // 558
    "mknodat",                  // 559
    "kevent",                   // 560
    "cpuset_getdomain",         // 561
    "cpuset_setdomain",         // 562
    "getrandom",                // 563
    "getfhat",                  // 564
    "fhlink",                   // 565
    "fhlinkat",                 // 566
    "fhreadlink",               // 567
    "funlinkat",                // 568
    "copy_file_range",          // 569
    "__sysctlbyname",           // 570
    "shm_open2",                // 571
    "shm_rename",               // 572
    "sigfastblock",             // 573
    "__realpathat",             // 574
    "close_range",              // 575
    "rpctls_syscall",           // 576
    "__specialfd",              // 577
    "aio_writev",               // 578
    "aio_readv",                // 579
    "fspacectl",                // 580
    "sched_getcpu",             // 581
    "swapoff",                  // 582
    "kqueuex",                  // 583
    "membarrier",               // 584
    "timerfd_create",           // 585
    "timerfd_gettime",          // 586
    "timerfd_settime",          // 587
    "kcmp",                     // 588
    "getrlimitusage",           // 589
    "fchroot",                  // 590
    "setcred",                  // 591
    "exterrctl",                // 592
    "inotify_add_watch_at",     // 593
    "inotify_rm_watch",         // 594
    "getgroups",                // 595
    "setgroups",                // 596
    "jail_attach_jd",           // 597
    "jail_remove_jd",           // 598
    "kexec_load",               // 599
    "pdrfork",                  // 600
    "pdwait",                   // 601
    "renameat2",                // 602
    "pdopenpid",                // 603
    "pddupfd",                  // 604
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
    ("EROFS", "Read-only filesystem"),                 // 30
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
    ("ECANCELED", "Operation canceled"),               // 85
    ("EILSEQ", "Illegal byte sequence"),               // 86
    ("ENOATTR", "Attribute not found"),                // 87
    ("EDOOFUS", "Programming error"),                  // 88
    ("EBADMSG", "Bad message"),                        // 89
    ("EMULTIHOP", "Multihop attempted"),               // 90
    ("ENOLINK", "Link has been severed"),              // 91
    ("EPROTO", "Protocol error"),                      // 92
    ("ENOTCAPABLE", "Capabilities insufficient"),      // 93
    ("ECAPMODE", "Not permitted in capability mode"),  // 94
    ("ENOTRECOVERABLE", "State not recoverable"),      // 95
    ("EOWNERDEAD", "Previous owner died"),             // 96
    ("EINTEGRITY", "Integrity check failed"),          // 97
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
    "SIGLIBRT",  // 33
];
