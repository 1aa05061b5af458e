//! What the process model needs to know about a system call, decided by
//! its name (the same on every BSD where the meaning is the same, which
//! keeps one rule per behaviour instead of one per dialect and number).

use crate::names::{by_name, OpenFlags};
use crate::process::rows::Access;

/// The calls that change the process model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Creates a child process; the parent's RET value is its pid.
    Fork,
    /// Creates a child process whose pid the RET does not carry (NetBSD posix_spawn).
    Spawn,
    /// Replaces the program image.
    Exec,
    /// Ends the process; no RET.
    Exit,
    /// Ends the calling thread; no RET.
    ThreadExit,
    /// Sets the cwd to its path.
    Chdir,
    /// Sets the cwd to the directory of fd argument 0.
    Fchdir,
    /// Binds the returned fd to its path.
    Open,
    /// Binds the returned fd to what fd argument 0 is bound to.
    Dup,
    /// Binds fd argument 1 to what fd argument 0 is bound to.
    Dup2,
    /// `fcntl`: F_DUPFD-style commands duplicate.
    Fcntl,
    /// Unbinds fd argument 0.
    Close,
    /// Unbinds every fd from argument 0 up.
    Closefrom,
    /// Reaps a child: a RET value above 0 is the pid whose lifetime ended.
    Wait,
    /// Nothing the model tracks.
    None,
}

impl Effect {
    /// Every effect, in declaration order (`Effect::X as usize` is its index).
    pub const ALL: [Effect; 15] = [
        Effect::Fork,
        Effect::Spawn,
        Effect::Exec,
        Effect::Exit,
        Effect::ThreadExit,
        Effect::Chdir,
        Effect::Fchdir,
        Effect::Open,
        Effect::Dup,
        Effect::Dup2,
        Effect::Fcntl,
        Effect::Close,
        Effect::Closefrom,
        Effect::Wait,
        Effect::None,
    ];
}

/// NetBSD's posix_spawn, whose RET carries an errno, not a pid.
pub const POSIX_SPAWN: &str = "posix_spawn";
/// vfork, whose parent sleeps until the child execs or exits.
pub const VFORK: &str = "vfork";

by_name! {
    /// The effect of the syscall called `name`.
    pub fn effect(name) -> Effect;
    names EFFECT_NAMES;
    "fork" | "vfork" | "rfork" | "pdfork" | "__vfork14" | "__clone" => Effect::Fork,
    "posix_spawn" => Effect::Spawn,
    "execve" | "fexecve" | "__mac_execve" => Effect::Exec,
    "exit" => Effect::Exit,
    "thr_exit" | "_lwp_exit" | "__threxit" => Effect::ThreadExit,
    "chdir" => Effect::Chdir,
    "fchdir" => Effect::Fchdir,
    "open" | "openat" | "creat" => Effect::Open,
    "dup" => Effect::Dup,
    "dup2" | "dup3" => Effect::Dup2,
    "fcntl" => Effect::Fcntl,
    "close" => Effect::Close,
    "closefrom" => Effect::Closefrom,
    "wait4" | "wait6" | "__wait450" | "owait" => Effect::Wait,
    _ => Effect::None,
}

/// Whether a call that returned `error` and `retval` succeeded as the
/// program saw it, and its errno if not. Success is error 0 or EJUSTRETURN
/// (a successful execve on newer kernels), except for NetBSD's posix_spawn:
/// `sys_posix_spawn` does `*retval = error; return 0`, so it always
/// returns error 0 and succeeded only with retval 0 (kern_exec.c).
pub fn outcome(name: Option<&str>, error: i32, retval: i64) -> (bool, Option<i64>) {
    if name == Some(POSIX_SPAWN) && error == 0 {
        return (retval == 0, (retval != 0).then_some(retval));
    }
    let ok = error == 0 || error == crate::record::EJUSTRETURN;
    (ok, (error > 0).then_some(error.into()))
}

/// The return value as the program saw it: -1 for a call that failed with
/// an errno (`error` > 0; the kernel's retval field is then whatever was
/// left in it, often 0), else the recorded value (posix_spawn's errno
/// return included, since the program sees that number).
pub fn seen_retval(error: i32, retval: i64) -> i64 {
    if error > 0 {
        -1
    } else {
        retval
    }
}

by_name! {
    /// For the `seq`-th path looked up by an `*at` call, the index of the
    /// argument holding its directory fd; `None` for calls that resolve
    /// against the cwd.
    pub fn dirfd_arg(name, seq: usize) -> Option<usize>;
    names DIRFD_NAMES;
    "openat" | "faccessat" | "fchmodat" | "fchownat" | "fstatat" | "futimesat" | "mkdirat"
    | "mkfifoat" | "mknodat" | "readlinkat" | "unlinkat" | "utimensat" | "chflagsat"
    | "funlinkat" => (seq == 0).then_some(0),
    "renameat" | "linkat" => (seq < 2).then_some(2 * seq),
    "symlinkat" => (seq == 0).then_some(1),
    _ => None,
}

/// What the `seq`-th lookup of a call named `name` with argument words
/// `args` did to its path, under the system's open flags. An unknown call
/// (no name) is a probe.
pub fn access(name: Option<&str>, seq: usize, args: &[u64], flags: OpenFlags) -> Access {
    match name {
        Some(name) => named_access(name, seq, args, flags),
        None => Access::Probe,
    }
}

