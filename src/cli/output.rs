//! Where a command's output goes: standard output, or with `-o FILE` a
//! file written whole or not at all. The file is checked first
//! ([`kt2sql::import::check_output`]: never a trace or a kt2sql database,
//! any other existing file only with `--force`), written into a temporary
//! file beside it and renamed into place by [`Out::commit`]; an error, or
//! a command that decides after writing that it has nothing to give
//! (`compile-commands` without argv), drops the temporary file and leaves
//! FILE as it was.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use kt2sql::import::{check_output, TempTarget};
use kt2sql::Error;

use super::anyhow_lite::Result;
use super::args::Output;

/// An output being written.
pub enum Out {
    /// Standard output.
    Stdout(BufWriter<io::Stdout>),
    /// `-o FILE`, written into a temporary file.
    File {
        /// The temporary file's writer.
        out: BufWriter<File>,
        /// The temporary file, removed unless committed.
        tmp: TempTarget,
        /// FILE.
        path: PathBuf,
        /// `--force`: FILE may be replaced.
        force: bool,
    },
}

impl Output {
    /// Open the output: FILE checked and its temporary file created, or
    /// standard output.
    pub fn open(&self) -> Result<Out> {
        let Some(path) = &self.path else {
            return Ok(Out::Stdout(BufWriter::with_capacity(1 << 16, io::stdout())));
        };
        check_output(path, self.force)?;
        let tmp = TempTarget::create(path)?;
        let file = File::create(tmp.path()).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        Ok(Out::File {
            out: BufWriter::with_capacity(1 << 16, file),
            tmp,
            path: path.clone(),
            force: self.force,
        })
    }

    /// Open the output, write it with `f` and commit it.
    pub fn write<T>(
        &self,
        f: impl FnOnce(&mut dyn Write) -> std::result::Result<T, Error>,
    ) -> Result<T> {
        let mut out = self.open()?;
        let done = f(&mut out).map_err(|e| out.error(e))?;
        out.commit()?;
        Ok(done)
    }
}

impl Out {
    /// The file written, if not standard output.
    fn file(&self) -> Option<&Path> {
        match self {
            Out::Stdout(_) => None,
            Out::File { path, .. } => Some(path),
        }
    }

    /// An error of a writer, naming FILE where it names standard output
    /// (the reports' writers name standard output, where they usually go).
    pub fn error(&self, e: Error) -> Error {
        match (e, self.file()) {
            (Error::Io { source, .. }, Some(path)) => Error::Io {
                path: path.to_owned(),
                source,
            },
            (e, _) => e,
        }
    }

    /// Flush, and put FILE in place: renamed over it with --force, else
    /// linked to its name, so a FILE another process made meanwhile is
    /// left alone (and this fails).
    pub fn commit(self) -> Result<()> {
        match self {
            Out::Stdout(mut out) => out.flush()?,
            Out::File {
                out,
                tmp,
                path,
                force,
            } => {
                let io_err = |source| Error::Io {
                    path: path.clone(),
                    source,
                };
                // Flushed and closed; the commit syncs it to disk.
                drop(out.into_inner().map_err(|e| io_err(e.into_error()))?);
                tmp.commit(force).map_err(|e| match e {
                    Error::Io { source, .. } if source.kind() == io::ErrorKind::AlreadyExists => {
                        Error::Refused {
                            path: path.clone(),
                            reason: "was created by another process meanwhile; it was left \
                                     alone (--force replaces it)"
                                .into(),
                        }
                    }
                    e => e,
                })?;
            }
        }
        Ok(())
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Out::Stdout(out) => out.write(buf),
            Out::File { out, .. } => out.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Out::Stdout(out) => out.write_all(buf),
            Out::File { out, .. } => out.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::Stdout(out) => out.flush(),
            Out::File { out, .. } => out.flush(),
        }
    }
}
