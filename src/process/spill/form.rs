//! The byte form of a live process: what a record of the [`SpillFile`]
//! holds (issue #12: millions of processes that never exit). A [`Packer`]
//! appends values, an [`Unpacker`] reads them back. Numbers are LEB128 varints (signed ones
//! zigzagged); `&'static str`s (syscall names) are numbered in a table kept
//! in memory, so they come back as the same static strings. Only this
//! process reads what it wrote: the form has no version and no stability.
//!
//! Each struct's fields are listed once, in [`spill_struct!`], which both
//! destructures (so a field added to a struct and not listed here fails to
//! compile) and rebuilds it; a row's list is its table's declaration.

use std::hash::Hash;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

#[cfg(doc)]
use super::SpillFile;
use crate::process::rows::{model_tables, Access, End, ProcessRow, Resolution};
use crate::process::state::{AwaitingExec, HeldLookup, Pending, Proc, Thread};
use crate::process::syscall::Effect;

/// The `&'static str`s seen so far, numbered.
#[derive(Default)]
pub struct Statics {
    index: HashMap<&'static str, u32>,
    strs: Vec<&'static str>,
}

/// Appends values to a buffer.
pub struct Packer<'a> {
    /// The bytes written.
    pub buf: &'a mut Vec<u8>,
    /// Numbers of the static strings.
    pub statics: &'a mut Statics,
}

/// Reads values back from a buffer.
pub struct Unpacker<'a> {
    /// The bytes not read yet.
    pub buf: &'a [u8],
    /// Numbers of the static strings.
    pub statics: &'a Statics,
}

impl Packer<'_> {
    fn uint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }
}

impl Unpacker<'_> {
    fn uint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self.buf.split_first()?;
            self.buf = rest;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }
}

