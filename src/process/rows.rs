//! The rows the process model emits, and the [`Sink`] that receives them:
//! the contract between model and load. The model decides every id (so
//! rows can reference each other before they are written) and every fact;
//! the loader stores them, adding only what follows from a row and its
//! trace (`trace_id`, path ids, the argument text, `dur`, `nargs`,
//! `arg0`/`arg1`, `errno_name`). Byte strings borrow where they can. The
//! fixed strings some columns hold are the vocabularies of [`super::vocab`].

pub use super::vocab::{Access, End, IssueKind, Resolution, Severity, Unpaired};

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
