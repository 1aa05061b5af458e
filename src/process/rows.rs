//! The rows the process model emits, and the [`Sink`] that receives them.
//! This is the contract between model and load: the model decides every id
//! (so rows can reference each other before they are written) and every
//! value; the loader only stores them. Byte strings borrow where they can.

/// Severity of an import issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Worth knowing; nothing lost.
    Info,
    /// A guess was made (ambiguous pairing, unknown parent).
    Warning,
    /// Records or bytes could not be used.
    DataLoss,
}

impl Severity {
    /// The name stored in `import_issue.severity`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::DataLoss => "data_loss",
        }
    }
}

/// How a looked-up path was made absolute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// The path was absolute already.
    Absolute,
    /// Relative to the process's working directory.
    Cwd,
    /// Relative to the directory an `*at` call's fd argument was opened on.
    Dirfd,
    /// Relative, and its base is not known: left relative.
    Unknown,
}

impl Resolution {
    /// The name stored in `namei.resolution`.
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::Absolute => "absolute",
            Resolution::Cwd => "cwd",
            Resolution::Dirfd => "dirfd",
            Resolution::Unknown => "unknown base",
        }
    }
}

/// What a lookup's call did to the path (`namei.access`), decided from the
/// call, its flags and the lookup's position (`syscall::access`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Opened for reading only (a directory too).
    Read,
    /// Opened for writing (O_WRONLY, O_RDWR or O_TRUNC) without O_CREAT,
    /// or truncated.
    Write,
    /// Created, or opened with O_CREAT: creat, mkdir, mkfifo, mknod,
    /// symlink's and link's new name, a dying process's core file.
    Create,
    /// Removed: unlink, rmdir.
    Delete,
    /// The source (first lookup) of a rename.
    RenameFrom,
    /// The target (second lookup) of a rename.
    RenameTo,
    /// The program and runtime-linker lookups of an exec or posix_spawn.
    Exec,
    /// The file's attributes changed, not its contents: chmod, chown,
    /// utimes, chflags, ….
    Attr,
    /// Looked at, not opened: stat, access, readlink, chdir, pathconf,
    /// link's existing name, and any call not named above.
    Probe,
}

impl Access {
    /// The name stored in `namei.access`.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::Create => "create",
            Access::Delete => "delete",
            Access::RenameFrom => "rename-from",
            Access::RenameTo => "rename-to",
            Access::Exec => "exec",
            Access::Attr => "attr",
            Access::Probe => "probe",
        }
    }
}

/// What showed that a process lifetime ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Its `exit` call.
    Exit,
    /// A PSIG of a signal whose default action kills, with SIG_DFL.
    Signal,
    /// The core file it looked up as it died (a NAMI made by no call).
    Core,
    /// FreeBSD's PROCDTOR (written whatever `ktrace -t` says).
    Procdtor,
    /// Its parent's `wait4`/`wait6` RET returned its pid: nothing of its own
    /// showed the end (`ktrace -t cn` records no PSIG).
    Wait,
}

impl End {
    /// Every end, in declaration order (`End::X as usize` is its index).
    pub const ALL: [End; 5] = [End::Exit, End::Signal, End::Core, End::Procdtor, End::Wait];

    /// The name stored in `process.end_seen_by`.
    pub fn as_str(self) -> &'static str {
        match self {
            End::Exit => "exit",
            End::Signal => "signal",
            End::Core => "core",
            End::Procdtor => "procdtor",
            End::Wait => "wait",
        }
    }
}

