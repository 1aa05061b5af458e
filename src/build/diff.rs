//! What differs between two builds, as rules on values (`kt2sql diff`):
//! which paths compare as the same across two directory trees
//! ([`PathMap`]), how two sorted lists are walked side by side
//! ([`merge`]), how the commands of one identity pair up between builds
//! ([`pair`]: by argv where recorded, then in start order),
//! what differs between two sorted path lists ([`lines_diff`]), and which
//! commands got slower or faster by the most ([`Extremes`]), which image
//! counts as which command ([`owners`]) and what each command read and
//! left, and the build's inputs and outputs ([`Files`]).
//!
//! A command is what ran: a process image started by an exec, or the
//! image a process was forked with when it never ran another program. A
//! forked copy that went on to exec is part of the command it became (the
//! files it opened before the exec, a shell's redirections, are that
//! command's); a fork that never exec'd is part of the command that forked
//! it. A command's identity (what makes it the same command in another
//! build) is the program it ran, its working directory and the files it
//! wrote that are there at the end. Everything else about a command may
//! differ between two runs of it: its argv, the files it read, its time.
//! The rows come from SQL and the output is `report::diff`'s; this module
//! runs no SQL and writes nothing.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet, VecDeque};

/// `--map OLD=NEW` pairs: paths of the old build at or below OLD compare
/// as if they were at or below NEW.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathMap {
    /// (old prefix, new prefix), without trailing slashes.
    pub pairs: Vec<(String, String)>,
}

impl PathMap {
    /// Parse one `OLD=NEW`: both absolute; a trailing `/` is dropped.
    pub fn parse_pair(s: &str) -> Result<(String, String), String> {
        let (old, new) = s
            .split_once('=')
            .ok_or_else(|| format!("--map {s}: expected OLD=NEW (two absolute directories)"))?;
        let clean = |p: &str| -> Result<String, String> {
            if !p.starts_with('/') {
                return Err(format!("--map {s}: {p:?} is not an absolute path"));
            }
            let t = p.trim_end_matches('/');
            Ok(if t.is_empty() { "/".into() } else { t.into() })
        };
        Ok((clean(old)?, clean(new)?))
    }

    /// The pairs as the `:map` parameter of the diff queries: a JSON array
    /// of `[old, new]`; `None` when there are none.
    pub fn to_json(&self) -> Option<String> {
        if self.pairs.is_empty() {
            return None;
        }
        let mut out = String::from("[");
        for (i, (old, new)) in self.pairs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            crate::json::push_json_str_list(&mut out, [old, new]);
        }
        out.push(']');
        Some(out)
    }

    /// `path` as the map rewrites it (the longest matching old prefix wins),
    /// as the diff queries do in SQL; for tests and messages.
    pub fn apply(&self, path: &str) -> String {
        let hit = self
            .pairs
            .iter()
            .filter(|(old, _)| {
                path == old
                    || path
                        .strip_prefix(old.trim_end_matches('/'))
                        .is_some_and(|rest| rest.starts_with('/'))
            })
            .max_by_key(|(old, _)| old.len());
        match hit {
            Some((old, new)) => format!("{new}{}", &path[old.trim_end_matches('/').len()..]),
            None => path.to_string(),
        }
    }
}

/// One process image, as [`owners`] places it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Image {
    /// Its command id (`command.command_id`).
    pub id: i64,
    /// Its process lifetime.
    pub process: i64,
    /// 0 for the image the process was forked with, then 1, 2, … per exec.
    pub image: i64,
    /// The command that forked or spawned its process; `None` for a root.
    pub parent: Option<i64>,
}

