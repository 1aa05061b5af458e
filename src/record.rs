//! The dialect-neutral records: what one ktrace record means, whatever
//! system wrote it. Decode produces these; import and dump consume them.
//! Integers are widened (`i64` pids, tids and return values, `u64` argument
//! words, whatever their [`Width`] in the trace); timestamps are
//! integer nanoseconds since the Unix epoch.
//!
//! Byte strings borrow from the decoder's buffer (`Cow::Borrowed`) so the hot
//! path does not allocate; `Record::into_owned` detaches a record.
//!
//! [`Kind`] is a record's kind without its payload, and the one place the
//! type labels are written: decode's per-family rules map type codes to
//! kinds, and [`Body::label`], dump's output and `dump -t` use its labels.

use std::borrow::Cow;

/// Byte string as recorded (paths and names need not be UTF-8).
pub type Bytes<'a> = Cow<'a, [u8]>;

/// Arguments kept inline in a CALL; a longer argument list keeps the rest
/// in [`Call::extra`].
pub const MAX_ARGS: usize = 12;

/// Size of `register_t`/`long` in the writing kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Width {
    /// ILP32: 4-byte words.
    W32,
    /// LP64: 8-byte words.
    W64,
}

impl Width {
    /// Bytes per word.
    pub fn bytes(self) -> usize {
        match self {
            Width::W32 => 4,
            Width::W64 => 8,
        }
    }
    /// Bits per word.
    pub fn bits(self) -> u32 {
        self.bytes() as u32 * 8
    }
}

/// One decoded record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    /// 0-based position of the record in the file.
    pub index: u64,
    /// Byte offset of the record header in the file.
    pub offset: u64,
    /// Header version of this record (FreeBSD 0/1, NetBSD 0/1/2, else 0).
    pub version: u8,
    /// Process id (OpenBSD START: -1).
    pub pid: i64,
    /// Thread / LWP id, where the header records a real one.
    pub tid: Option<i64>,
    /// Command name, cut at the first NUL (the bytes after it are stale).
    pub comm: Bytes<'a>,
    /// Wall-clock time of the record, ns since the epoch.
    pub ts: i64,
    /// CPU the record was written on (FreeBSD v1 only).
    pub cpu: Option<i32>,
    /// Events of this process were dropped before this record (FreeBSD KTR_DROP).
    pub dropped: bool,
    /// The decoded payload.
    pub body: Body<'a>,
}

