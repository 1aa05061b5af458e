//! The rows the process model emits, and the [`Sink`] that receives them:
//! the contract between model and load. The model decides every id (so
//! rows can reference each other before they are written) and every fact;
//! the sinks store them, adding only what follows from a row and its
//! trace (`trace_id`, path ids, the argument text, `dur`, `nargs`,
//! `arg0`/`arg1`, `errno_name`). Byte strings borrow where they can. The
//! fixed strings some columns hold are the vocabularies of [`super::vocab`].

pub use super::vocab::{Access, End, IssueKind, Resolution, Severity, Unpaired};

/// The tables the rows are written to, in the order a batch writes them,
/// each declared once: its name, where its key comes from, the [`Sink`]
/// method that takes its row, and its columns in the schema's order. A
/// column is a field of the row (`field: Type => "column"`) or a value the
/// sinks derive from the row and its trace (`=> "column" as how`); `as`
/// on a field names how the sinks store it when its type alone does not
/// say (`path`: interned to a `path_id`; `strings`: NUL-separated strings
/// as a JSON array; `blob`; `args`: the argument words as text). Keys
/// are `model(field of IdBase)` (the model gives the ids), `paths` (the
/// encoder's path cache) or `sqlite`.
///
/// Every use of the list is a macro `model_tables!` hands it to, three in
/// all: the row structs, [`Sink`] and [`IdBase`] here; in the sinks' kit,
/// `sink::table::Table` and each row's `sink::table::Row`, the one visitor
/// of its columns both sinks store from; and the spill form of a row the
/// model keeps live (`spilled: yes`). A new column is its line here, its
/// DDL and comment in `schema/` (with a new schema version), and the code
/// that decides its value (for a derived one, its function in
/// `sink::columns::derived`); a type no column has had yet is one more
/// `impl` of `sink::columns::Column`.
macro_rules! model_tables {
    ($then:ident) => {
        $then! {
            /// One process lifetime (a pid reused later is another row).
            #[derive(Debug, Clone, Default, PartialEq, Eq)]
            Process = "process", key: model(process), sink: process, spilled: yes,
            struct ProcessRow {
                /// `process.process_id`.
                id: i64 => "process_id",
                => "trace_id" as trace,
                /// OS pid.
                pid: i64 => "pid",
                /// The forking process's lifetime; `None` for a root.
                parent_id: Option<i64> => "parent_id",
                /// No fork was seen: it was running when tracing began (or its parent is untraced).
                running_at_start: bool => "running_at_start",
                /// Syscall the parent forked it with (`fork`, `vfork`, `rfork`, …).
                fork_syscall: Option<String> => "fork_syscall",
                /// The parent's fork call (`call.call_id`).
                fork_call_id: Option<i64> => "fork_call_id",
                /// Time of the parent's fork RET.
                fork_ts: Option<i64> => "fork_ts",
                /// File offset of the parent's fork RET.
                fork_offset: Option<u64> => "fork_offset",
                /// The parent's image (`exec.exec_id`) current when the fork returned:
                /// the node it hangs under in the process tree.
                parent_exec_id: Option<i64> => "parent_exec_id",
                /// Command name of its first record.
                first_comm: Vec<u8> => "first_comm",
                /// Command name of its last record.
                last_comm: Vec<u8> => "last_comm",
                /// The earliest record time (records are not always in time order).
                first_ts: i64 => "first_ts",
                /// The latest record time.
                last_ts: i64 => "last_ts",
                /// Argument of its `exit` call, when seen.
                exit_status: Option<i64> => "exit_status",
                /// Signal that killed it, when seen.
                exit_signal: Option<i64> => "exit_signal",
                /// Time of the exit call or the fatal signal.
                exit_ts: Option<i64> => "exit_ts",
                /// Its end was seen: an exit call, a fatal signal, a core file, a
                /// FreeBSD PROCDTOR or its parent's wait.
                exit_seen: bool => "exit_seen",
                /// Records that belong to it.
                records: i64 => "records",
                /// Records of it carrying the dropped-events flag.
                dropped_events: i64 => "dropped_events",
                /// Still running when the trace ended in damage (truncated/corrupt).
                cut_by_damage: bool => "cut_by_damage",
                /// Calls it made: its call rows less a child's return.
                calls: i64 => "calls",
                /// Of them, those that failed.
                failed_calls: i64 => "failed_calls",
                /// Its path lookups (namei rows).
                lookups: i64 => "lookups",
                /// Of them, those left relative (base unknown).
                unresolved_lookups: i64 => "unresolved_lookups",
                /// Distinct absolute paths its successful calls looked up.
                files: i64 => "files",
                /// The first record that showed its end (None: still running when the
                /// trace ended).
                end_seen_by: Option<End> => "end_seen_by",
            }

            /// One thread of a process (dialects that record thread ids).
            #[derive(Debug, Clone, PartialEq, Eq)]
            Thread = "thread", key: model(thread), sink: thread,
            struct ThreadRow {
                /// `thread.thread_id`.
                id: i64 => "thread_id",
                /// Owning process.
                process_id: i64 => "process_id",
                /// OS thread / LWP id.
                tid: i64 => "tid",
                /// First record's time.
                first_ts: i64 => "first_ts",
                /// Last record's time.
                last_ts: i64 => "last_ts",
                /// Records of this thread.
                records: i64 => "records",
            }

            /// One program image a process ran, or tried to (failed execs have `success == false`).
            #[derive(Debug, Clone, PartialEq, Eq)]
            Exec = "exec", key: model(exec), sink: exec,
            struct ExecRow<'a> {
                /// `exec.exec_id`.
                id: i64 => "exec_id",
                /// Process.
                process_id: i64 => "process_id",
                /// 0 for the inherited image, then 1, 2, … per exec attempt in order.
                seq: i64 => "seq",
                /// 0 for the inherited image, then 1, 2, … per successful exec; `None`
                /// for a failed exec (not an image).
                image: Option<i64> => "image",
                /// Time: first record for the inherited image, the RET for an exec.
                ts: i64 => "ts",
                /// The execve call (None for the inherited image).
                call_id: Option<i64> => "call_id",
                /// The lowest call id a call of this image can have: the process's
                /// calls from this id up to the next image's belong to it.
                calls_from: i64 => "calls_from",
                /// Program path as passed (first NAMI of the call).
                path: Option<&'a [u8]> => "path_id" as path,
                /// The same, made absolute where possible.
                resolved: Option<&'a [u8]> => "resolved_id" as path,
                /// Command name of the image (after the exec when it succeeded).
                comm: &'a [u8] => "comm",
                /// argv strings, NUL-separated, where the trace holds them.
                argv: Option<&'a [u8]> => "argv" as strings,
                /// Environment strings, NUL-separated, where the trace holds them.
                envp: Option<&'a [u8]> => "envp" as strings,
                /// The exec succeeded (always true for the inherited image).
                success: bool => "success",
                /// Working directory at that moment, when known.
                cwd: Option<&'a [u8]> => "cwd_id" as path,
            }

            /// One system call: its CALL paired with its RET.
            #[derive(Debug, Clone, Copy, PartialEq, Eq)]
            Call = "call", key: model(call), sink: call,
            struct CallRow<'a> {
                /// `call.call_id`.
                id: i64 => "call_id",
                /// Process.
                process_id: i64 => "process_id",
                /// Thread, where the dialect records tids.
                thread_id: Option<i64> => "thread_id",
                /// Syscall number.
                code: i32 => "code",
                /// Syscall name, where the table knows the number.
                syscall: Option<&'static str> => "syscall",
                => "nargs" as nargs,
                /// Argument words (empty for a RET without CALL).
                args: &'a [u64] => "args" as args,
                => "arg0" as arg0,
                => "arg1" as arg1,
                /// CALL time (None for a RET without CALL).
                ts: Option<i64> => "ts",
                /// RET time.
                ret_ts: Option<i64> => "ret_ts",
                => "dur" as dur,
                /// Return value.
                retval: Option<i64> => "retval",
                /// The RET's error field: 0, an errno, -1 ERESTART, -2 EJUSTRETURN.
                error: Option<i32> => "error",
                /// The errno of a failed call (NetBSD's posix_spawn returns it in
                /// `retval` with error 0).
                errno: Option<i64> => "errno",
                => "errno_name" as errno_name,
                /// Whether it succeeded as the program saw it (None without a return).
                success: Option<bool> => "success",
                /// File offset of the CALL record.
                call_offset: Option<u64> => "call_offset",
                /// File offset of the RET record.
                ret_offset: Option<u64> => "ret_offset",
                /// Why it is unpaired, if it is.
                unpaired: Option<Unpaired> => "unpaired",
            }

            /// One path lookup.
            #[derive(Debug, Clone, PartialEq, Eq)]
            Namei = "namei", key: model(namei), sink: namei,
            struct NameiRow<'a> {
                /// `namei.namei_id`.
                id: i64 => "namei_id",
                /// The call it belongs to (None when no call was pending).
                call_id: Option<i64> => "call_id",
                /// Process.
                process_id: i64 => "process_id",
                /// Position within the call: 0 for the first lookup (rename has two).
                seq: i64 => "seq",
                /// Record time.
                ts: i64 => "ts",
                /// File offset of the NAMI record.
                offset: u64 => "offset",
                /// Command name on the NAMI record.
                comm: &'a [u8] => "comm",
                /// Path as recorded (NetBSD's trailing NUL dropped).
                path: &'a [u8] => "path_id" as path,
                /// Lexically normalised absolute path, or the normalised relative path
                /// when the base is unknown.
                resolved: &'a [u8] => "resolved_id" as path,
                /// How it was resolved.
                resolution: Resolution => "resolution",
                /// The image that made the lookup: the process's image current at the
                /// call's CALL (`exec.exec_id`), which the NAMI's comm may not name (on
                /// OpenBSD an exec's ld.so lookup carries the new program's name).
                exec_id: i64 => "exec_id",
                /// The dying process's core file: a NAMI made by no call of its own.
                coredump: bool => "coredump",
                /// What the call did to the path.
                access: Access => "access",
                /// Whether its call succeeded (`call.success`; a core file always
                /// did); `None` when the call never returned.
                success: Option<bool> => "success",
            }

            /// Any other record (signals, I/O, structs, sysctl names, …).
            #[derive(Debug, Clone, PartialEq, Eq)]
            Event = "event", key: model(event), sink: event,
            struct EventRow<'a> {
                /// `event.event_id`.
                id: i64 => "event_id",
                => "trace_id" as trace,
                /// Process (None for OpenBSD START).
                process_id: Option<i64> => "process_id",
                /// Thread.
                thread_id: Option<i64> => "thread_id",
                /// The call pending on that thread, if any.
                call_id: Option<i64> => "call_id",
                /// Record time.
                ts: i64 => "ts",
                /// File offset.
                offset: u64 => "offset",
                /// Type label (GIO, PSIG, STRU, …).
                kind: &'static str => "kind",
                /// GIO/exec fd.
                fd: Option<i64> => "fd",
                /// GIO direction, CSW in/out.
                dir: Option<&'static str> => "dir",
                /// Payload or data length.
                len: Option<i64> => "len",
                /// Faulting address (PFLT), calling address (PINS).
                addr: Option<i64> => "addr",
                /// Signal number.
                signo: Option<i64> => "signo",
                /// Error returned by a pledge or pinsyscall violation.
                error: Option<i64> => "error",
                /// Signal/fault/pledge code, CAP type, PROCCTOR flags, …
                code: Option<i64> => "code",
                /// Struct name, emulation, sysctl MIB, USER label, wait channel.
                name: Option<&'a [u8]> => "name",
                /// Data bytes: struct/USER bytes; GIO data only when asked to keep it.
                data: Option<&'a [u8]> => "data" as blob,
            }

            /// Something the importer noticed.
            #[derive(Debug, Clone, PartialEq, Eq)]
            Issue = "import_issue", key: sqlite, sink: issue,
            struct IssueRow {
                => "trace_id" as trace,
                /// File offset it concerns, when there is one.
                offset: Option<u64> => "offset",
                /// Severity.
                severity: Severity => "severity",
                /// What it is about.
                kind: IssueKind => "kind",
                /// What happened, for people.
                message: String => "message",
                /// Process concerned, if any.
                process_id: Option<i64> => "process_id",
            }

            /// A distinct path: the encoder's, not the model's (it interns the
            /// paths of exec and namei rows and gives the ids).
            #[derive(Debug, Clone, PartialEq, Eq)]
            Path = "path", key: paths,
            struct PathRow<'a> {
                /// `path.path_id`.
                id: i64 => "path_id",
                /// The bytes.
                path: &'a [u8] => "path",
            }

            /// One syscall number over a trace: the sums of the call rows with that
            /// code.
            #[derive(Debug, Clone, Default, PartialEq, Eq)]
            SyscallStat = "syscall_stat", key: sqlite, sink: syscall_stat,
            struct SyscallStatRow {
                => "trace_id" as trace,
                /// Syscall number.
                code: i32 => "code",
                /// Syscall name, where the table knows the number.
                syscall: Option<&'static str> => "syscall",
                /// Calls made: call rows less the children's returns.
                calls: i64 => "calls",
                /// Call rows that are a child's return (`child return`), not
                /// counted in `calls`.
                child_returns: i64 => "child_returns",
                /// Of the calls, those that failed (not success as the program sees it).
                failed: i64 => "failed",
                /// Of them, those without a return.
                no_return: i64 => "no_return",
                /// Of them, those with both halves (a duration).
                timed: i64 => "timed",
                /// Sum of their durations (ns).
                total_dur: i64 => "total_dur",
                /// The longest duration; `None` when no call was timed.
                max_dur: Option<i64> => "max_dur",
            }
        }
    };
}
pub(crate) use model_tables;