/// Which command each image counts as: an exec'd image (image > 0) is a
/// command of its own; a forked copy (image 0) is part of its process's
/// first exec'd image when there is one (a fork's pre-exec image is the
/// start of the command it becomes), else part of the command that forked
/// it (a fork that never exec'd is that command's work), else (a root that
/// never exec'd) its own. Images missing from the map are their own.
pub fn owners(images: &[Image]) -> HashMap<i64, i64> {
    let mut first_exec: HashMap<i64, (i64, i64)> = HashMap::new();
    for i in images.iter().filter(|i| i.image > 0) {
        let e = first_exec.entry(i.process).or_insert((i.image, i.id));
        if i.image < e.0 {
            *e = (i.image, i.id);
        }
    }
    let by_id: HashMap<i64, &Image> = images.iter().map(|i| (i.id, i)).collect();
    let mut owner: HashMap<i64, i64> = HashMap::with_capacity(images.len());
    let mut chain = Vec::new();
    for start in images {
        let mut cur = start.id;
        let found = loop {
            if let Some(&o) = owner.get(&cur) {
                break o;
            }
            let Some(i) = by_id.get(&cur) else { break cur };
            if i.image > 0 {
                break cur;
            }
            if let Some(&(_, e)) = first_exec.get(&i.process) {
                break e;
            }
            // Up the fork chain; a chain longer than the images is a cycle
            // (which a correct import never writes): stop at its start.
            match i.parent {
                Some(p) if chain.len() < images.len() => {
                    chain.push(cur);
                    cur = p;
                }
                _ => break cur,
            }
        };
        owner.insert(cur, found);
        for c in chain.drain(..) {
            owner.insert(c, found);
        }
        owner.insert(start.id, found);
    }
    owner
}

/// What a successful lookup did to a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effect {
    /// read, exec.
    Read,
    /// write, create, rename-to.
    Write,
    /// delete, rename-from.
    Remove,
}

/// The successful reads, writes and removals of one build, gathered as
/// they come (in any order): per command, the paths it read and wrote;
/// per path, whether the build read it, changed it, and what its last
/// change was. Paths are ids here; the caller names them.
#[derive(Debug, Default)]
pub struct Files {
    touches: Vec<(i64, Effect, i64)>,
    paths: HashMap<i64, PathUse>,
}

/// What the build did to one path.
#[derive(Debug, Default, Clone, Copy)]
struct PathUse {
    /// Some command read it.
    read: bool,
    /// Some command wrote or removed it.
    changed: bool,
    /// The file offset of its last write or removal, and whether that
    /// was a removal.
    last: Option<(i64, bool)>,
}

impl Files {
    /// One access: `command` did `effect` to `path` at file `offset`.
    pub fn add(&mut self, command: i64, path: i64, effect: Effect, offset: i64) {
        self.touches.push((command, effect, path));
        let p = self.paths.entry(path).or_default();
        match effect {
            Effect::Read => p.read = true,
            Effect::Write | Effect::Remove => {
                p.changed = true;
                let change = (offset, effect == Effect::Remove);
                if p.last.is_none_or(|last| last.0 < change.0) {
                    p.last = Some(change);
                }
            }
        }
    }

    /// Whether `path` is there at the end: written, and its last change
    /// was no removal (build_file's `output` and `intermediate`).
    fn lasts(&self, path: i64) -> bool {
        self.paths
            .get(&path)
            .and_then(|p| p.last)
            .is_some_and(|(_, removed)| !removed)
    }

    /// Per command (as `owner` maps it), the paths it read and the paths
    /// it wrote that are there at the end, each set once.
    pub fn per_command(&self, owner: impl Fn(i64) -> i64) -> HashMap<i64, (Vec<i64>, Vec<i64>)> {
        let mut seen: HashSet<(i64, Effect, i64)> = HashSet::new();
        let mut out: HashMap<i64, (Vec<i64>, Vec<i64>)> = HashMap::new();
        for &(c, effect, path) in &self.touches {
            let c = owner(c);
            let keep = match effect {
                Effect::Read => true,
                Effect::Write => self.lasts(path),
                Effect::Remove => false,
            };
            if keep && seen.insert((c, effect, path)) {
                let e = out.entry(c).or_default();
                match effect {
                    Effect::Read => e.0.push(path),
                    _ => e.1.push(path),
                }
            }
        }
        out
    }

    /// The build's inputs (read, never written or removed: build_file's
    /// `source`) and outputs (written and there at the end), as path ids.
    pub fn inputs_outputs(&self) -> (Vec<i64>, Vec<i64>) {
        let inputs = self.paths.iter().filter(|(_, p)| p.read && !p.changed);
        let outputs = self.paths.keys().filter(|&&id| self.lasts(id));
        (
            inputs.map(|(&id, _)| id).collect(),
            outputs.copied().collect(),
        )
    }
}

/// One step of walking two lists sorted the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Side<A, B> {
    /// Only in the old list.
    Old(A),
    /// Only in the new list.
    New(B),
    /// In both.
    Both(A, B),
}

