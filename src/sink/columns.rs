//! The one visitor of a row's columns. Every row the model emits puts its
//! columns, in its table's order, into a [`Columns`]: one method per
//! stored [`Form`]. The SQLite encoder and the Arrow builders implement it;
//! what goes into each method is decided here, once, from the row's
//! declaration in [`model_tables!`](crate::process::rows): a field's Rust
//! type says its form ([`Column`]), `as` on a field names a form its type
//! does not say ([`stored`]), and a column with no field is derived from
//! the row and its trace ([`derived`]).

use super::trace::TraceContext;
use super::value::json_string_list;
use crate::process::vocab::Vocabulary;

/// How a column is stored: one [`Columns`] method each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// An integer: a count, a flag (0/1), a time (ns), an id, an offset.
    Int,
    /// A string known at compile time: a syscall or errno name, a record
    /// kind, a vocabulary's word.
    Name,
    /// Text kt2sql made.
    Text,
    /// Bytes as recorded: text when they are UTF-8, else the exact bytes.
    Recorded,
    /// A path: the id the sink's path cache gives it, the path added to
    /// table `path` when new.
    Path,
    /// Raw data.
    Blob,
    /// Argument words as kdump prints them, `0x3,0x7ffe12,0`.
    Args,
}

/// Where a row puts its columns, in its table's order: one method per
/// [`Form`], `None` for NULL.
pub trait Columns {
    /// Why a path could not be added (the only form that may write
    /// another row).
    type Error;
    /// [`Form::Int`].
    fn int(&mut self, v: Option<i64>);
    /// [`Form::Name`].
    fn name(&mut self, v: Option<&'static str>);
    /// [`Form::Text`].
    fn text(&mut self, v: Option<&str>);
    /// [`Form::Recorded`].
    fn recorded(&mut self, v: Option<&[u8]>);
    /// [`Form::Path`].
    fn path(&mut self, v: Option<&[u8]>) -> Result<(), Self::Error>;
    /// [`Form::Blob`].
    fn blob(&mut self, v: Option<&[u8]>);
    /// [`Form::Args`].
    fn args(&mut self, words: &[u64]);
}

/// A column's value: its form, whether it may be NULL, and how it is put.
pub trait Column {
    /// Its form.
    const FORM: Form;
    /// Whether it may be NULL.
    const NULLABLE: bool;
    /// Put it into `c`.
    fn put<C: Columns>(&self, c: &mut C) -> Result<(), C::Error>;
}

/// Implements [`Column`] for a type and its `Option`, given how a present
/// value `v` is put as `Option` into `c`.
macro_rules! column {
    ($($form:ident: $($t:ty),* => |$c:ident, $v:ident| $put:expr;)*) => {$($(
        impl Column for $t {
            const FORM: Form = Form::$form;
            const NULLABLE: bool = false;
            #[inline]
            fn put<C: Columns>(&self, $c: &mut C) -> Result<(), C::Error> {
                let $v = Some(self);
                $put;
                Ok(())
            }
        }
        impl Column for Option<$t> {
            const FORM: Form = Form::$form;
            const NULLABLE: bool = true;
            #[inline]
            fn put<C: Columns>(&self, $c: &mut C) -> Result<(), C::Error> {
                let $v = self.as_ref();
                $put;
                Ok(())
            }
        }
    )*)*};
}

column! {
    Int: i64 => |c, v| c.int(v.copied());
    Int: i32 => |c, v| c.int(v.map(|&v| v.into()));
    Int: bool => |c, v| c.int(v.map(|&v| v.into()));
    // File offsets fit i64 for any file that exists.
    Int: u64 => |c, v| c.int(v.map(|&v| v as i64));
    Name: &'static str => |c, v| c.name(v.copied());
    Text: String => |c, v| c.text(v.map(String::as_str));
    Recorded: Vec<u8> => |c, v| c.recorded(v.map(Vec::as_slice));
    Recorded: &[u8] => |c, v| c.recorded(v.copied());
}

/// A vocabulary is stored as its word.
impl<V: Vocabulary> Column for V {
    const FORM: Form = Form::Name;
    const NULLABLE: bool = false;
    #[inline]
    fn put<C: Columns>(&self, c: &mut C) -> Result<(), C::Error> {
        c.name(Some(self.word()));
        Ok(())
    }
}

impl<V: Vocabulary> Column for Option<V> {
    const FORM: Form = Form::Name;
    const NULLABLE: bool = true;
    #[inline]
    fn put<C: Columns>(&self, c: &mut C) -> Result<(), C::Error> {
        c.name(self.map(V::word));
        Ok(())
    }
}

/// The forms a declaration names with `as` on a field (`=> "column" as
/// how`), each a function of the field's value named as there.
pub mod stored {
    use super::{json_string_list, Column, Columns, Form};

