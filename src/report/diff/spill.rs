//! Detail rows kept on disk until the summary is printed: the summary
//! comes first but is known only at the end, and the details of a big
//! build can be many. Each section's rows go to an anonymous temporary
//! file (gone when closed) in a small encoding of [`Cell`]s and are read
//! back in order.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};

use crate::report::Cell;

/// Rows written to a temporary file, to be read back once.
pub struct Spill {
    out: BufWriter<File>,
    /// Rows written.
    pub rows: u64,
}

impl Spill {
    /// A new, empty spill file.
    pub fn new() -> io::Result<Spill> {
        Ok(Spill {
            out: BufWriter::new(tempfile::tempfile()?),
            rows: 0,
        })
    }

    /// Append one row.
    pub fn push(&mut self, row: &[Cell]) -> io::Result<()> {
        self.out.write_all(&(row.len() as u32).to_le_bytes())?;
        for c in row {
            match c {
                Cell::Null => self.out.write_all(&[0])?,
                Cell::Int(i) => {
                    self.out.write_all(&[1])?;
                    self.out.write_all(&i.to_le_bytes())?;
                }
                Cell::Real(f) => {
                    self.out.write_all(&[2])?;
                    self.out.write_all(&f.to_bits().to_le_bytes())?;
                }
                Cell::Text(b) | Cell::Blob(b) => {
                    self.out
                        .write_all(&[if matches!(c, Cell::Text(_)) { 3 } else { 4 }])?;
                    self.out.write_all(&(b.len() as u64).to_le_bytes())?;
                    self.out.write_all(b)?;
                }
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// Hand every row to `f`, in the order written.
    pub fn replay(self, mut f: impl FnMut(&[Cell]) -> io::Result<()>) -> io::Result<()> {
        let rows = self.rows;
        let mut file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        let mut r = BufReader::new(file);
        let mut row = Vec::new();
        for _ in 0..rows {
            row.clear();
            let n = u32::from_le_bytes(read_n(&mut r)?);
            for _ in 0..n {
                let [tag] = read_n(&mut r)?;
                row.push(match tag {
                    0 => Cell::Null,
                    1 => Cell::Int(i64::from_le_bytes(read_n(&mut r)?)),
                    2 => Cell::Real(f64::from_bits(u64::from_le_bytes(read_n(&mut r)?))),
                    _ => {
                        let len = u64::from_le_bytes(read_n(&mut r)?) as usize;
                        let mut b = vec![0; len];
                        r.read_exact(&mut b)?;
                        if tag == 3 {
                            Cell::Text(b)
                        } else {
                            Cell::Blob(b)
                        }
                    }
                });
            }
            f(&row)?;
        }
        Ok(())
    }
}

fn read_n<const N: usize>(r: &mut impl Read) -> io::Result<[u8; N]> {
    let mut b = [0; N];
    r.read_exact(&mut b)?;
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_back_as_written() {
        let rows = vec![
            vec![Cell::Null, Cell::Int(-7), Cell::Real(1.5)],
            vec![Cell::Text(b"a\nb".to_vec()), Cell::Blob(vec![0, 255])],
            vec![],
        ];
        let mut s = Spill::new().unwrap();
        for r in &rows {
            s.push(r).unwrap();
        }
        let mut got = Vec::new();
        s.replay(|r| {
            got.push(r.to_vec());
            Ok(())
        })
        .unwrap();
        assert_eq!(got, rows);
    }
}