/// Walk two sorted lists side by side, as comm(1) does: `cmp` orders an
/// old item against a new one. Items come out in order, each once; equal
/// items pair up one to one. Neither list is held: each is pulled as the
/// walk needs it.
pub fn merge<A, B, E>(
    old: impl Iterator<Item = Result<A, E>>,
    new: impl Iterator<Item = Result<B, E>>,
    cmp: impl Fn(&A, &B) -> Ordering,
    mut f: impl FnMut(Side<A, B>) -> Result<(), E>,
) -> Result<(), E> {
    let (mut old, mut new) = (old.peekable(), new.peekable());
    loop {
        let order = match (old.peek(), new.peek()) {
            (None, None) => return Ok(()),
            (Some(Err(_)), _) => return Err(old.next().unwrap().err().unwrap()),
            (_, Some(Err(_))) => return Err(new.next().unwrap().err().unwrap()),
            (Some(Ok(_)), None) => Ordering::Less,
            (None, Some(Ok(_))) => Ordering::Greater,
            (Some(Ok(a)), Some(Ok(b))) => cmp(a, b),
        };
        let step = match order {
            Ordering::Less => Side::Old(old.next().unwrap()?),
            Ordering::Greater => Side::New(new.next().unwrap()?),
            Ordering::Equal => Side::Both(old.next().unwrap()?, new.next().unwrap()?),
        };
        f(step)?;
    }
}

/// How the commands of one identity pair up between two builds (two runs
/// of `cc -c foo.c` are the same command). Each list is in start order.
/// First, commands whose argv was recorded in both and is the same pair
/// up, the k-th of an argv with the k-th; then the rest pair in start
/// order, the k-th left with the k-th left (where no argv is recorded,
/// that is all of them). Returns the pairs (old index, new index) in
/// old order, and the old and the new commands left without a partner.
pub fn pair<T>(
    old: &[T],
    new: &[T],
    argv: impl Fn(&T) -> Option<&[u8]>,
) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
    let mut by_argv: HashMap<&[u8], VecDeque<usize>> = HashMap::new();
    for (j, t) in new.iter().enumerate() {
        if let Some(a) = argv(t) {
            by_argv.entry(a).or_default().push_back(j);
        }
    }
    let mut partner: Vec<Option<usize>> = vec![None; old.len()];
    let mut taken = vec![false; new.len()];
    for (i, t) in old.iter().enumerate() {
        if let Some(j) = argv(t).and_then(|a| by_argv.get_mut(a)?.pop_front()) {
            partner[i] = Some(j);
            taken[j] = true;
        }
    }
    let mut free = (0..new.len()).filter(|&j| !taken[j]);
    let mut removed = Vec::new();
    for p in partner.iter_mut().filter(|p| p.is_none()) {
        *p = free.next();
    }
    let added: Vec<usize> = free.collect();
    let mut pairs = Vec::new();
    for (i, p) in partner.into_iter().enumerate() {
        match p {
            Some(j) => pairs.push((i, j)),
            None => removed.push(i),
        }
    }
    (pairs, removed, added)
}

/// The lines of two sorted lists of paths (one per line, as the diff
/// queries give them) that are only in the new one, and only in the old.
pub fn lines_diff<'a>(old: &'a [u8], new: &'a [u8]) -> (Vec<&'a [u8]>, Vec<&'a [u8]>) {
    let split = |b: &'a [u8]| b.split(|&c| c == b'\n').filter(|l| !l.is_empty());
    let (mut added, mut removed) = (Vec::new(), Vec::new());
    let res: Result<(), ()> = merge(
        split(old).map(Ok),
        split(new).map(Ok),
        |a, b| a.cmp(b),
        |s| {
            match s {
                Side::Old(a) => removed.push(a),
                Side::New(b) => added.push(b),
                Side::Both(..) => {}
            }
            Ok(())
        },
    );
    res.expect("the walk cannot fail");
    (added, removed)
}

/// A command present in both builds, with its time in each.
#[derive(Debug, Clone, PartialEq)]
pub struct Timed<T> {
    /// Its duration (ns) in the old build.
    pub old: i64,
    /// In the new build.
    pub new: i64,
    /// What names it in the output.
    pub what: T,
}

impl<T> Timed<T> {
    /// new - old (ns).
    pub fn delta(&self) -> i64 {
        self.new - self.old
    }

