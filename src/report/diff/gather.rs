//! One side's commands and files, gathered in one pass over its accesses:
//! the queries `diff_paths` (every path, rewritten by `--map`),
//! `diff_commands` (every process image) and `diff_accesses` (every
//! successful read, write and removal, unsorted) are read once, the
//! accesses counted per command and per path as they come
//! ([`crate::build::diff::Files`]), and the commands and the inputs and
//! outputs put in the order the comparison walks them. SQLite would sort
//! the accesses three times over to say the same; here they are held as
//! ids (a few bytes each) and the commands once, with their paths as
//! text.

use std::collections::HashMap;

use crate::build::diff::{owners, Effect, Files, Image};
use crate::report::row::typed_row;
use crate::report::{self, Cell, Database};
use crate::Error;

use super::commands::{text, Cmd};
use super::side::{Build, Row as Sent};

typed_row! {
    /// A row of `queries/diff_paths.sql`: a path and what `--map` made
    /// of it.
    struct PathRow<'r> from "diff_paths" {
        path_id: i64,
        path: Option<&'r [u8]>,
        moved: Option<&'r [u8]>,
    }
}

typed_row! {
    /// A row of `queries/diff_commands.sql`: a process image.
    struct CommandRow<'r> from "diff_commands" {
        command_id: i64,
        process_id: i64,
        image: i64,
        parent_id: Option<i64>,
        program: Option<&'r [u8]>,
        cwd: Option<&'r [u8]>,
        comm: Cell,
        argv: Cell,
        start_ts: i64,
        dur: i64,
    }
}

typed_row! {
    /// A row of `queries/diff_accesses.sql`: a read, write or removal.
    struct Access<'r> from "diff_accesses" {
        command_id: i64,
        path_id: i64,
        effect: Option<&'r [u8]>,
        offset: i64,
    }
}

/// An input or output of a build, as the comparison walks them.
pub struct File {
    /// `input` or `output`.
    pub kind: &'static str,
    /// The path, rewritten by `--map`.
    pub path: Vec<u8>,
}

/// One command row of `diff_commands`, with its identity's parts.
struct Row {
    id: i64,
    program: Option<Vec<u8>>,
    cwd: Option<Vec<u8>>,
    comm: Cell,
    argv: Cell,
    start: i64,
    dur: i64,
}

