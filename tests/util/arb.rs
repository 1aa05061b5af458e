//! Proptest strategies: any body of any family and any record header
//! (the writer and `representable` sort out what a dialect can hold).

use std::borrow::Cow;

use kt2sql::record::{Body, Csw, Gio, IoDir, Psig, Record, Ret, Struct, User, MAX_ARGS};
use proptest::prelude::*;

use super::records::call;

fn arb_bytes(max: usize) -> impl Strategy<Value = Cow<'static, [u8]>> {
    prop::collection::vec(any::<u8>(), 0..max).prop_map(Cow::Owned)
}

/// Any body of any family (the writer and `representable` sort out which
/// family can hold it).
pub fn arb_body() -> impl Strategy<Value = Body<'static>> {
    let arb_call = (
        any::<i32>(),
        prop::collection::vec(any::<u64>(), 0..16),
        arb_bytes(12),
    )
        .prop_map(|(code, words, extra)| {
            let Body::Call(mut c) = call(code, &words) else {
                unreachable!()
            };
            c.nargs = words.len().min(MAX_ARGS) as u16;
            c.extra = extra;
            Body::Call(c)
        });
    let arb_ret = (any::<i32>(), -3i32..100, any::<i64>(), any::<Option<i64>>()).prop_map(
        |(code, error, retval, retval2)| {
            Body::Ret(Ret {
                code,
                error,
                retval,
                retval2,
            })
        },
    );
    prop_oneof![
        Just(Body::Start),
        Just(Body::ProcDtor),
        arb_call,
        arb_ret,
        arb_bytes(40).prop_map(Body::Namei),
        arb_bytes(12).prop_map(Body::Emul),
        (any::<i32>(), -1i32..3, arb_bytes(64)).prop_map(|(fd, d, data)| Body::Gio(Gio {
            fd,
            dir: match d {
                0 => IoDir::Read,
                1 => IoDir::Write,
                x => IoDir::Other(x),
            },
            data,
        })),
        any::<(i32, u64, i32, u32)>().prop_map(|(signo, action, code, mask)| Body::Psig(Psig {
            signo,
            action,
            code,
            mask
        })),
        (any::<(bool, bool)>(), prop::option::of(arb_bytes(10)))
            .prop_map(|((out, user), wmesg)| Body::Csw(Csw { out, user, wmesg })),
        (prop::option::of(arb_bytes(24)), arb_bytes(30))
            .prop_map(|(id, data)| Body::User(User { id, data })),
        (arb_bytes(10), prop::option::of(any::<u64>()), arb_bytes(30)).prop_map(
            |(name, elem_size, data)| Body::Struct(Struct {
                name,
                elem_size,
                data
            })
        ),
        arb_bytes(20).prop_map(Body::Sysctl),
        any::<u32>().prop_map(|sv_flags| Body::ProcCtor { sv_flags }),
        (any::<i32>(), arb_bytes(40)).prop_map(|(cap_type, data)| Body::CapFail { cap_type, data }),
        any::<(u64, i32)>().prop_map(|(vaddr, fault_type)| Body::Fault { vaddr, fault_type }),
        any::<i32>().prop_map(|result| Body::FaultEnd { result }),
        arb_bytes(30).prop_map(Body::ExecArgs),
        arb_bytes(30).prop_map(Body::ExecEnv),
        any::<(i32, u32)>().prop_map(|(fd, dtype)| Body::ExecFd { fd, dtype }),
        prop::collection::vec(any::<i32>(), 0..8).prop_map(Body::Mib),
        any::<(i32, i32, u64)>().prop_map(|(error, syscall, code)| Body::Pledge {
            error,
            syscall,
            code
        }),
        any::<(i32, i32, u64)>().prop_map(|(error, syscall, addr)| Body::PinSyscall {
            error,
            syscall,
            addr
        }),
        (0u32..0x2_0000, arb_bytes(20)).prop_map(|(typ, data)| Body::Unknown { typ, data }),
    ]
}

/// Any record: random header fields (seconds within ±2^31, so every
/// clock field can hold them) and any body.
pub fn arb_record() -> impl Strategy<Value = Record<'static>> {
    (
        (
            0u8..3,
            any::<i32>(),
            prop::option::of(any::<i64>()),
            arb_bytes(26),
        ),
        (
            -(1i64 << 31)..(1i64 << 31),
            0i64..1_000_000_000,
            prop::option::of(any::<i32>()),
            any::<bool>(),
        ),
        arb_body(),
    )
        .prop_map(
            |((version, pid, tid, comm), (sec, ns, cpu, dropped), body)| Record {
                index: 0,
                offset: 0,
                version,
                pid: i64::from(pid),
                tid,
                comm,
                ts: sec * 1_000_000_000 + ns,
                cpu,
                dropped,
                body,
            },
        )
}
