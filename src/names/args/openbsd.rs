//! Generated argument constants for the `openbsd` dialect -- do not edit.
//!
//! Upstream inputs:
//! - fcntl.h: github.com/ricardobranco777/OpenBSD-src (a mirror of openbsd/src, 2025) commit 7710b3b4eac62d8c301e368a6818f6997ce1eccc, path sys/sys/fcntl.h (O_*, F_*, FD_CLOEXEC, AT_FDCWD)
//! - mman.h: github.com/openbsd/src commit 02dbcf75add5ac523ea2382ac03d8471abd25fc4, path sys/sys/mman.h (PROT_*, MAP_*; __MAP_NOREPLACE and __MAP_NOFAULT are not MAP_ names and stay numbers)
//! - wait.h: github.com/NCommander/openbsd-src-with-branches commit 13785ae9633fee54678efd85eaf62348b595b02b ($OpenBSD: wait.h,v 1.17 2014/06/13$), path sys/sys/wait.h (WNOHANG, WUNTRACED, WCONTINUED)
//! - signal.h: github.com/openbsd/src commit 00caae4baf9e792d7b51ca1a041f452d045868fc, path sys/sys/signal.h (SIG_BLOCK, SIG_UNBLOCK, SIG_SETMASK)
//! - socket.h: github.com/ricardobranco777/OpenBSD-src commit 7710b3b4eac62d8c301e368a6818f6997ce1eccc, path sys/sys/socket.h (SOCK_*, AF_*, PF_*)
//! - stat.h: github.com/NCommander/openbsd-src-with-branches commit 02d05b6471460b39b0c68dc41c83e7120637a3ef, path sys/sys/stat.h (S_I*)
//! - unistd.h: github.com/NCommander/openbsd-src-with-branches commit 02d05b6471460b39b0c68dc41c83e7120637a3ef, path sys/sys/unistd.h (*_OK, SEEK_*)
//! - Inputs are excerpts holding those headers' #define lines unchanged, in file order. Used for OpenBSD 5.5 and later and for older OpenBSD traces alike (these values did not change at the 5.5 renumbering).
//!
//! Regenerate with:
//!
//! ```text
//! python3 tools/gen_args.py openbsd --fcntl /tmp/upstream/openbsd-args/fcntl.h --mman /tmp/upstream/openbsd-args/mman.h --wait /tmp/upstream/openbsd-args/wait.h --signal /tmp/upstream/openbsd-args/signal.h --socket /tmp/upstream/openbsd-args/socket.h --stat /tmp/upstream/openbsd-args/stat.h --unistd /tmp/upstream/openbsd-args/unistd.h --origin 'fcntl.h: github.com/ricardobranco777/OpenBSD-src (a mirror of openbsd/src, 2025) commit 7710b3b4eac62d8c301e368a6818f6997ce1eccc, path sys/sys/fcntl.h (O_*, F_*, FD_CLOEXEC, AT_FDCWD)' --origin 'mman.h: github.com/openbsd/src commit 02dbcf75add5ac523ea2382ac03d8471abd25fc4, path sys/sys/mman.h (PROT_*, MAP_*; __MAP_NOREPLACE and __MAP_NOFAULT are not MAP_ names and stay numbers)' --origin 'wait.h: github.com/NCommander/openbsd-src-with-branches commit 13785ae9633fee54678efd85eaf62348b595b02b ($OpenBSD: wait.h,v 1.17 2014/06/13$), path sys/sys/wait.h (WNOHANG, WUNTRACED, WCONTINUED)' --origin 'signal.h: github.com/openbsd/src commit 00caae4baf9e792d7b51ca1a041f452d045868fc, path sys/sys/signal.h (SIG_BLOCK, SIG_UNBLOCK, SIG_SETMASK)' --origin 'socket.h: github.com/ricardobranco777/OpenBSD-src commit 7710b3b4eac62d8c301e368a6818f6997ce1eccc, path sys/sys/socket.h (SOCK_*, AF_*, PF_*)' --origin 'stat.h: github.com/NCommander/openbsd-src-with-branches commit 02d05b6471460b39b0c68dc41c83e7120637a3ef, path sys/sys/stat.h (S_I*)' --origin 'unistd.h: github.com/NCommander/openbsd-src-with-branches commit 02d05b6471460b39b0c68dc41c83e7120637a3ef, path sys/sys/unistd.h (*_OK, SEEK_*)' --origin 'Inputs are excerpts holding those headers'"'"' #define lines unchanged, in file order. Used for OpenBSD 5.5 and later and for older OpenBSD traces alike (these values did not change at the 5.5 renumbering).' > src/names/args/openbsd.rs
//! rustfmt src/names/args/openbsd.rs
//! ```

use super::ArgTables;

