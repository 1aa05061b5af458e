//! I/O data under a GIO record, as kdump prints it for an 80-column
//! screen: text (printable ASCII, tab, newline, CR, NUL) in kdump's
//! `visdump` form (one `"`-quoted block, lines continued with a tab,
//! folded at column 78, `\` as `\\`, CR as `\r`, NUL as `\0`), anything
//! else in its `hexdump` form (16 bytes a line, pairs of bytes, then the
//! printable bytes between `|`). Both are escaped: no control byte but
//! tab and newline reaches the output.

/// kdump's screen width when stderr is not a terminal.
const SCREEN: usize = 80;

/// Append `data` (already cut to `-m MAX`) after a record line, each line
/// of it ending in a newline.
pub fn block(data: &[u8], out: &mut String) {
    if data.is_empty() {
        return;
    }
    let binary = data
        .iter()
        .any(|&c| !((32..127).contains(&c) || matches!(c, b'\n' | b'\r' | 0 | b'\t')));
    if binary {
        hexdump(data, out);
    } else {
        visdump(data, out);
    }
}

/// kdump's `hexdump`: the widest even byte count that fits the screen.
/// Each line is put together in an array on the stack and appended whole:
/// this writes most of a big trace's text (`bench/NOTES.md`).
fn hexdump(p: &[u8], out: &mut String) {
    let width = hex_width(SCREEN);
    // "       0x" + up to 16 offset digits + per byte 2 hex digits (and a
    // space before each pair) + "  |" + the bytes + "|\n".
    let mut line = [b' '; 9 + 16 + 4 * SCREEN + 5];
    line[..9].copy_from_slice(b"       0x");
    for (n, chunk) in p.chunks(width).enumerate() {
        let mut k = 9;
        let offset = n * width;
        let digits = (usize::BITS - offset.leading_zeros()).div_ceil(4).max(4);
        for d in (0..digits).rev() {
            line[k] = HEX[(offset >> (4 * d)) & 0xf];
            k += 1;
        }
        for i in 0..width {
            if i % 2 == 0 {
                line[k] = b' ';
                k += 1;
            }
            let (hi, lo) = chunk.get(i).map_or((b' ', b' '), |&b| {
                (HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)])
            });
            line[k] = hi;
            line[k + 1] = lo;
            k += 2;
        }
        line[k..k + 3].copy_from_slice(b"  |");
        k += 3;
        for &b in chunk {
            line[k] = if (b' '..=b'~').contains(&b) { b } else { b'.' };
            k += 1;
        }
        line[k] = b'|';
        line[k + 1] = b'\n';
        // Only ASCII was written.
        out.push_str(std::str::from_utf8(&line[..k + 2]).unwrap_or_default());
    }
}

/// Lower-case hex digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// Bytes per hexdump line for a screen of `screen` columns (kdump's loop).
fn hex_width(screen: usize) -> usize {
    let mut width = 0;
    loop {
        width += 2;
        let cols = 13 + (width / 2) + 1 + width * 2 + 3 + width + 1;
        if cols >= screen {
            return width - 2;
        }
    }
}

/// kdump's `visdump` with `vis(3)` in VIS_CSTYLE (only the bytes `block`
/// lets through reach it). Runs of bytes shown as themselves are copied
/// whole, up to the fold.
fn visdump(data: &[u8], out: &mut String) {
    out.push_str("       \"");
    let mut col = 8;
    let mut i = 0;
    while i < data.len() {
        let c = data[i];
        if col == 0 {
            out.push('\t');
            col = 8;
        }
        if is_plain(c) {
            let end = data[i..]
                .iter()
                .position(|&b| !is_plain(b))
                .map_or(data.len(), |n| i + n);
            while i < end {
                if col >= SCREEN - 2 {
                    out.push_str("\\\n\t");
                    col = 8;
                }
                let n = (SCREEN - 2 - col).min(end - i);
                out.push_str(std::str::from_utf8(&data[i..i + n]).unwrap_or_default());
                col += n;
                i += n;
            }
            continue;
        }
        i += 1;
        let next = data.get(i).copied().unwrap_or(0);
        let vis: &str = match c {
            b'\n' => {
                col = 0;
                out.push('\n');
                continue;
            }
            b'\\' => "\\\\",
            b'\r' => "\\r",
            // `\0` would read as an octal escape before an octal digit.
            0 if (b'0'..=b'7').contains(&next) => "\\000",
            0 => "\\0",
            _ => "",
        };
        let width = match c {
            b'\t' => 8 - (col & 7),
            _ if !vis.is_empty() => vis.len(),
            _ => 1,
        };
        if col + width > SCREEN - 2 {
            out.push_str("\\\n\t");
            col = 8;
        }
        col += width;
        if vis.is_empty() {
            out.push(c as char);
        } else {
            out.push_str(vis);
        }
    }
    if col == 0 {
        out.push_str("       ");
    }
    out.push_str("\"\n");
}

/// A byte `visdump` shows as itself, one column wide.
fn is_plain(c: u8) -> bool {
    (b' '..=b'~').contains(&c) && c != b'\\'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(data: &[u8]) -> String {
        let mut s = String::new();
        block(data, &mut s);
        s
    }

    #[test]
    fn sixteen_bytes_a_line_on_80_columns() {
        assert_eq!(hex_width(80), 16);
    }

    #[test]
    fn text_is_one_quoted_block() {
        assert_eq!(shown(b"hello\n"), "       \"hello\n       \"\n");
        assert_eq!(shown(b"a\nb"), "       \"a\n\tb\"\n");
        assert_eq!(shown(b"a\\b\r\0x\x001"), "       \"a\\\\b\\r\\0x\\0001\"\n");
    }

    #[test]
    fn long_lines_fold_at_column_78() {
        let s = shown(&[b'x'; 100]);
        let first = s.lines().next().unwrap();
        assert_eq!(first.len(), 8 + 70 + 1, "{first}");
        assert!(first.ends_with('\\'));
        assert!(s.lines().nth(1).unwrap().starts_with('\t'));
    }

    #[test]
    fn binary_is_a_hexdump() {
        let s = shown(b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03");
        assert_eq!(
            s,
            "       0x0000 7f45 4c46 0201 0100 0000 0000 0000 0000  |.ELF............|\n       \
             0x0010 03                                       |.|\n"
        );
    }
}