/// One process lifetime (a pid reused later is another row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessRow {
    /// `process.process_id`.
    pub id: i64,
    /// OS pid.
    pub pid: i64,
    /// The forking process's lifetime; `None` for a root.
    pub parent_id: Option<i64>,
    /// No fork was seen: it was running when tracing began (or its parent is untraced).
    pub running_at_start: bool,
    /// Syscall the parent forked it with (`fork`, `vfork`, `rfork`, …).
    pub fork_syscall: Option<String>,
    /// The parent's fork call (`call.call_id`).
    pub fork_call_id: Option<i64>,
    /// Time of the parent's fork RET.
    pub fork_ts: Option<i64>,
    /// File offset of the parent's fork RET.
    pub fork_offset: Option<u64>,
    /// The parent's image (`exec.exec_id`) current when the fork returned:
    /// the node it hangs under in the process tree.
    pub parent_exec_id: Option<i64>,
    /// Command name of its first record.
    pub first_comm: Vec<u8>,
    /// Command name of its last record.
    pub last_comm: Vec<u8>,
    /// The earliest record time (records are not always in time order).
    pub first_ts: i64,
    /// The latest record time.
    pub last_ts: i64,
    /// Argument of its `exit` call, when seen.
    pub exit_status: Option<i64>,
    /// Signal that killed it, when seen.
    pub exit_signal: Option<i64>,
    /// Time of the exit call or the fatal signal.
    pub exit_ts: Option<i64>,
    /// Its end was seen: an exit call, a fatal signal, a core file, a
    /// FreeBSD PROCDTOR or its parent's wait.
    pub exit_seen: bool,
    /// The first record that showed its end (None: still running when the
    /// trace ended).
    pub end_seen_by: Option<End>,
    /// Records that belong to it.
    pub records: i64,
    /// Records of it carrying the dropped-events flag.
    pub dropped_events: i64,
    /// Still running when the trace ended in damage (truncated/corrupt).
    pub cut_by_damage: bool,
    /// Its call rows.
    pub calls: i64,
    /// Of them, those that failed.
    pub failed_calls: i64,
    /// Its path lookups (namei rows).
    pub lookups: i64,
    /// Of them, those left relative (base unknown).
    pub unresolved_lookups: i64,
    /// Distinct absolute paths its successful calls looked up.
    pub files: i64,
}

/// One thread of a process (dialects that record thread ids).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadRow {
    /// `thread.thread_id`.
    pub id: i64,
    /// Owning process.
    pub process_id: i64,
    /// OS thread / LWP id.
    pub tid: i64,
    /// First record's time.
    pub first_ts: i64,
    /// Last record's time.
    pub last_ts: i64,
    /// Records of this thread.
    pub records: i64,
}

/// One program image a process ran, or tried to (failed execs have `success == false`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecRow<'a> {
    /// `exec.exec_id`.
    pub id: i64,
    /// Process.
    pub process_id: i64,
    /// 0 for the inherited image, then 1, 2, … per exec attempt in order.
    pub seq: i64,
    /// 0 for the inherited image, then 1, 2, … per successful exec; `None`
    /// for a failed exec (not an image).
    pub image: Option<i64>,
    /// Time: first record for the inherited image, the RET for an exec.
    pub ts: i64,
    /// The execve call (None for the inherited image).
    pub call_id: Option<i64>,
    /// Program path as passed (first NAMI of the call).
    pub path: Option<&'a [u8]>,
    /// The same, made absolute where possible.
    pub resolved: Option<&'a [u8]>,
    /// Command name of the image (after the exec when it succeeded).
    pub comm: &'a [u8],
    /// argv strings, NUL-separated, where the trace holds them.
    pub argv: Option<&'a [u8]>,
    /// Environment strings, NUL-separated, where the trace holds them.
    pub envp: Option<&'a [u8]>,
    /// The exec succeeded (always true for the inherited image).
    pub success: bool,
    /// Working directory at that moment, when known.
    pub cwd: Option<&'a [u8]>,
}

/// Why a call row has no return, or no call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unpaired {
    /// `exit`: never returns.
    Exit,
    /// A thread-exit call.
    ThreadExit,
    /// Another thread's exec replaced the image, or the process died.
    ProcessGone,
    /// A later CALL on the same thread came first (the RET was lost).
    Superseded,
    /// The trace ended first.
    EndOfTrace,
    /// A RET whose CALL is not in the trace (a forked child's first RET,
    /// the tracer's own ktrace RET).
    NoCall,
    /// Mac OS X vfork: the child's execve has no RET of its own; the
    /// parent's `RET execve <child>` ended it (its time and offset are used).
    VforkParent,
}