/// The payload of a record, by kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body<'a> {
    /// OpenBSD START: a tracing session begins (`STRT`).
    Start,
    /// System call entry (`CALL`).
    Call(Call<'a>),
    /// System call return (`RET`).
    Ret(Ret),
    /// Path looked up by the current call (`NAMI`); NetBSD's trailing NUL dropped.
    Namei(Bytes<'a>),
    /// Emulation name (`EMUL`): `netbsd`, `linux`, …
    Emul(Bytes<'a>),
    /// Data read or written (`GIO`).
    Gio(Gio<'a>),
    /// Signal delivered (`PSIG`).
    Psig(Psig),
    /// Context switch (`CSW`).
    Csw(Csw<'a>),
    /// utrace(2) data (`USER`; NetBSD kdump says `MISC`).
    User(User<'a>),
    /// A struct copied out by the call (`STRU`).
    Struct(Struct<'a>),
    /// sysctl MIB name (`SCTL`), trailing NUL dropped.
    Sysctl(Bytes<'a>),
    /// FreeBSD process constructor: traced from here, or a new image.
    ProcCtor {
        /// `sysentvec` flags; low byte is the ABI (9 = FreeBSD, 3 = Linux).
        sv_flags: u32,
    },
    /// FreeBSD process destructor: the process is gone.
    ProcDtor,
    /// FreeBSD capability failure (`CAP`): type and raw body.
    CapFail {
        /// `cap_type`.
        cap_type: i32,
        /// The rest of the record, undecoded.
        data: Bytes<'a>,
    },
    /// FreeBSD page fault (`PFLT`).
    Fault {
        /// Faulting address.
        vaddr: u64,
        /// VM_PROT bits.
        fault_type: i32,
    },
    /// FreeBSD page fault end (`PRET`).
    FaultEnd {
        /// KERN_* result code.
        result: i32,
    },
    /// exec argv strings, NUL-separated (`ARGS`; NetBSD `ARG`).
    ExecArgs(Bytes<'a>),
    /// exec environment strings, NUL-separated (`ENV`).
    ExecEnv(Bytes<'a>),
    /// NetBSD exec file descriptor (`FD`).
    ExecFd {
        /// Descriptor.
        fd: i32,
        /// DTYPE_*.
        dtype: u32,
    },
    /// NetBSD sysctl MIB (`MIB`).
    Mib(Vec<i32>),
    /// OpenBSD pledge violation (`PLDG`).
    Pledge {
        /// Error returned.
        error: i32,
        /// Syscall that violated.
        syscall: i32,
        /// Promise bit needed.
        code: u64,
    },
    /// OpenBSD pinsyscall violation (`PINS`).
    PinSyscall {
        /// Error returned.
        error: i32,
        /// Syscall.
        syscall: i32,
        /// Calling address.
        addr: u64,
    },
    /// A record type this dialect does not define, or one kt2sql does not
    /// decode (NetBSD MMSG/MOOL/SAU); its bytes kept.
    Unknown {
        /// Type code with flag bits removed.
        typ: u32,
        /// The payload.
        data: Bytes<'a>,
    },
}

/// System call entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call<'a> {
    /// Syscall number.
    pub code: i32,
    /// Number of argument words recorded.
    pub nargs: u16,
    /// The first `min(nargs, MAX_ARGS)` argument words, zero-extended.
    pub args: [u64; MAX_ARGS],
    /// Bytes after the inline arguments: argument words beyond MAX_ARGS,
    /// OpenBSD's appended sysctl MIB, or trailing bytes of an odd length.
    pub extra: Bytes<'a>,
}

impl Call<'_> {
    /// The inline argument words.
    pub fn args(&self) -> &[u64] {
        &self.args[..usize::from(self.nargs).min(MAX_ARGS)]
    }

    /// Argument `i` as a signed int (an fd or AT_FDCWD in a 64-bit slot).
    pub fn int_arg(&self, i: usize) -> Option<i64> {
        self.args().get(i).map(|&w| i64::from(w as u32 as i32))
    }
}

/// System call return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ret {
    /// Syscall number.
    pub code: i32,
    /// Error: 0 success, > 0 errno, -1 ERESTART, -2 EJUSTRETURN.
    pub error: i32,
    /// Return value (0 when the record holds none, e.g. OpenBSD errors).
    pub retval: i64,
    /// NetBSD's second return value.
    pub retval2: Option<i64>,
}

/// How a call returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// error 0.
    Success,
    /// EJUSTRETURN (-2): registers already set (sigreturn, execve on newer kernels).
    JustReturn,
    /// ERESTART (-1): will be restarted; the program never sees it.
    Restart,
    /// A real errno (> 0).
    Errno(i32),
    /// Another negative kernel-internal code.
    Other(i32),
}

/// kernel-internal: restart the call.
pub const ERESTART: i32 = -1;
/// kernel-internal: return without touching registers.
pub const EJUSTRETURN: i32 = -2;

impl Ret {
    /// Classify the error field.
    pub fn outcome(&self) -> Outcome {
        match self.error {
            0 => Outcome::Success,
            EJUSTRETURN => Outcome::JustReturn,
            ERESTART => Outcome::Restart,
            e if e > 0 => Outcome::Errno(e),
            e => Outcome::Other(e),
        }
    }

    /// The errno of a failed call, `None` for success and pseudo-errors.
    pub fn errno(&self) -> Option<i32> {
        (self.error > 0).then_some(self.error)
    }

    /// Success as a user program sees it: error 0 or EJUSTRETURN (a successful
    /// execve on newer kernels, sigreturn).
    pub fn succeeded(&self) -> bool {
        matches!(self.outcome(), Outcome::Success | Outcome::JustReturn)
    }
}

/// Direction of a GIO transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoDir {
    /// UIO_READ.
    Read,
    /// UIO_WRITE.
    Write,
    /// Any other value, kept.
    Other(i32),
}

/// Data read or written by a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gio<'a> {
    /// File descriptor.
    pub fd: i32,
    /// Direction.
    pub dir: IoDir,
    /// Bytes transferred (possibly cut by the kernel's genio size).
    pub data: Bytes<'a>,
}

/// Signal delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Psig {
    /// Signal number.
    pub signo: i32,
    /// Handler: 0 SIG_DFL, 1 SIG_IGN, else the handler address.
    pub action: u64,
    /// si_code.
    pub code: i32,
    /// First word of the blocked mask.
    pub mask: u32,
}

/// Context switch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csw<'a> {
    /// Switched out (true) or back in.
    pub out: bool,
    /// Involuntary / in user mode.
    pub user: bool,
    /// Wait channel name (newer FreeBSD), cut at NUL.
    pub wmesg: Option<Bytes<'a>>,
}

/// utrace(2) record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User<'a> {
    /// Label (OpenBSD/NetBSD `ktr_id`), cut at NUL.
    pub id: Option<Bytes<'a>>,
    /// Data.
    pub data: Bytes<'a>,
}