/// The row structs, [`Sink`] and [`IdBase`] from [`model_tables!`].
macro_rules! declare_rows {
    ($(
        $(#[$meta:meta])*
        $table:ident = $name:literal, key: $key:ident $(($id:ident))?,
        $(sink: $method:ident,)? $(spilled: $spilled:ident,)?
        struct $row:ident $(<$lt:lifetime>)? {
            $( $( $(#[$doc:meta])* $field:ident: $ty:ty )? => $column:literal $(as $how:ident)?, )*
        }
    )*) => {
        $(
            $(#[$meta])*
            pub struct $row $(<$lt>)? {
                $( $( $(#[$doc])* pub $field: $ty, )? )*
            }
        )*

        /// Receives the model's rows, in an order where every referenced id
        /// has been assigned (not necessarily written) before.
        pub trait Sink {
            /// The sink's error.
            type Error;
            $( sink_method!($name [$($method)?] $row [$($lt)?]); )*
        }

        /// First ids to assign, so a trace appended to a database continues
        /// its ids.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct IdBase {
            $( $(
                #[doc = concat!("Next `", $name, "_id`.")]
                pub $id: i64,
            )? )*
        }
    };
}

/// The [`Sink`] method of a table, if it has one; a row with borrowed
/// bytes is taken for any lifetime.
macro_rules! sink_method {
    ($name:literal [] $($rest:tt)*) => {};
    ($name:literal [$method:ident] $row:ident []) => {
        #[doc = concat!("A `", $name, "` row.")]
        fn $method(&mut self, row: &$row) -> Result<(), Self::Error>;
    };
    ($name:literal [$method:ident] $row:ident [$lt:lifetime]) => {
        #[doc = concat!("A `", $name, "` row.")]
        fn $method(&mut self, row: &$row<'_>) -> Result<(), Self::Error>;
    };
}

model_tables!(declare_rows);

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
    /// Calls made: call rows less the children's returns.
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