/// A value that can be written to and read back from the spill file.
pub trait Spill: Sized {
    /// Append `self`.
    fn put(&self, w: &mut Packer<'_>);
    /// Read one back; `None` if the bytes are not what `put` wrote.
    fn take(r: &mut Unpacker<'_>) -> Option<Self>;
}

macro_rules! spill_uint {
    ($($t:ty),*) => {$(
        impl Spill for $t {
            fn put(&self, w: &mut Packer<'_>) {
                w.uint(*self as u64);
            }
            fn take(r: &mut Unpacker<'_>) -> Option<Self> {
                <$t>::try_from(r.uint()?).ok()
            }
        }
    )*};
}
spill_uint!(u8, u32, u64, usize);

macro_rules! spill_int {
    ($($t:ty),*) => {$(
        impl Spill for $t {
            fn put(&self, w: &mut Packer<'_>) {
                let v = i64::from(*self);
                w.uint(((v << 1) ^ (v >> 63)) as u64);
            }
            fn take(r: &mut Unpacker<'_>) -> Option<Self> {
                let z = r.uint()?;
                <$t>::try_from((z >> 1) as i64 ^ -((z & 1) as i64)).ok()
            }
        }
    )*};
}
spill_int!(i32, i64);

impl Spill for bool {
    fn put(&self, w: &mut Packer<'_>) {
        w.buf.push(u8::from(*self));
    }
    fn take(r: &mut Unpacker<'_>) -> Option<Self> {
        match u8::take(r)? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}

impl Spill for &'static str {
    fn put(&self, w: &mut Packer<'_>) {
        let s = &mut *w.statics;
        let n = *s.index.entry(self).or_insert_with(|| {
            s.strs.push(self);
            s.strs.len() as u32 - 1
        });
        n.put(w);
    }
    fn take(r: &mut Unpacker<'_>) -> Option<Self> {
        let n = u32::take(r)?;
        r.statics.strs.get(n as usize).copied()
    }
}

impl Spill for String {
    fn put(&self, w: &mut Packer<'_>) {
        self.as_bytes().to_vec().put(w);
    }
    fn take(r: &mut Unpacker<'_>) -> Option<Self> {
        String::from_utf8(Vec::take(r)?).ok()
    }
}

impl<T: Spill> Spill for Option<T> {
    fn put(&self, w: &mut Packer<'_>) {
        self.is_some().put(w);
        if let Some(v) = self {
            v.put(w);
        }
    }
    fn take(r: &mut Unpacker<'_>) -> Option<Self> {
        Some(if bool::take(r)? {
            Some(T::take(r)?)
        } else {
            None
        })
    }
}

impl<T: Spill> Spill for Box<T> {
    fn put(&self, w: &mut Packer<'_>) {
        (**self).put(w);
    }
    fn take(r: &mut Unpacker<'_>) -> Option<Self> {
        T::take(r).map(Box::new)
    }
}

impl<A: Spill, B: Spill> Spill for (A, B) {
    fn put(&self, w: &mut Packer<'_>) {
        self.0.put(w);
        self.1.put(w);
    }
    fn take(r: &mut Unpacker<'_>) -> Option<Self> {
        Some((A::take(r)?, B::take(r)?))
    }
}

impl<A: Spill, B: Spill, C: Spill> Spill for (A, B, C) {
    fn put(&self, w: &mut Packer<'_>) {
        self.0.put(w);
        self.1.put(w);
        self.2.put(w);
    }
    fn take(r: &mut Unpacker<'_>) -> Option<Self> {
        Some((A::take(r)?, B::take(r)?, C::take(r)?))
    }
}

/// Writes the length, then each item.
fn put_items<'a, T: Spill + 'a>(
    len: usize,
    items: impl Iterator<Item = &'a T>,
    w: &mut Packer<'_>,
) {
    len.put(w);
    items.for_each(|v| v.put(w));
}

/// Reads a length, then that many items (at most one per byte left, so a
/// bad length cannot ask for a huge allocation).
fn take_items<T: Spill, C: FromIterator<T>>(r: &mut Unpacker<'_>) -> Option<C> {
    let n = usize::take(r)?;
    if n > r.buf.len() {
        return None;
    }
    (0..n).map(|_| T::take(r)).collect()
}

impl<T: Spill> Spill for Vec<T> {
    fn put(&self, w: &mut Packer<'_>) {
        put_items(self.len(), self.iter(), w);
    }
    fn take(r: &mut Unpacker<'_>) -> Option<Self> {
        take_items(r)
    }
}

impl<T: Spill, const N: usize> Spill for [T; N] {
    fn put(&self, w: &mut Packer<'_>) {
        self.iter().for_each(|v| v.put(w));
    }
    fn take(r: &mut Unpacker<'_>) -> Option<Self> {
        let v: Option<Vec<T>> = (0..N).map(|_| T::take(r)).collect();
        v?.try_into().ok()
    }
}

impl<K: Spill + Eq + Hash, V: Spill> Spill for HashMap<K, V> {
    fn put(&self, w: &mut Packer<'_>) {
        self.len().put(w);
        for (k, v) in self {
            k.put(w);
            v.put(w);
        }
    }
    fn take(r: &mut Unpacker<'_>) -> Option<Self> {
        let n = usize::take(r)?;
        if n > r.buf.len() {
            return None;
        }
        let mut m = HashMap::with_capacity(n);
        for _ in 0..n {
            let k = K::take(r)?;
            m.insert(k, V::take(r)?);
        }
        Some(m)
    }
}

impl<K: Spill + Eq + Hash> Spill for HashSet<K> {
    fn put(&self, w: &mut Packer<'_>) {
        put_items(self.len(), self.iter(), w);
    }
    fn take(r: &mut Unpacker<'_>) -> Option<Self> {
        let v: Vec<K> = take_items(r)?;
        let mut s = HashSet::with_capacity(v.len());
        s.extend(v);
        Some(s)
    }
}

/// A fieldless enum, by its discriminant, read back from `$all` (which
/// lists the variants in declaration order).
macro_rules! spill_enum {
    ($t:ty, $all:expr) => {
        impl Spill for $t {
            fn put(&self, w: &mut Packer<'_>) {
                (*self as usize).put(w);
            }
            fn take(r: &mut Unpacker<'_>) -> Option<Self> {
                $all.get(usize::take(r)?).copied()
            }
        }
    };
}
spill_enum!(End, End::ALL);
spill_enum!(Effect, Effect::ALL);
spill_enum!(Resolution, Resolution::ALL);
spill_enum!(Access, Access::ALL);

macro_rules! spill_struct {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl Spill for $t {
            fn put(&self, w: &mut Packer<'_>) {
                let $t { $($f),* } = self;
                $($f.put(w);)*
            }
            fn take(r: &mut Unpacker<'_>) -> Option<Self> {
                Some($t { $($f: Spill::take(r)?),* })
            }
        }
    };
}

/// The form of every row the model keeps live (`spilled: yes` in
/// [`model_tables!`]), its fields listed by that one declaration.
macro_rules! spill_rows {
    ($(
        $(#[$meta:meta])*
        $table:ident = $name:literal, key: $key:ident $(($id:ident))?,
        $(sink: $method:ident,)? $(spilled: $spilled:ident,)?
        struct $row:ident $(<$lt:lifetime>)? {
            $( $( $(#[$doc:meta])* $field:ident: $ty:ty )? => $column:literal $(as $how:ident)?, )*
        }
    )*) => {
        $( spill_row!([$($spilled)?] $row { $( [$($field)?] )* }); )*
    };
}

/// A row's form if it is spilled.
macro_rules! spill_row {
    ([] $($rest:tt)*) => {};
    ([$spilled:ident] $row:ident { $( [$($field:ident)?] )* }) => {
        spill_struct!($row { $($($field,)?)* });
    };
}

model_tables!(spill_rows);

spill_struct!(Pending {
    call_id,
    code,
    name,
    effect,
    nargs,
    args,
    ts,
    offset,
    namei,
    first_path,
    lookups,
    held,
    argv,
    envp,
    image_id,
    exec_evidence,
});

spill_struct!(HeldLookup {
    ts,
    offset,
    comm,
    path,
    resolved,
    resolution,
    access,
});

spill_struct!(Thread {
    id,
    tid,
    first_ts,
    last_ts,
    records,
    pending,
});

spill_struct!(AwaitingExec {
    id,
    seq,
    image,
    ts,
    call_id,
    calls_from,
    path,
    argv,
    envp,
    cwd,
});

spill_struct!(Proc {
    row,
    seen,
    comm,
    cwd,
    fds,
    threads,
    exec_seq,
    image,
    image_id,
    files,
    exiting,
    dead,
    awaiting_comm,
});