impl Unpaired {
    /// The name stored in `call.unpaired`.
    pub fn as_str(self) -> &'static str {
        match self {
            Unpaired::Exit => "exit",
            Unpaired::ThreadExit => "thread exit",
            Unpaired::ProcessGone => "process gone",
            Unpaired::Superseded => "superseded",
            Unpaired::EndOfTrace => "end of trace",
            Unpaired::NoCall => "no call",
            Unpaired::VforkParent => "returned in vfork parent",
        }
    }
}

/// One system call: its CALL paired with its RET.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRow<'a> {
    /// `call.call_id`.
    pub id: i64,
    /// Process.
    pub process_id: i64,
    /// Thread, where the dialect records tids.
    pub thread_id: Option<i64>,
    /// Syscall number.
    pub code: i32,
    /// Syscall name, where the table knows the number.
    pub syscall: Option<&'static str>,
    /// Argument words (empty for a RET without CALL).
    pub args: &'a [u64],
    /// CALL time (None for a RET without CALL).
    pub ts: Option<i64>,
    /// RET time.
    pub ret_ts: Option<i64>,
    /// Return value.
    pub retval: Option<i64>,
    /// The RET's error field: 0, an errno, -1 ERESTART, -2 EJUSTRETURN.
    pub error: Option<i32>,
    /// Whether it succeeded as the program saw it (None without a return).
    pub success: Option<bool>,
    /// The errno of a failed call (NetBSD's posix_spawn returns it in
    /// `retval` with error 0).
    pub errno: Option<i64>,
    /// File offset of the CALL record.
    pub call_offset: Option<u64>,
    /// File offset of the RET record.
    pub ret_offset: Option<u64>,
    /// Why it is unpaired, if it is.
    pub unpaired: Option<Unpaired>,
}

/// One path lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameiRow<'a> {
    /// `namei.namei_id`.
    pub id: i64,
    /// The call it belongs to (None when no call was pending).
    pub call_id: Option<i64>,
    /// Process.
    pub process_id: i64,
    /// Position within the call: 0 for the first lookup (rename has two).
    pub seq: i64,
    /// Record time.
    pub ts: i64,
    /// File offset of the NAMI record.
    pub offset: u64,
    /// Command name on the NAMI record.
    pub comm: &'a [u8],
    /// The image that made the lookup: the process's image current at the
    /// call's CALL (`exec.exec_id`), which the NAMI's comm may not name (on
    /// OpenBSD an exec's ld.so lookup carries the new program's name).
    pub exec_id: i64,
    /// The dying process's core file: a NAMI made by no call of its own.
    pub coredump: bool,
    /// Path as recorded (NetBSD's trailing NUL dropped).
    pub path: &'a [u8],
    /// Lexically normalised absolute path, or the normalised relative path
    /// when the base is unknown.
    pub resolved: &'a [u8],
    /// How it was resolved.
    pub resolution: Resolution,
    /// What the call did to the path.
    pub access: Access,
}

/// One syscall number over a trace: the sums of the call rows with that
/// code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyscallStatRow {
    /// Syscall number.
    pub code: i32,
    /// Syscall name, where the table knows the number.
    pub syscall: Option<&'static str>,
    /// Call rows.
    pub calls: i64,
    /// Of them, those that failed (not success as the program sees it).
    pub failed: i64,
    /// Of them, those without a return.
    pub no_return: i64,
    /// Of them, those with both halves (a duration).
    pub timed: i64,
    /// Sum of their durations (ns).
    pub total_dur: i64,
    /// The longest duration; `None` when no call was timed.
    pub max_dur: Option<i64>,
}

