//! Make depfiles (`kt2sql deps` and `rdeps --format make`): rules
//! `target …: dep …`, each name escaped so that make reads it back as one
//! word, as `gcc -MD` escapes it.

use std::io::{self, Write};

/// `name` escaped for a make rule: `$` as `$$`, and a space, tab, `#`,
/// `:` or backslash-before-those as make needs (`\ `, `\#`, …). A newline
/// cannot be written in a make word; it is an error for the caller.
pub fn escape(name: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(name.len());
    for (i, &b) in name.iter().enumerate() {
        match b {
            b'\n' | b'\r' | 0 => {
                return Err(format!(
                    "{}: a make rule cannot name a path with a newline or NUL",
                    String::from_utf8_lossy(name)
                ))
            }
            b'$' => out.extend_from_slice(b"$$"),
            b' ' | b'\t' | b'#' | b':' => {
                // Backslashes right before a space or `#` are doubled so
                // they stay backslashes (GNU make's rule for `\\ `).
                let run = name[..i].iter().rev().take_while(|&&c| c == b'\\').count();
                out.resize(out.len() + run, b'\\');
                out.push(b'\\');
                out.push(b);
            }
            _ => out.push(b),
        }
    }
    Ok(out)
}

/// Write `target target …: dep dep …` and a newline, every name escaped.
pub fn write_rule(out: &mut dyn Write, targets: &[&[u8]], deps: &[&[u8]]) -> io::Result<()> {
    let bad = |e: String| io::Error::new(io::ErrorKind::InvalidData, e);
    for (i, t) in targets.iter().enumerate() {
        if i > 0 {
            out.write_all(b" ")?;
        }
        out.write_all(&escape(t).map_err(bad)?)?;
    }
    out.write_all(b":")?;
    for d in deps {
        out.write_all(b" ")?;
        out.write_all(&escape(d).map_err(bad)?)?;
    }
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_make_would_split_or_expand() {
        let e = |s: &str| String::from_utf8(escape(s.as_bytes()).unwrap()).unwrap();
        assert_eq!(e("/src/a b.c"), "/src/a\\ b.c");
        assert_eq!(e("/src/$x"), "/src/$$x");
        assert_eq!(e("/src/#1"), "/src/\\#1");
        assert_eq!(e("C:x"), "C\\:x");
        assert_eq!(e("/a\\ b"), "/a\\\\\\ b");
        assert_eq!(e("/plain/a.c"), "/plain/a.c");
        assert!(escape(b"a\nb").is_err());
    }

    #[test]
    fn writes_one_rule() {
        let mut out = Vec::new();
        let deps: [&[u8]; 2] = [b"/s/a b.c", b"/s/$.h"];
        write_rule(&mut out, &[b"obj/x.o".as_slice()], &deps).unwrap();
        write_rule(&mut out, &[b"a.o".as_slice(), b"b c.o"], &deps[1..]).unwrap();
        write_rule(&mut out, &[b"s.h".as_slice()], &[]).unwrap();
        assert_eq!(
            out,
            b"obj/x.o: /s/a\\ b.c /s/$$.h\na.o b\\ c.o: /s/$$.h\ns.h:\n"
        );
    }
}