/// The `openbsd` argument constants.
pub(super) static ARGS: ArgTables = ArgTables {
    open_flags: &[
        ("O_RDONLY", 0),
        ("O_WRONLY", 1),
        ("O_RDWR", 2),
        ("O_ACCMODE", 3),
        ("O_NONBLOCK", 4),
        ("O_APPEND", 8),
        ("O_SHLOCK", 16),
        ("O_EXLOCK", 32),
        ("O_ASYNC", 64),
        ("O_FSYNC", 128),
        ("O_SYNC", 128),
        ("O_NOFOLLOW", 256),
        ("O_CREAT", 512),
        ("O_TRUNC", 1024),
        ("O_EXCL", 2048),
        ("O_NOCTTY", 32768),
        ("O_CLOEXEC", 65536),
        ("O_DIRECTORY", 131072),
        ("O_CLOFORK", 262144),
    ],
    file_modes: &[
        ("S_ISUID", 2048),
        ("S_ISGID", 1024),
        ("S_ISTXT", 512),
        ("S_IRWXU", 448),
        ("S_IRUSR", 256),
        ("S_IWUSR", 128),
        ("S_IXUSR", 64),
        ("S_IRWXG", 56),
        ("S_IRGRP", 32),
        ("S_IWGRP", 16),
        ("S_IXGRP", 8),
        ("S_IRWXO", 7),
        ("S_IROTH", 4),
        ("S_IWOTH", 2),
        ("S_IXOTH", 1),
        ("S_ISVTX", 512),
    ],
    access: &[("F_OK", 0), ("X_OK", 1), ("W_OK", 2), ("R_OK", 4)],
    at_fdcwd: Some(-100),
    mmap_prot: &[
        ("PROT_NONE", 0),
        ("PROT_READ", 1),
        ("PROT_WRITE", 2),
        ("PROT_EXEC", 4),
    ],
    mmap_flags: &[
        ("MAP_SHARED", 1),
        ("MAP_PRIVATE", 2),
        ("MAP_FIXED", 16),
        ("MAP_ANON", 4096),
        ("MAP_STACK", 16384),
        ("MAP_CONCEAL", 32768),
    ],
    map_alignment_shift: None,
    map_aligned: &[],
    fcntl_cmds: &[
        ("F_DUPFD", 0),
        ("F_GETFD", 1),
        ("F_SETFD", 2),
        ("F_GETFL", 3),
        ("F_SETFL", 4),
        ("F_GETOWN", 5),
        ("F_SETOWN", 6),
        ("F_GETLK", 7),
        ("F_SETLK", 8),
        ("F_SETLKW", 9),
        ("F_DUPFD_CLOEXEC", 10),
        ("F_ISATTY", 11),
        ("F_DUPFD_CLOFORK", 12),
    ],
    fd_flags: &[("FD_CLOEXEC", 1)],
    whence: &[("SEEK_SET", 0), ("SEEK_CUR", 1), ("SEEK_END", 2)],
    wait_options: &[("WNOHANG", 1), ("WUNTRACED", 2), ("WCONTINUED", 8)],
    sigprocmask_how: &[("SIG_BLOCK", 1), ("SIG_UNBLOCK", 2), ("SIG_SETMASK", 3)],
    socket_domains: &[
        ("PF_UNSPEC", 0),
        ("PF_LOCAL", 1),
        ("PF_UNIX", 1),
        ("PF_INET", 2),
        ("PF_IMPLINK", 3),
        ("PF_PUP", 4),
        ("PF_CHAOS", 5),
        ("PF_NS", 6),
        ("PF_ISO", 7),
        ("PF_OSI", 7),
        ("PF_ECMA", 8),
        ("PF_DATAKIT", 9),
        ("PF_CCITT", 10),
        ("PF_SNA", 11),
        ("PF_DECnet", 12),
        ("PF_DLI", 13),
        ("PF_LAT", 14),
        ("PF_HYLINK", 15),
        ("PF_APPLETALK", 16),
        ("PF_ROUTE", 17),
        ("PF_LINK", 18),
        ("PF_XTP", 19),
        ("PF_COIP", 20),
        ("PF_CNT", 21),
        ("PF_IPX", 23),
        ("PF_INET6", 24),
        ("PF_RTIP", 22),
        ("PF_PIP", 25),
        ("PF_ISDN", 26),
        ("PF_NATM", 27),
        ("PF_ENCAP", 28),
        ("PF_SIP", 29),
        ("PF_KEY", 30),
        ("PF_BPF", 31),
        ("PF_BLUETOOTH", 32),
        ("PF_MPLS", 33),
        ("PF_PFLOW", 34),
        ("PF_PIPEX", 35),
        ("PF_FRAME", 36),
    ],
    socket_types: &[
        ("SOCK_STREAM", 1),
        ("SOCK_DGRAM", 2),
        ("SOCK_RAW", 3),
        ("SOCK_RDM", 4),
        ("SOCK_SEQPACKET", 5),
    ],
    socket_flags: &[
        ("SOCK_CLOEXEC", 32768),
        ("SOCK_NONBLOCK", 16384),
        ("SOCK_DNS", 4096),
        ("SOCK_CLOFORK", 2048),
    ],
};