/// Any other record (signals, I/O, structs, sysctl names, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow<'a> {
    /// `event.event_id`.
    pub id: i64,
    /// Process (None for OpenBSD START).
    pub process_id: Option<i64>,
    /// Thread.
    pub thread_id: Option<i64>,
    /// The call pending on that thread, if any.
    pub call_id: Option<i64>,
    /// Record time.
    pub ts: i64,
    /// File offset.
    pub offset: u64,
    /// Type label (GIO, PSIG, STRU, …).
    pub kind: &'static str,
    /// GIO/exec fd.
    pub fd: Option<i64>,
    /// GIO direction, CSW in/out.
    pub dir: Option<&'static str>,
    /// Payload or data length.
    pub len: Option<i64>,
    /// Faulting address (PFLT), calling address (PINS).
    pub addr: Option<i64>,
    /// Signal number.
    pub signo: Option<i64>,
    /// Error returned by a pledge or pinsyscall violation.
    pub error: Option<i64>,
    /// Signal/fault/pledge code, CAP type, PROCCTOR flags, …
    pub code: Option<i64>,
    /// Struct name, emulation, sysctl MIB, USER label, wait channel.
    pub name: Option<&'a [u8]>,
    /// Data bytes: struct/USER bytes; GIO data only when asked to keep it.
    pub data: Option<&'a [u8]>,
}

/// What an import issue is about. Every kind the importer writes is here,
/// and the schema's comment on `import_issue.kind` lists exactly these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IssueKind {
    /// The file holds no records.
    Empty,
    /// Bytes in the middle could not be decoded and were skipped.
    Skipped,
    /// Decoding stopped before the end of the file.
    Truncated,
    /// The kernel flagged lost records (FreeBSD KTR_DROP).
    DroppedEvents,
    /// A thread's next CALL came before this call's RET.
    SupersededCall,
    /// Two same-numbered calls outstanding without thread ids.
    AmbiguousPairing,
    /// A RET whose CALL is not in the trace (and is not expected to be).
    ReturnWithoutCall,
    /// A pid appeared that no fork, spawn or wait in the trace claimed.
    UnknownParent,
    /// A pid was forked again before its previous lifetime was seen to end.
    PidReused,
    /// A fork edge whose fork RET is missing, inferred from the parent's
    /// wait RET returning the child.
    ForkInferred,
    /// A child's parent, guessed at a posix_spawn, corrected by the wait RET
    /// that reaped it.
    ParentCorrected,
    /// An exec whose RET is missing, inferred from the new image's records.
    ExecInferred,
    /// A process's end inferred from its parent's wait RET.
    EndInferred,
    /// The temporary file idle live processes are spilled to failed.
    SpillFailed,
    /// Lookups left relative: the base directory was unknown (one issue
    /// per trace, with the count).
    UnresolvedLookups,
}

impl IssueKind {
    /// Every kind, in the order the schema lists them.
    pub const ALL: [IssueKind; 15] = [
        IssueKind::Empty,
        IssueKind::Skipped,
        IssueKind::Truncated,
        IssueKind::DroppedEvents,
        IssueKind::SupersededCall,
        IssueKind::AmbiguousPairing,
        IssueKind::ReturnWithoutCall,
        IssueKind::UnknownParent,
        IssueKind::PidReused,
        IssueKind::ForkInferred,
        IssueKind::ParentCorrected,
        IssueKind::ExecInferred,
        IssueKind::EndInferred,
        IssueKind::SpillFailed,
        IssueKind::UnresolvedLookups,
    ];

    /// The name stored in `import_issue.kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueKind::Empty => "empty",
            IssueKind::Skipped => "skipped",
            IssueKind::Truncated => "truncated",
            IssueKind::DroppedEvents => "dropped-events",
            IssueKind::SupersededCall => "superseded-call",
            IssueKind::AmbiguousPairing => "ambiguous-pairing",
            IssueKind::ReturnWithoutCall => "return-without-call",
            IssueKind::UnknownParent => "unknown-parent",
            IssueKind::PidReused => "pid-reused",
            IssueKind::ForkInferred => "fork-inferred",
            IssueKind::ParentCorrected => "parent-corrected",
            IssueKind::ExecInferred => "exec-inferred",
            IssueKind::EndInferred => "end-inferred",
            IssueKind::SpillFailed => "spill-failed",
            IssueKind::UnresolvedLookups => "unresolved-lookups",
        }
    }
}