/// Struct copied out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Struct<'a> {
    /// Struct name (`stat`, `sockaddr`, …).
    pub name: Bytes<'a>,
    /// Element size for FreeBSD STRUCT_ARRAY records.
    pub elem_size: Option<u64>,
    /// The raw struct bytes.
    pub data: Bytes<'a>,
}

fn own(b: &Bytes<'_>) -> Bytes<'static> {
    Cow::Owned(b.to_vec())
}

impl Record<'_> {
    /// A copy that no longer borrows the decoder's buffer.
    pub fn into_owned(self) -> Record<'static> {
        Record {
            index: self.index,
            offset: self.offset,
            version: self.version,
            pid: self.pid,
            tid: self.tid,
            comm: own(&self.comm),
            ts: self.ts,
            cpu: self.cpu,
            dropped: self.dropped,
            body: self.body.into_owned(),
        }
    }
}

impl Body<'_> {
    /// A copy that no longer borrows the decoder's buffer.
    pub fn into_owned(self) -> Body<'static> {
        match self {
            Body::Start => Body::Start,
            Body::Call(c) => Body::Call(Call {
                code: c.code,
                nargs: c.nargs,
                args: c.args,
                extra: own(&c.extra),
            }),
            Body::Ret(r) => Body::Ret(r),
            Body::Namei(p) => Body::Namei(own(&p)),
            Body::Emul(p) => Body::Emul(own(&p)),
            Body::Gio(g) => Body::Gio(Gio {
                fd: g.fd,
                dir: g.dir,
                data: own(&g.data),
            }),
            Body::Psig(p) => Body::Psig(p),
            Body::Csw(c) => Body::Csw(Csw {
                out: c.out,
                user: c.user,
                wmesg: c.wmesg.as_ref().map(own),
            }),
            Body::User(u) => Body::User(User {
                id: u.id.as_ref().map(own),
                data: own(&u.data),
            }),
            Body::Struct(s) => Body::Struct(Struct {
                name: own(&s.name),
                elem_size: s.elem_size,
                data: own(&s.data),
            }),
            Body::Sysctl(p) => Body::Sysctl(own(&p)),
            Body::ProcCtor { sv_flags } => Body::ProcCtor { sv_flags },
            Body::ProcDtor => Body::ProcDtor,
            Body::CapFail { cap_type, data } => Body::CapFail {
                cap_type,
                data: own(&data),
            },
            Body::Fault { vaddr, fault_type } => Body::Fault { vaddr, fault_type },
            Body::FaultEnd { result } => Body::FaultEnd { result },
            Body::ExecArgs(p) => Body::ExecArgs(own(&p)),
            Body::ExecEnv(p) => Body::ExecEnv(own(&p)),
            Body::ExecFd { fd, dtype } => Body::ExecFd { fd, dtype },
            Body::Mib(m) => Body::Mib(m),
            Body::Pledge {
                error,
                syscall,
                code,
            } => Body::Pledge {
                error,
                syscall,
                code,
            },
            Body::PinSyscall {
                error,
                syscall,
                addr,
            } => Body::PinSyscall {
                error,
                syscall,
                addr,
            },
            Body::Unknown { typ, data } => Body::Unknown {
                typ,
                data: own(&data),
            },
        }
    }

    /// The record's kind.
    #[inline]
    pub fn kind(&self) -> Kind {
        match self {
            Body::Start => Kind::Start,
            Body::Call(_) => Kind::Call,
            Body::Ret(_) => Kind::Ret,
            Body::Namei(_) => Kind::Namei,
            Body::Emul(_) => Kind::Emul,
            Body::Gio(_) => Kind::Gio,
            Body::Psig(_) => Kind::Psig,
            Body::Csw(_) => Kind::Csw,
            Body::User(_) => Kind::User,
            Body::Struct(_) => Kind::Struct,
            Body::Sysctl(_) => Kind::Sysctl,
            Body::ProcCtor { .. } => Kind::ProcCtor,
            Body::ProcDtor => Kind::ProcDtor,
            Body::CapFail { .. } => Kind::CapFail,
            Body::Fault { .. } => Kind::Fault,
            Body::FaultEnd { .. } => Kind::FaultEnd,
            Body::ExecArgs(_) => Kind::ExecArgs,
            Body::ExecEnv(_) => Kind::ExecEnv,
            Body::ExecFd { .. } => Kind::ExecFd,
            Body::Mib(_) => Kind::Mib,
            Body::Pledge { .. } => Kind::Pledge,
            Body::PinSyscall { .. } => Kind::PinSyscall,
            Body::Unknown { .. } => Kind::Unknown,
        }
    }

    /// The record's type label: [`Kind::label`] of its kind.
    #[inline]
    pub fn label(&self) -> &'static str {
        self.kind().label()
    }
}

