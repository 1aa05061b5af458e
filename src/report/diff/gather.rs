//! One side's commands and files, gathered in one pass over its accesses:
//! the queries `diff-paths` (every path, rewritten by `--map`),
//! `diff-commands` (every process image) and `diff-accesses` (every
//! successful read, write and removal, unsorted) are read once, the
//! accesses counted per command and per path as they come
//! ([`crate::build::diff::Files`]), and the commands and the inputs and
//! outputs put in the order the comparison walks them. SQLite would sort
//! the accesses three times over to say the same; here they are held as
//! ids (a few bytes each) and the commands once, with their paths as
//! text.

use std::collections::HashMap;

use crate::build::diff::{owners, Effect, Files, Image};
use crate::report::{self, Cell, Database};
use crate::Error;

use super::side::Build;

/// One command row of `diff-commands`, with its identity's parts.
struct Row {
    id: i64,
    program: Option<Vec<u8>>,
    cwd: Option<Vec<u8>>,
    comm: Cell,
    argv: Cell,
    start: i64,
    dur: i64,
}

/// What a side sends for the commands: per command (one row each, sorted
/// by identity: program, cwd, writes, bytewise with NULL as empty; then
/// start, duration, reads, id): `command_id`, `program`, `cwd`, `writes`,
/// `reads` (paths one per line, sorted bytewise), `comm`, `argv`,
/// `start_ts`, `dur`, and `folded`: the ids of the images counted as part
/// of it (a fork before its exec, a fork that never exec'd), comma-separated,
/// or NULL. Then, when `files`, the inputs and outputs: `kind` (`input`,
/// `output`), `path`, sorted. Each list goes to `send`, then `end`.
pub fn run(
    db: &Database,
    build: &Build,
    files: bool,
    send: &mut dyn FnMut(Vec<Cell>) -> Result<(), Error>,
    end: &mut dyn FnMut() -> Result<(), Error>,
) -> Result<(), Error> {
    let trace = ("trace", Cell::Int(build.trace));
    let map = build.map.clone().map(String::into_bytes);
    let map = ("map", map.map_or(Cell::Null, Cell::Text));

    // Every path's rewritten form, by id and by text.
    let (mut moved, mut by_text) = (HashMap::new(), HashMap::new());
    report::each(db, "diff-paths", &[map], |r| {
        let (id, path, to) = (int(&r[0]), bytes(&r[1]), bytes(&r[2]).to_vec());
        by_text.insert(path.to_vec(), to.clone());
        moved.insert(id, to);
        Ok(())
    })?;
    let rewrite = |c: &Cell| -> Option<Vec<u8>> {
        let p = c.bytes()?;
        Some(by_text.get(p).cloned().unwrap_or_else(|| p.to_vec()))
    };

    let (mut rows, mut images) = (Vec::new(), Vec::new());
    report::each(db, "diff-commands", std::slice::from_ref(&trace), |r| {
        let id = int(&r[0]);
        images.push(Image {
            id,
            process: int(&r[1]),
            image: int(&r[2]),
            parent: r[3].int(),
        });
        rows.push(Row {
            id,
            program: rewrite(&r[4]),
            cwd: rewrite(&r[5]),
            comm: r[6].clone(),
            argv: r[7].clone(),
            start: int(&r[8]),
            dur: int(&r[9]),
        });
        Ok(())
    })?;
    let owner = owners(&images);
    drop(images);
    let owner_of = |c: i64| owner.get(&c).copied().unwrap_or(c);

    let mut acc = Files::default();
    report::each(db, "diff-accesses", &[trace], |r| {
        let effect = match bytes(&r[2]) {
            b"read" => Effect::Read,
            b"write" => Effect::Write,
            _ => Effect::Remove,
        };
        acc.add(int(&r[0]), int(&r[1]), effect, int(&r[3]));
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
    let opt = |b: Option<Vec<u8>>| b.map_or(Cell::Null, Cell::Blob);
    let list = |b: Vec<u8>| {
        if b.is_empty() {
            Cell::Null
        } else {
            Cell::Blob(b)
        }
    };
    for (r, writes, reads) in cmds {
        let f = folded.remove(&r.id).map_or(Cell::Null, |ids| {
            let s: Vec<String> = ids.iter().map(i64::to_string).collect();
            Cell::Text(s.join(",").into_bytes())
        });
        send(vec![
            Cell::Int(r.id),
            opt(r.program),
            opt(r.cwd),
            list(writes),
            list(reads),
            r.comm,
            r.argv,
            Cell::Int(r.start),
            Cell::Int(r.dur),
            f,
        ])?;
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
                send(vec![
                    Cell::Text(kind.as_bytes().to_vec()),
                    Cell::Blob(p.to_vec()),
                ])?;
            }
        }
        end()?;
    }
    Ok(())
}

fn int(c: &Cell) -> i64 {
    c.int().unwrap_or(0)
}

fn bytes(c: &Cell) -> &[u8] {
    c.bytes().unwrap_or_default()
}