/// What a side sends for the commands: each [`Cmd`], sorted by identity
/// (program, cwd, writes, bytewise with NULL as empty; then start,
/// duration, reads, id). Then, when `files`, the inputs and outputs
/// ([`File`]), sorted by kind and path. Each list goes to `send`, then
/// `end`.
pub fn run(
    db: &Database,
    build: &Build,
    files: bool,
    send: &mut dyn FnMut(Sent) -> Result<(), Error>,
    end: &mut dyn FnMut() -> Result<(), Error>,
) -> Result<(), Error> {
    let trace = ("trace", Cell::Int(build.trace));
    let map = build.map.clone().map(String::into_bytes);
    let map = ("map", map.map_or(Cell::Null, Cell::Text));

    // Every path's rewritten form, by id and by text.
    let (mut moved, mut by_text) = (HashMap::new(), HashMap::new());
    report::each_as::<PathRow<'static>>(db, "diff_paths", &[map], |r| {
        let (path, to) = (r.path.unwrap_or_default(), r.moved.unwrap_or_default());
        by_text.insert(path.to_vec(), to.to_vec());
        moved.insert(r.path_id, to.to_vec());
        Ok(())
    })?;
    let rewrite = |p: Option<&[u8]>| -> Option<Vec<u8>> {
        let p = p?;
        Some(by_text.get(p).cloned().unwrap_or_else(|| p.to_vec()))
    };

    let (mut rows, mut images) = (Vec::new(), Vec::new());
    let params = std::slice::from_ref(&trace);
    report::each_as::<CommandRow<'static>>(db, "diff_commands", params, |r| {
        let id = r.command_id;
        images.push(Image {
            id,
            process: r.process_id,
            image: r.image,
            parent: r.parent_id,
        });
        rows.push(Row {
            id,
            program: rewrite(r.program),
            cwd: rewrite(r.cwd),
            comm: r.comm,
            argv: r.argv,
            start: r.start_ts,
            dur: r.dur,
        });
        Ok(())
    })?;
    let owner = owners(&images);
    drop(images);
    let owner_of = |c: i64| owner.get(&c).copied().unwrap_or(c);

    let mut acc = Files::default();
    report::each_as::<Access<'static>>(db, "diff_accesses", &[trace], |r| {
        let effect = match r.effect.unwrap_or_default() {
            b"read" => Effect::Read,
            b"write" => Effect::Write,
            _ => Effect::Remove,
        };
        acc.add(r.command_id, r.path_id, effect, r.offset);
        Ok(())
    })?;

    // The paths of a list, rewritten, sorted bytewise, each once, one per line.
    let name = |ids: &[i64]| -> Vec<u8> {
        let mut v: Vec<&[u8]> = ids
            .iter()
            .filter_map(|i| moved.get(i).map(Vec::as_slice))
            .collect();
        v.sort_unstable();
        v.dedup();
        v.join(&b'\n')
    };
    let per = acc.per_command(owner_of);
    let mut folded: HashMap<i64, Vec<i64>> = HashMap::new();
    for r in &rows {
        let o = owner_of(r.id);
        if o != r.id {
            folded.entry(o).or_default().push(r.id);
        }
    }
    let mut cmds: Vec<(Row, Vec<u8>, Vec<u8>)> = rows
        .into_iter()
        .filter(|r| owner_of(r.id) == r.id)
        .map(|r| {
            let (reads, writes) = per
                .get(&r.id)
                .map(|(rd, wr)| (name(rd), name(wr)))
                .unwrap_or_default();
            (r, writes, reads)
        })
        .collect();
    drop(per);
    fn ident(r: &Row) -> (&[u8], &[u8]) {
        (
            r.program.as_deref().unwrap_or_default(),
            r.cwd.as_deref().unwrap_or_default(),
        )
    }
    cmds.sort_unstable_by(|(a, aw, ar), (b, bw, br)| {
        ident(a)
            .cmp(&ident(b))
            .then_with(|| aw.cmp(bw))
            .then_with(|| (a.start, a.dur).cmp(&(b.start, b.dur)))
            .then_with(|| ar.cmp(br))
            .then_with(|| a.id.cmp(&b.id))
    });
    // Paths as the output shows them: TEXT when UTF-8.
    let shown = |b: Option<Vec<u8>>| b.map_or(Cell::Null, |b| text(Cell::Blob(b)));
    for (r, writes, reads) in cmds {
        send(Sent::Command(Cmd {
            id: r.id,
            program: shown(r.program),
            cwd: shown(r.cwd),
            writes: shown(Some(writes).filter(|w| !w.is_empty())),
            reads,
            comm: text(r.comm),
            argv: r.argv,
            dur: r.dur,
            folded: folded.remove(&r.id).unwrap_or_default(),
        }))?;
    }
    end()?;

    if files {
        let (inputs, outputs) = acc.inputs_outputs();
        for (kind, ids) in [("input", inputs), ("output", outputs)] {
            let mut paths: Vec<&[u8]> = ids
                .iter()
                .filter_map(|i| moved.get(i).map(Vec::as_slice))
                .collect();
            paths.sort_unstable();
            paths.dedup();
            for p in paths {
                let path = p.to_vec();
                send(Sent::File(File { kind, path }))?;
            }
        }
        end()?;
    }
    Ok(())
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::PathRow<'static>>();
        check::<super::CommandRow<'static>>();
        check::<super::Access<'static>>();
    }
}