/// What kind of record a [`Body`] is, without its payload: what each
/// family's record rules map a type code to (`decode/family/`), what
/// [`Body::label`] names and what `dump -t` selects. The labels are
/// written here and nowhere else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// [`Body::Start`].
    Start,
    /// [`Body::Call`].
    Call,
    /// [`Body::Ret`].
    Ret,
    /// [`Body::Namei`].
    Namei,
    /// [`Body::Emul`].
    Emul,
    /// [`Body::Gio`].
    Gio,
    /// [`Body::Psig`].
    Psig,
    /// [`Body::Csw`].
    Csw,
    /// [`Body::User`].
    User,
    /// [`Body::Struct`].
    Struct,
    /// [`Body::Sysctl`].
    Sysctl,
    /// [`Body::ProcCtor`].
    ProcCtor,
    /// [`Body::ProcDtor`].
    ProcDtor,
    /// [`Body::CapFail`].
    CapFail,
    /// [`Body::Fault`].
    Fault,
    /// [`Body::FaultEnd`].
    FaultEnd,
    /// [`Body::ExecArgs`].
    ExecArgs,
    /// [`Body::ExecEnv`].
    ExecEnv,
    /// [`Body::ExecFd`].
    ExecFd,
    /// [`Body::Mib`].
    Mib,
    /// [`Body::Pledge`].
    Pledge,
    /// [`Body::PinSyscall`].
    PinSyscall,
    /// [`Body::Unknown`].
    Unknown,
}

impl Kind {
    /// Every kind, in declaration order (`Kind::X as usize` is its index).
    pub const ALL: [Kind; 23] = [
        Kind::Start,
        Kind::Call,
        Kind::Ret,
        Kind::Namei,
        Kind::Emul,
        Kind::Gio,
        Kind::Psig,
        Kind::Csw,
        Kind::User,
        Kind::Struct,
        Kind::Sysctl,
        Kind::ProcCtor,
        Kind::ProcDtor,
        Kind::CapFail,
        Kind::Fault,
        Kind::FaultEnd,
        Kind::ExecArgs,
        Kind::ExecEnv,
        Kind::ExecFd,
        Kind::Mib,
        Kind::Pledge,
        Kind::PinSyscall,
        Kind::Unknown,
    ];

    /// The type label, as kdump prints it where kdump prints it (one label
    /// per kind across dialects: NetBSD kdump's `MISC` is `USER`, its
    /// `ARG` is `ARGS`; PROCCTOR/PROCDTOR, which kdump hides, by their
    /// kernel names).
    pub const fn label(self) -> &'static str {
        match self {
            Kind::Start => "STRT",
            Kind::Call => "CALL",
            Kind::Ret => "RET",
            Kind::Namei => "NAMI",
            Kind::Emul => "EMUL",
            Kind::Gio => "GIO",
            Kind::Psig => "PSIG",
            Kind::Csw => "CSW",
            Kind::User => "USER",
            Kind::Struct => "STRU",
            Kind::Sysctl => "SCTL",
            Kind::ProcCtor => "PROCCTOR",
            Kind::ProcDtor => "PROCDTOR",
            Kind::CapFail => "CAP",
            Kind::Fault => "PFLT",
            Kind::FaultEnd => "PRET",
            Kind::ExecArgs => "ARGS",
            Kind::ExecEnv => "ENV",
            Kind::ExecFd => "FD",
            Kind::Mib => "MIB",
            Kind::Pledge => "PLDG",
            Kind::PinSyscall => "PINS",
            Kind::Unknown => "UNKNOWN",
        }
    }

    /// Every label, in the order of [`Kind::ALL`].
    pub const LABELS: [&'static str; 23] = {
        let mut out = [""; 23];
        let mut i = 0;
        while i < out.len() {
            out[i] = Kind::ALL[i].label();
            i += 1;
        }
        out
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_listed_once_in_order() {
        for (i, k) in Kind::ALL.into_iter().enumerate() {
            assert_eq!(k as usize, i, "{k:?}");
        }
        assert_eq!(Kind::LABELS[Kind::User as usize], "USER");
    }
}