by_name! {
    /// [`access`] of a call with a name.
    fn named_access(name, seq: usize, args: &[u64], flags: OpenFlags) -> Access;
    names ACCESS_NAMES;
    "open" | "open_extended" => open_access(args.get(1).copied().unwrap_or(0), flags),
    "openat" => open_access(args.get(2).copied().unwrap_or(0), flags),
    "creat" | "mkdir" | "mkdirat" | "mkfifo" | "mkfifoat" | "mknod" | "mknodat"
    | "__mknod50" | "symlink" | "symlinkat" => Access::Create,
    "link" | "linkat" => {
        if seq == 0 {
            Access::Probe
        } else {
            Access::Create
        }
    },
    "rename" | "renameat" | "renameat2" | "__posix_rename" => {
        if seq == 0 {
            Access::RenameFrom
        } else {
            Access::RenameTo
        }
    },
    "unlink" | "unlinkat" | "funlinkat" | "rmdir" => Access::Delete,
    "execve" | "fexecve" | "__mac_execve" | "posix_spawn" => Access::Exec,
    "truncate" => Access::Write,
    "chmod" | "lchmod" | "fchmodat" | "chown" | "lchown" | "fchownat" | "__posix_chown"
    | "__posix_lchown" | "utimes" | "__utimes50" | "lutimes" | "__lutimes50" | "utimensat"
    | "futimesat" | "chflags" | "lchflags" | "chflagsat" => Access::Attr,
    _ => Access::Probe,
}

by_name! {
    /// Whether a RET of the call named `name` is expected without its
    /// CALL: the tracer's own ktrace (tracing began inside the call) and a
    /// new thread's first record, the RET of the call that created it
    /// (OpenBSD __tfork, FreeBSD thr_new, NetBSD _lwp_create).
    pub fn returns_uncalled(name) -> bool;
    names UNCALLED_RET_NAMES;
    "ktrace" | "__tfork" | "thr_new" | "_lwp_create" => true,
    _ => false,
}

by_name! {
    /// Whether the call named `name` creates a thread, whose first record
    /// is the call's RET in the new thread: a child's return, not a call
    /// the thread made (call.unpaired `child return`).
    pub fn creates_thread(name) -> bool;
    names THREAD_NAMES;
    "__tfork" | "thr_new" | "_lwp_create" => true,
    _ => false,
}

/// An open's access by its flags word: O_CREAT creates; O_WRONLY, O_RDWR
/// or O_TRUNC write; anything else reads.
fn open_access(word: u64, f: OpenFlags) -> Access {
    if word & f.creat != 0 {
        Access::Create
    } else if word & f.accmode == f.wronly || word & f.accmode == f.rdwr || word & f.trunc != 0 {
        Access::Write
    } else {
        Access::Read
    }
}

/// AT_FDCWD on FreeBSD, NetBSD and OpenBSD.
pub const AT_FDCWD: i64 = -100;

/// Signals whose default action ends the process (the classic numbers,
/// shared by the BSDs and Darwin).
pub fn fatal_by_default(signo: i32) -> bool {
    matches!(signo, 1..=15 | 24..=27 | 30 | 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::{FdEffects, Numbering};

    /// Every syscall name the process model decides by.
    #[test]
    fn every_matched_name_is_in_a_table() {
        crate::names::every_name_is_in_a_table(&[
            EFFECT_NAMES,
            DIRFD_NAMES,
            ACCESS_NAMES,
            UNCALLED_RET_NAMES,
            THREAD_NAMES,
            &[POSIX_SPAWN, VFORK],
        ]);
    }

    #[test]
    fn access_follows_the_call_its_flags_and_the_lookup() {
        let f = FdEffects::of(Numbering::FreeBsd).open;
        let open = |flags: u64| access(Some("open"), 0, &[0x1000, flags], f);
        let openat = |flags: u64| access(Some("openat"), 0, &[0xffff_ff9c, 0x1000, flags], f);
        assert_eq!(open(0), Access::Read);
        assert_eq!(open(0x0010_0000), Access::Read, "O_CLOEXEC alone reads");
        assert_eq!(open(0x1), Access::Write, "O_WRONLY");
        assert_eq!(open(0x2), Access::Write, "O_RDWR");
        assert_eq!(open(0x9), Access::Write, "O_WRONLY|O_APPEND");
        assert_eq!(open(0x400), Access::Write, "O_TRUNC");
        assert_eq!(open(0x601), Access::Create, "O_WRONLY|O_CREAT|O_TRUNC");
        assert_eq!(openat(0x200), Access::Create);
        assert_eq!(openat(0x1), Access::Write);
        assert_eq!(openat(0x20000), Access::Read, "O_DIRECTORY");
        assert_eq!(access(Some("rename"), 0, &[], f), Access::RenameFrom);
        assert_eq!(access(Some("rename"), 1, &[], f), Access::RenameTo);
        assert_eq!(access(Some("link"), 0, &[], f), Access::Probe);
        assert_eq!(access(Some("link"), 1, &[], f), Access::Create);
        assert_eq!(access(Some("execve"), 1, &[], f), Access::Exec);
        assert_eq!(access(Some("unlinkat"), 0, &[], f), Access::Delete);
        assert_eq!(access(Some("__stat50"), 0, &[], f), Access::Probe);
        assert_eq!(access(Some("chmod"), 0, &[], f), Access::Attr);
        assert_eq!(access(None, 0, &[], f), Access::Probe);
    }
}