    /// `as path`: interned to a `path_id`.
    pub struct Path<T>(T);
    /// `as strings`: NUL-separated strings, stored as recorded bytes: a
    /// JSON array when every string is UTF-8, else the bytes.
    pub struct Strings<T>(T);
    /// `as blob`: raw data.
    pub struct Blob<T>(T);
    /// `as args`: the argument words as text.
    pub struct Args<T>(T);

    /// `as path`.
    #[inline]
    pub fn path<T>(v: T) -> Path<T> {
        Path(v)
    }

    /// `as strings`.
    #[inline]
    pub fn strings<T>(v: T) -> Strings<T> {
        Strings(v)
    }

    /// `as blob`.
    #[inline]
    pub fn blob<T>(v: T) -> Blob<T> {
        Blob(v)
    }

    /// `as args`.
    #[inline]
    pub fn args<T>(v: T) -> Args<T> {
        Args(v)
    }

    impl Column for Path<&[u8]> {
        const FORM: Form = Form::Path;
        const NULLABLE: bool = false;
        #[inline]
        fn put<C: Columns>(&self, c: &mut C) -> Result<(), C::Error> {
            c.path(Some(self.0))
        }
    }

    impl Column for Path<Option<&[u8]>> {
        const FORM: Form = Form::Path;
        const NULLABLE: bool = true;
        #[inline]
        fn put<C: Columns>(&self, c: &mut C) -> Result<(), C::Error> {
            c.path(self.0)
        }
    }

    impl Column for Strings<Option<&[u8]>> {
        const FORM: Form = Form::Recorded;
        const NULLABLE: bool = true;
        #[inline]
        fn put<C: Columns>(&self, c: &mut C) -> Result<(), C::Error> {
            match self.0.map(|b| (b, json_string_list(b))) {
                Some((_, Some(json))) => c.recorded(Some(json.as_bytes())),
                Some((b, None)) => c.recorded(Some(b)),
                None => c.recorded(None),
            }
            Ok(())
        }
    }

    impl Column for Blob<Option<&[u8]>> {
        const FORM: Form = Form::Blob;
        const NULLABLE: bool = true;
        #[inline]
        fn put<C: Columns>(&self, c: &mut C) -> Result<(), C::Error> {
            c.blob(self.0);
            Ok(())
        }
    }

    impl Column for Args<&[u64]> {
        const FORM: Form = Form::Args;
        const NULLABLE: bool = false;
        #[inline]
        fn put<C: Columns>(&self, c: &mut C) -> Result<(), C::Error> {
            c.args(self.0);
            Ok(())
        }
    }

    /// The form and nullability of a field of type `A` stored as `how`
    /// says.
    pub fn form<A, T: Column>(_how: fn(A) -> T) -> (Form, bool) {
        (T::FORM, T::NULLABLE)
    }
}

/// The columns a declaration derives from a row and its trace (`=>
/// "column" as how` with no field), each a function named as there; its
/// return type says how the column is stored.
pub mod derived {
    use super::super::value::signed_word;
    use super::{Column, Form, TraceContext};
    use crate::names::errno_name as errno_name_of;
    use crate::process::rows::CallRow;

    /// `trace_id`: the trace the row belongs to.
    #[inline]
    pub fn trace<R>(_: &R, ctx: &TraceContext) -> i64 {
        ctx.trace_id
    }

    /// `call.nargs`: how many argument words the call has.
    #[inline]
    pub fn nargs(r: &CallRow<'_>, _: &TraceContext) -> i64 {
        r.args.len() as i64
    }

    /// `call.arg0`: the first argument, signed at the trace's word width.
    #[inline]
    pub fn arg0(r: &CallRow<'_>, ctx: &TraceContext) -> Option<i64> {
        arg(r, 0, ctx)
    }

    /// `call.arg1`: the second argument, signed at the trace's word width.
    #[inline]
    pub fn arg1(r: &CallRow<'_>, ctx: &TraceContext) -> Option<i64> {
        arg(r, 1, ctx)
    }

    /// `call.dur`: from CALL to RET.
    #[inline]
    pub fn dur(r: &CallRow<'_>, _: &TraceContext) -> Option<i64> {
        r.ts.zip(r.ret_ts).map(|(a, b)| b - a)
    }

    /// `call.errno_name`: the errno's name in the trace's system.
    #[inline]
    pub fn errno_name(r: &CallRow<'_>, ctx: &TraceContext) -> Option<&'static str> {
        r.errno
            .and_then(|e| errno_name_of(ctx.names, e).map(|(n, _)| n))
    }

    /// Argument `i`, signed at the trace's word width.
    #[inline]
    fn arg(r: &CallRow<'_>, i: usize, ctx: &TraceContext) -> Option<i64> {
        r.args.get(i).map(|&w| signed_word(w, ctx.word_bits))
    }

    /// The form and nullability of a column derived from a row of type `R`
    /// by `how`.
    pub fn form<R, T: Column>(_how: fn(&R, &TraceContext) -> T) -> (Form, bool) {
        (T::FORM, T::NULLABLE)
    }
}