    /// new / old; `None` when the old time is 0.
    pub fn ratio(&self) -> Option<f64> {
        (self.old > 0).then(|| self.new as f64 / self.old as f64)
    }
}

/// The `n` commands that got slower and faster by the most, absolutely
/// (nanoseconds) and relatively (new / old), kept as they go by: at most
/// 4n held, whatever the number of commands.
#[derive(Debug)]
pub struct Extremes<T> {
    n: usize,
    /// Slower by the most ns, largest first.
    pub slower: Vec<Timed<T>>,
    /// Faster by the most ns.
    pub faster: Vec<Timed<T>>,
    /// Slower by the largest ratio.
    pub slower_rel: Vec<Timed<T>>,
    /// Faster by the largest ratio (the smallest new / old).
    pub faster_rel: Vec<Timed<T>>,
}

impl<T: Clone> Extremes<T> {
    /// Keep the `n` most of each.
    pub fn new(n: usize) -> Self {
        Extremes {
            n,
            slower: Vec::new(),
            faster: Vec::new(),
            slower_rel: Vec::new(),
            faster_rel: Vec::new(),
        }
    }

    /// Consider one command; one whose time did not change is in none.
    pub fn add(&mut self, t: Timed<T>) {
        let d = t.delta();
        if d == 0 || self.n == 0 {
            return;
        }
        let r = t.ratio();
        let n = self.n;
        if d > 0 {
            keep(&mut self.slower, t.clone(), n, |x| x.delta() as f64);
            if let Some(r) = r {
                keep(&mut self.slower_rel, t, n, move |x| x.ratio().unwrap_or(r));
            }
        } else {
            keep(&mut self.faster, t.clone(), n, |x| -x.delta() as f64);
            if r.is_some() {
                keep(&mut self.faster_rel, t, n, |x| {
                    -x.ratio().unwrap_or(f64::INFINITY)
                });
            }
        }
    }
}

