//! How one argument value is printed, as FreeBSD's kdump.c prints it:
//! a mask is `%#x<A|B>` with `<invalid>N` for bits no name covers, a lone
//! value is its name or `<invalid=%#x>`, a file mode is `%#o<…>`, 0 for an
//! empty mode. Which word of which call gets which printer is
//! `format.rs`'s; the names are the system's tables ([`super::ArgTables`]).

use std::io::Write as _;

use super::format::hexarg;
use super::{value_of, ArgTables, Names};
use crate::names::{self, Numbering};
use crate::text::TextSink as _;

/// The value of `name` in `names`, as the C `int` kdump compares.
pub(super) fn flag_value(names: Names, name: &str) -> Option<u32> {
    value_of(names, name).map(|v| v as u32)
}

/// The names of `names` whose bits are all in `v`, first match first,
/// each clearing its bits; a zero-valued name only for a zero value.
/// Returns the bits no name covered.
pub(super) fn mask_names(
    names: &[(&str, i64)],
    v: u32,
    printed: &mut bool,
    out: &mut Vec<u8>,
) -> u32 {
    let mut rem = v;
    for &(n, bits) in names {
        let bits = bits as u32;
        if bits & rem == bits && (bits != 0 || v == 0) {
            if *printed {
                out.push(b'|');
            }
            out.push_text(n);
            *printed = true;
            rem &= !bits;
        }
    }
    rem
}

/// kdump's `print_mask_arg`: `%#x<A|B>`, then `<invalid>N` if bits remain.
pub(super) fn mask(names: Names, v: i32, out: &mut Vec<u8>) {
    let v = v as u32;
    hexarg(u64::from(v), out);
    out.push(b'<');
    let rem = mask_names(names, v, &mut false, out);
    out.push(b'>');
    if rem != 0 {
        let _ = write!(out, "<invalid>{rem}");
    }
}

/// mmap flags: a mask, then the alignment bits as `MAP_ALIGNED(n)` (or
/// the name the header gives that n), as FreeBSD's sysdecode prints them.
pub(super) fn mmap_flags(t: &ArgTables, v: i32, out: &mut Vec<u8>) {
    let Some(shift) = t.map_alignment_shift.and_then(|s| u32::try_from(s).ok()) else {
        return mask(t.mmap_flags, v, out);
    };
    let v = v as u32;
    let align = v.checked_shr(shift).unwrap_or(0);
    hexarg(u64::from(v), out);
    out.push(b'<');
    let mut printed = false;
    let rem = mask_names(t.mmap_flags, v & !(align << shift), &mut printed, out);
    if align != 0 {
        if printed {
            out.push(b'|');
        }
        match t.map_aligned.iter().find(|&&(_, n)| n == i64::from(align)) {
            Some((name, _)) => out.push_text(name),
            None => {
                let _ = write!(out, "MAP_ALIGNED({align})");
            }
        }
    }
    out.push(b'>');
    if rem != 0 {
        let _ = write!(out, "<invalid>{rem}");
    }
}

/// kdump's `print_mask_arg0`: `0` for zero, else a mask.
pub(super) fn mask0(names: Names, v: i32, out: &mut Vec<u8>) {
    if v == 0 {
        out.push(b'0');
    } else {
        mask(names, v, out);
    }
}

/// kdump's `print_integer_arg`: the value's name, or `<invalid=…>`.
pub(super) fn integer(names: Names, v: i32, decimal: bool, out: &mut Vec<u8>) {
    match names.iter().find(|&&(_, x)| x == i64::from(v)) {
        Some((n, _)) => out.push_text(n),
        None if decimal => {
            let _ = write!(out, "<invalid={v}>");
        }
        None => {
            let _ = write!(out, "<invalid={:#x}>", v as u32);
        }
    }
}

/// `AT_FDCWD`, or the descriptor as a number.
pub(super) fn atfd(t: &ArgTables, v: i32, decimal: bool, out: &mut Vec<u8>) {
    if Some(i64::from(v)) == t.at_fdcwd {
        out.push_text("AT_FDCWD");
    } else if decimal {
        let _ = write!(out, "{v}");
    } else {
        hexarg(u64::from(v as u32), out);
    }
}

/// Open flags: the access mode by value, then the other flags as a mask.
pub(super) fn open_flags(t: &ArgTables, v: i32, out: &mut Vec<u8>) {
    let v = v as u32;
    hexarg(u64::from(v), out);
    out.push(b'<');
    let accmode = flag_value(t.open_flags, "O_ACCMODE").unwrap_or(3);
    let mut printed = false;
    let modes = ["O_RDONLY", "O_WRONLY", "O_RDWR"];
    if let Some(m) = modes
        .iter()
        .find(|m| flag_value(t.open_flags, m) == Some(v & accmode))
    {
        out.push_text(m);
        printed = true;
    }
    let others: Vec<(&str, i64)> = t
        .open_flags
        .iter()
        .filter(|(n, x)| !modes.contains(n) && *n != "O_ACCMODE" && *x != 0)
        .copied()
        .collect();
    let rem = if printed {
        mask_names(&others, v & !accmode, &mut printed, out)
    } else {
        mask_names(&others, v, &mut printed, out)
    };
    out.push(b'>');
    if rem != 0 {
        let _ = write!(out, "<invalid>{rem}");
    }
}

/// kdump's `decode_filemode`: `0`, or `%#o<S_…>`.
pub(super) fn filemode(t: &ArgTables, v: i32, out: &mut Vec<u8>) {
    if v == 0 {
        out.push(b'0');
        return;
    }
    let v = v as u32;
    let _ = write!(out, "0{v:o}<");
    let rem = mask_names(t.file_modes, v, &mut false, out);
    out.push(b'>');
    if rem != 0 {
        let _ = write!(out, "<invalid>{rem}");
    }
}

/// A signal name, or `SIG N`.
pub(super) fn signal(table: Numbering, v: i32, out: &mut Vec<u8>) {
    match names::signal_name(table, v.into()) {
        Some(n) => out.push_text(n),
        None => {
            let _ = write!(out, "SIG {v}");
        }
    }
}

/// Socket type by value, then its flag bits (SOCK_CLOEXEC, …).
pub(super) fn socket_type(t: &ArgTables, v: i32, out: &mut Vec<u8>) {
    let v = v as u32;
    hexarg(u64::from(v), out);
    out.push(b'<');
    let flags: u32 = t
        .socket_flags
        .iter()
        .map(|&(_, b)| b as u32)
        .fold(0, |a, b| a | b);
    let mut printed = false;
    if let Some((n, _)) = t
        .socket_types
        .iter()
        .find(|&&(_, x)| x as u32 == v & !flags)
    {
        out.push_text(n);
        printed = true;
    }
    let rem = mask_names(t.socket_flags, v & flags, &mut printed, out);
    out.push(b'>');
    if !printed || rem != 0 {
        let _ = write!(out, "<invalid>{}", v & !flags | rem);
    }
}