/// Something the importer noticed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueRow {
    /// File offset it concerns, when there is one.
    pub offset: Option<u64>,
    /// Severity.
    pub severity: Severity,
    /// What it is about.
    pub kind: IssueKind,
    /// What happened, for people.
    pub message: String,
    /// Process concerned, if any.
    pub process_id: Option<i64>,
}

/// Receives the model's rows, in an order where every referenced id has
/// been assigned (not necessarily written) before.
pub trait Sink {
    /// The sink's error.
    type Error;
    /// A finished process lifetime.
    fn process(&mut self, row: &ProcessRow) -> Result<(), Self::Error>;
    /// A finished thread.
    fn thread(&mut self, row: &ThreadRow) -> Result<(), Self::Error>;
    /// An exec attempt or inherited image.
    fn exec(&mut self, row: &ExecRow<'_>) -> Result<(), Self::Error>;
    /// A finished (or abandoned) call.
    fn call(&mut self, row: &CallRow<'_>) -> Result<(), Self::Error>;
    /// A path lookup.
    fn namei(&mut self, row: &NameiRow<'_>) -> Result<(), Self::Error>;
    /// Any other record.
    fn event(&mut self, row: &EventRow<'_>) -> Result<(), Self::Error>;
    /// An import issue.
    fn issue(&mut self, row: &IssueRow) -> Result<(), Self::Error>;
    /// One syscall's totals over the trace (written at its end).
    fn syscall_stat(&mut self, row: &SyscallStatRow) -> Result<(), Self::Error>;
}

/// First ids to assign, so a trace appended to a database continues its ids.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IdBase {
    /// Next `process_id`.
    pub process: i64,
    /// Next `thread_id`.
    pub thread: i64,
    /// Next `exec_id`.
    pub exec: i64,
    /// Next `call_id`.
    pub call: i64,
    /// Next `namei_id`.
    pub namei: i64,
    /// Next `event_id`.
    pub event: i64,
}

/// What the model counted, for the `trace` row and the summary line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    /// Records by type label.
    pub by_type: std::collections::BTreeMap<&'static str, i64>,
    /// All records.
    pub records: i64,
    /// Process lifetimes.
    pub processes: i64,
    /// Threads.
    pub threads: i64,
    /// Call rows.
    pub calls: i64,
    /// namei rows.
    pub namei: i64,
    /// Of them, those left relative (resolution `unknown base`).
    pub unresolved: i64,
    /// exec rows.
    pub execs: i64,
    /// event rows.
    pub events: i64,
    /// import issues.
    pub issues: i64,
    /// Records with the dropped-events flag.
    pub dropped: i64,
    /// Distinct absolute paths successful calls looked up.
    pub files: i64,
    /// First record's time.
    pub first_ts: Option<i64>,
    /// Last record's time.
    pub last_ts: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::IssueKind;

    /// The schema's comment on `import_issue.kind` names exactly the kinds
    /// the importer writes.
    #[test]
    fn the_schema_lists_every_issue_kind() {
        let schema = include_str!("../../schema/0001_tables.sql");
        let table = &schema[schema.find("CREATE TABLE import_issue").unwrap()..];
        let comment: String = table[..table.find("kind TEXT").unwrap()]
            .lines()
            .rev()
            .skip(1)
            .take_while(|l| l.trim_start().starts_with("--"))
            .collect();
        let named: std::collections::BTreeSet<&str> =
            comment.split('`').skip(1).step_by(2).collect();
        let kinds: std::collections::BTreeSet<&str> =
            IssueKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(named, kinds);
    }
}
