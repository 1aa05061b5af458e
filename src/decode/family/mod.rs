//! One file per system family: its header layouts (data), where its
//! header keeps a record's version and type (with any flags on it), the
//! rule of each record type it defines (kind and payload length), the
//! decoding of each payload and the signs that a file was read with the
//! wrong dialect, side by side. `dialects.rs` dispatches to them; the
//! helpers shared by several families are in `payload.rs`.

pub(crate) mod darwin;
pub(crate) mod freebsd;
pub(crate) mod netbsd;
pub(crate) mod openbsd;