/// Insert `t` into `list` (largest `score` first, the earlier one first
/// among equals) and keep `n`.
fn keep<T>(list: &mut Vec<Timed<T>>, t: Timed<T>, n: usize, score: impl Fn(&Timed<T>) -> f64) {
    let s = score(&t);
    if list.len() == n && list.last().is_some_and(|l| score(l) >= s) {
        return;
    }
    let at = list.partition_point(|x| score(x) >= s);
    list.insert(at, t);
    list.truncate(n);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_pairs_are_absolute_and_the_longest_prefix_wins() {
        assert_eq!(
            PathMap::parse_pair("/home/a/src/=/home/b/src"),
            Ok(("/home/a/src".into(), "/home/b/src".into()))
        );
        assert!(PathMap::parse_pair("a=/b").is_err());
        assert!(PathMap::parse_pair("/a").is_err());
        let m = PathMap {
            pairs: vec![("/a".into(), "/x".into()), ("/a/b".into(), "/y".into())],
        };
        assert_eq!(m.apply("/a/b/c"), "/y/c");
        assert_eq!(m.apply("/a/c"), "/x/c");
        assert_eq!(m.apply("/a"), "/x");
        assert_eq!(m.apply("/ab"), "/ab");
        assert_eq!(
            m.to_json().as_deref(),
            Some(r#"[["/a","/x"],["/a/b","/y"]]"#)
        );
        assert_eq!(PathMap::default().to_json(), None);
    }

    #[test]
    fn pre_exec_images_and_forks_without_exec_fold_into_a_command() {
        let img = |id, process, image, parent| Image {
            id,
            process,
            image,
            parent,
        };
        let images = [
            img(1, 10, 0, None),    // the tracer before it runs make
            img(2, 10, 1, None),    // make
            img(3, 11, 0, Some(2)), // make's fork, before its exec
            img(4, 11, 1, Some(2)), // … sh
            img(5, 12, 0, Some(4)), // sh's subshell, never exec'd
            img(6, 13, 0, Some(5)), // a fork of the subshell
            img(7, 14, 0, None),    // a root that never exec'd
        ];
        let o = owners(&images);
        let got: Vec<i64> = (1..=7).map(|i| o[&i]).collect();
        assert_eq!(got, [2, 2, 4, 4, 4, 4, 7]);
        // A parent cycle (never written by an import) ends.
        let o = owners(&[img(1, 1, 0, Some(2)), img(2, 2, 0, Some(1))]);
        assert_eq!(o.len(), 2);
    }

    #[test]
    fn files_are_gathered_per_command_and_per_path() {
        let mut f = Files::default();
        f.add(1, 100, Effect::Read, 1);
        f.add(1, 101, Effect::Write, 2);
        f.add(2, 101, Effect::Read, 3);
        f.add(2, 102, Effect::Write, 4); // a temporary: removed last
        f.add(3, 102, Effect::Remove, 5);
        f.add(3, 103, Effect::Remove, 6); // removed, then made again
        f.add(3, 103, Effect::Write, 7);
        f.add(4, 100, Effect::Read, 8);
        let per = f.per_command(|c| if c == 4 { 1 } else { c });
        assert_eq!(per[&1], (vec![100], vec![101]));
        assert_eq!(per[&2], (vec![101], vec![]));
        assert_eq!(per[&3], (vec![], vec![103]));
        let (mut inputs, mut outputs) = f.inputs_outputs();
        inputs.sort();
        outputs.sort();
        assert_eq!(inputs, [100]);
        assert_eq!(outputs, [101, 103]);
    }

    #[test]
    fn merge_pairs_equal_items_once_and_keeps_order() {
        let mut seen = Vec::new();
        let r: Result<(), ()> = merge(
            [1, 2, 2, 4].into_iter().map(Ok),
            [2, 3, 4, 5].into_iter().map(Ok),
            |a, b| a.cmp(b),
            |s| {
                seen.push(s);
                Ok(())
            },
        );
        r.unwrap();
        use Side::*;
        assert_eq!(
            seen,
            vec![Old(1), Both(2, 2), Old(2), New(3), Both(4, 4), New(5)]
        );
    }

    #[test]
    fn merge_stops_at_the_first_error() {
        let r = merge(
            [Ok(1), Err("bad")].into_iter(),
            [Ok(1), Ok(2)].into_iter(),
            |a: &i32, b: &i32| a.cmp(b),
            |_| Ok(()),
        );
        assert_eq!(r, Err("bad"));
    }

    #[test]
    fn commands_pair_by_argv_then_in_start_order() {
        fn argv<'a>(t: &'a (u8, Option<&'static str>)) -> Option<&'a [u8]> {
            t.1.map(str::as_bytes)
        }
        // Without argv: the k-th with the k-th.
        let old = [(0, None), (1, None), (2, None)];
        let new = [(0, None), (1, None)];
        assert_eq!(
            pair(&old, &new, argv),
            (vec![(0, 0), (1, 1)], vec![2], vec![])
        );
        // The same argv first, then the rest in order.
        let old = [
            (0, Some("a")),
            (1, Some("b")),
            (2, Some("c")),
            (3, Some("a")),
        ];
        let new = [
            (0, Some("b")),
            (1, Some("x")),
            (2, Some("a")),
            (3, Some("y")),
            (4, Some("z")),
        ];
        assert_eq!(
            pair(&old, &new, argv),
            (vec![(0, 2), (1, 0), (2, 1), (3, 3)], vec![], vec![4])
        );
    }

    #[test]
    fn lines_diff_gives_added_and_removed() {
        let (added, removed) = lines_diff(b"/a\n/b\n/d", b"/b\n/c\n/d\n/e");
        assert_eq!(added, [&b"/c"[..], b"/e"]);
        assert_eq!(removed, [&b"/a"[..]]);
        let (added, removed) = lines_diff(b"", b"");
        assert!(added.is_empty() && removed.is_empty());
    }

    #[test]
    fn extremes_keep_the_n_largest_changes() {
        let mut e = Extremes::new(2);
        for (i, (old, new)) in [(10, 30), (10, 11), (100, 150), (50, 10), (10, 10), (0, 5)]
            .into_iter()
            .enumerate()
        {
            e.add(Timed { old, new, what: i });
        }
        let whats = |l: &[Timed<usize>]| l.iter().map(|t| t.what).collect::<Vec<_>>();
        assert_eq!(whats(&e.slower), [2, 0]);
        assert_eq!(whats(&e.slower_rel), [0, 2]);
        assert_eq!(whats(&e.faster), [3]);
        assert_eq!(whats(&e.faster_rel), [3]);
    }
}
