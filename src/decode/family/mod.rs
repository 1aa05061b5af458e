//! One file per system family: its header layouts (data), the rule of
//! each record type it defines (kind and payload length) and the decoding
//! of each payload, side by side. `dialects.rs` dispatches to them; the
//! helpers shared by several families are in `payload.rs`.

pub(crate) mod darwin;
pub(crate) mod freebsd;
pub(crate) mod netbsd;
pub(crate) mod openbsd;
