//! Is a decoded record believable? The decoder frames records exactly as
//! written; this module judges them, so the importer can tell a damaged
//! stretch (a zeroed block decodes as empty records of pid 0 at time 0)
//! from real data, and [`super::Decoder::resync`] can find where real
//! records start again.

use super::abi::{Abi, Family};
use crate::record::{Body, Record};

/// 1980-01-01 in ns: no BSD trace is older.
const MIN_TS: i64 = 315_532_800_000_000_000;
/// 2100-01-01 in ns.
const MAX_TS: i64 = 4_102_444_800_000_000_000;

/// Why `rec` cannot be a real record of `abi`, or `None` if it can.
pub fn implausible(abi: &Abi, rec: &Record<'_>) -> Option<&'static str> {
    if matches!(rec.body, Body::Start) {
        return (rec.pid != -1).then_some("START record with a pid");
    }
    if rec.pid <= 0 || rec.pid > i64::from(i32::MAX) {
        return Some("pid out of range");
    }
    if !(MIN_TS..MAX_TS).contains(&rec.ts) {
        return Some("timestamp outside 1980-2100");
    }
    if let Body::Unknown { typ, .. } = rec.body {
        if typ == 0 || typ > max_type(abi.family) + 16 {
            return Some("record type no system defines");
        }
    }
    None
}

/// Highest record type the family defines.
fn max_type(f: Family) -> u32 {
    match f {
        Family::FreeBsd => 17,
        Family::NetBsd => 15,
        Family::OpenBsd | Family::OpenBsdMid | Family::OpenBsdOld => 13,
        Family::Darwin => 7,
    }
}
