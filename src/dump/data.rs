//! I/O data under a GIO record, as kdump prints it for an 80-column
//! screen: text (printable ASCII, tab, newline, CR, NUL) in kdump's
//! `visdump` form (one `"`-quoted block, lines continued with a tab,
//! folded at column 78, `\` as `\\`, CR as `\r`, NUL as `\0`), anything
//! else in its `hexdump` form (16 bytes a line, pairs of bytes, then the
//! printable bytes between `|`). Both are escaped: no control byte but
//! tab and newline reaches the output.

use crate::text::{hex_pair, HEX_DIGITS};

/// kdump's screen width when stderr is not a terminal.
const SCREEN: usize = 80;

/// Append `data` (already cut to `-m MAX`) after a record line, each line
/// of it ending in a newline.
pub fn block(data: &[u8], out: &mut Vec<u8>) {
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

/// Bytes per hexdump line: the widest even count that fits the screen.
const HEX_WIDTH: usize = hex_width(SCREEN);

/// kdump's `hexdump`, [`HEX_WIDTH`] bytes a line. The lines are put
/// together in a block on the stack, their hex digits two at a time from a
/// table, and appended a block at a time: this writes most of a big
/// trace's text (`bench/NOTES.md`).
fn hexdump(p: &[u8], out: &mut Vec<u8>) {
    // "       0x" + up to 16 offset digits + per pair of bytes a space and
    // 4 hex digits + "  |" + the bytes + "|\n".
    const LINE: usize = 9 + 16 + HEX_WIDTH / 2 * 5 + 3 + HEX_WIDTH + 2;
    const BLOCK: usize = 4096;
    let mut block = [b' '; BLOCK];
    let mut k = 0;
    for (n, chunk) in p.chunks(HEX_WIDTH).enumerate() {
        if k > BLOCK - LINE {
            out.extend_from_slice(&block[..k]);
            k = 0;
        }
        block[k..k + 9].copy_from_slice(b"       0x");
        k += 9;
        let offset = n * HEX_WIDTH;
        if offset < 0x10000 {
            // Four digits, the offset of all but the largest buffers.
            block[k..k + 2].copy_from_slice(&hex_pair((offset >> 8) as u8));
            block[k + 2..k + 4].copy_from_slice(&hex_pair(offset as u8));
            k += 4;
        } else {
            let digits = (usize::BITS - offset.leading_zeros()).div_ceil(4);
            for d in (0..digits).rev() {
                block[k] = HEX_DIGITS[(offset >> (4 * d)) & 0xf];
                k += 1;
            }
        }
        let cols = &mut block[k..k + HEX_WIDTH / 2 * 5];
        if chunk.len() == HEX_WIDTH {
            for (c, pair) in cols.chunks_exact_mut(5).zip(chunk.chunks_exact(2)) {
                c[0] = b' ';
                c[1..3].copy_from_slice(&hex_pair(pair[0]));
                c[3..5].copy_from_slice(&hex_pair(pair[1]));
            }
        } else {
            // The last line: blanks where there are no bytes.
            cols.fill(b' ');
            for (i, &b) in chunk.iter().enumerate() {
                let at = i / 2 * 5 + 1 + i % 2 * 2;
                cols[at..at + 2].copy_from_slice(&hex_pair(b));
            }
        }
        k += HEX_WIDTH / 2 * 5;
        block[k..k + 3].copy_from_slice(b"  |");
        k += 3;
        for (c, &b) in block[k..k + chunk.len()].iter_mut().zip(chunk) {
            *c = if (b' '..=b'~').contains(&b) { b } else { b'.' };
        }
        k += chunk.len();
        block[k] = b'|';
        block[k + 1] = b'\n';
        k += 2;
    }
    out.extend_from_slice(&block[..k]);
}

/// Bytes per hexdump line for a screen of `screen` columns (kdump's loop).
const fn hex_width(screen: usize) -> usize {
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
fn visdump(data: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(b"       \"");
    let mut col = 8;
    let mut i = 0;
    while i < data.len() {
        let c = data[i];
        if col == 0 {
            out.push(b'\t');
            col = 8;
        }
        if is_plain(c) {
            let end = data[i..]
                .iter()
                .position(|&b| !is_plain(b))
                .map_or(data.len(), |n| i + n);
            while i < end {
                if col >= SCREEN - 2 {
                    out.extend_from_slice(b"\\\n\t");
                    col = 8;
                }
                let n = (SCREEN - 2 - col).min(end - i);
                out.extend_from_slice(&data[i..i + n]);
                col += n;
                i += n;
            }
            continue;
        }
        i += 1;
        let next = data.get(i).copied().unwrap_or(0);
        let vis: &[u8] = match c {
            b'\n' => {
                col = 0;
                out.push(b'\n');
                continue;
            }
            b'\\' => b"\\\\",
            b'\r' => b"\\r",
            // `\0` would read as an octal escape before an octal digit.
            0 if (b'0'..=b'7').contains(&next) => b"\\000",
            0 => b"\\0",
            _ => b"",
        };
        let width = match c {
            b'\t' => 8 - (col & 7),
            _ if !vis.is_empty() => vis.len(),
            _ => 1,
        };
        if col + width > SCREEN - 2 {
            out.extend_from_slice(b"\\\n\t");
            col = 8;
        }
        col += width;
        if vis.is_empty() {
            out.push(c);
        } else {
            out.extend_from_slice(vis);
        }
    }
    if col == 0 {
        out.extend_from_slice(b"       ");
    }
    out.extend_from_slice(b"\"\n");
}

/// A byte `visdump` shows as itself, one column wide.
fn is_plain(c: u8) -> bool {
    (b' '..=b'~').contains(&c) && c != b'\\'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(data: &[u8]) -> String {
        let mut s = Vec::new();
        block(data, &mut s);
        String::from_utf8(s).unwrap()
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
