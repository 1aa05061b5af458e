//! Which commands the SVG timeline folds into summary rows, so that the
//! picture keeps within a row budget whatever the build's size (image
//! tools refuse pictures past 32,767 px: librsvg, hence `rsvg-convert`).
//!
//! A folded command has no row of its own: it is drawn, a bar with its
//! tooltip, in the row of the command kept last before it in tree order
//! (its parent's or an earlier sibling's, where its bar shows when it ran
//! within them); only folded commands before any kept one share a grey
//! summary row. Commands shorter than `--min-dur` are folded (none by
//! default); of the others, the longest are kept, as many as fit
//! `--max-rows` (the rows are the commands kept, plus the summary row if
//! any). The commands are ranked by duration, longest first, equal
//! durations in tree order, so a build of many commands of the same
//! length still keeps its longest ones, up to the budget, rather than
//! folding all that tie at once. Keeping one more command never takes a
//! row away (+1, or 0 when it empties the summary row), so the rows only
//! grow with the commands kept and a binary search finds how many fit.
//!
//! The plan reads `queries/timeline_rows.sql` (each command's id and
//! duration in tree order) as the rows come, holding the `--max-rows`
//! longest commands and a few counts, never a word per command; it is
//! skipped when every command fits and no `--min-dur` was given.

use std::collections::{BinaryHeap, HashSet};

use rusqlite::Connection;

use super::Options;
use crate::report::each_as;
use crate::report::row::typed_row;
use crate::Error;

/// Rows drawn by default: 2,000 rows of 14 px keep the picture near
/// 28,000 px, within the 32,767 px image tools take.
pub const MAX_ROWS: usize = 2000;

/// What is folded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    /// Commands shorter than this (ns) are folded (`--min-dur`).
    pub min_dur: Option<i64>,
    /// The commands kept when the budget folded some of those `min_dur`
    /// leaves (by exec_id); `None`: every one `min_dur` leaves is kept.
    kept: Option<HashSet<i64>>,
    /// Commands in scope.
    pub commands: usize,
    /// Commands folded.
    pub folded: usize,
    /// The longest of them (ns; 0 when none).
    pub longest_folded: i64,
    /// Summary rows they fill: 1 when the first commands in tree order
    /// are folded, else 0.
    pub summaries: usize,
    /// Rows drawn: commands kept, plus summary rows.
    pub rows: usize,
    /// Whether the row budget (rather than `--min-dur` alone) folded some.
    pub by_budget: bool,
}

impl Fold {
    /// Nothing folded: one row per command.
    fn none(commands: usize) -> Fold {
        Fold {
            min_dur: None,
            kept: None,
            commands,
            folded: 0,
            longest_folded: 0,
            summaries: 0,
            rows: commands,
            by_budget: false,
        }
    }

    /// Whether the command `exec_id`, which took `dur` (ns), is folded.
    pub fn folds(&self, exec_id: i64, dur: i64) -> bool {
        match &self.kept {
            Some(kept) => !kept.contains(&exec_id),
            None => self.min_dur.is_some_and(|m| dur < m),
        }
    }
}

typed_row! {
    /// A row of `queries/timeline_rows.sql`: a command's duration.
    struct Dur from "timeline_rows" {
        exec_id: i64,
        dur: i64,
    }
}

/// The rows budget of `opts`.
pub fn max_rows(opts: &Options) -> usize {
    opts.max_rows.unwrap_or(MAX_ROWS).max(1)
}

/// Plan the folding of `opts`' `commands` commands.
pub fn plan(conn: &Connection, opts: &Options, commands: usize) -> Result<Fold, Error> {
    let budget = max_rows(opts);
    if opts.min_dur.is_none() && commands <= budget {
        return Ok(Fold::none(commands));
    }
    let mut scan = Scan::new(opts.min_dur, budget);
    each_as::<Dur>(conn, "timeline_rows", &opts.params(), |r| {
        scan.add(r.exec_id, r.dur);
        Ok(())
    })?;
    Ok(scan.finish())
}

/// Fold the commands (exec_id, duration, in tree order) shorter than
/// `min_dur`, then as few more as bring the rows within `budget`, the
/// shortest first (equal durations: the later in tree order first).
#[cfg(test)]
fn choose(cmds: &[(i64, i64)], min_dur: Option<i64>, budget: usize) -> Fold {
    let mut scan = Scan::new(min_dur, budget);
    for &(exec_id, dur) in cmds {
        scan.add(exec_id, dur);
    }
    scan.finish()
}

/// A command's rank among those `min_dur` leaves: longer first, then
/// earlier in tree order (a smaller key ranks higher).
type Rank = (std::cmp::Reverse<i64>, usize);

/// [`choose`] over the commands as they come, in tree order, holding the
/// `budget + 1` highest ranked of them and a few counts, never a word per
/// command. Keeping the `n` highest ranked makes `n` rows, plus the
/// summary row when the first command in tree order is not among them
/// (the commands folded before any kept one): so the most that fit the
/// budget is `budget` when the first command ranks within it, else
/// `budget - 1`.
struct Scan {
    min_dur: Option<i64>,
    budget: usize,
    /// Commands seen.
    commands: usize,
    /// Of them, those `min_dur` leaves.
    eligible: usize,
    /// The first command's duration, when `min_dur` leaves it.
    first: Option<i64>,
    /// Commands `min_dur` leaves that rank above the first (longer: the
    /// first wins every tie).
    above_first: usize,
    /// The `budget + 1` highest ranked, the lowest on top.
    best: BinaryHeap<(Rank, i64)>,
    /// The longest command `min_dur` folds (0 when none).
    longest_short: i64,
}

impl Scan {
    fn new(min_dur: Option<i64>, budget: usize) -> Self {
        Scan {
            min_dur,
            budget,
            commands: 0,
            eligible: 0,
            first: None,
            above_first: 0,
            best: BinaryHeap::new(),
            longest_short: 0,
        }
    }

    /// The next command in tree order.
    fn add(&mut self, exec_id: i64, dur: i64) {
        let pos = self.commands;
        self.commands += 1;
        if self.min_dur.is_some_and(|m| dur < m) {
            self.longest_short = self.longest_short.max(dur);
            return;
        }
        self.eligible += 1;
        match self.first {
            _ if pos == 0 => self.first = Some(dur),
            Some(d0) if dur > d0 => self.above_first += 1,
            _ => {}
        }
        self.best.push(((std::cmp::Reverse(dur), pos), exec_id));
        if self.best.len() > self.budget + 1 {
            self.best.pop();
        }
    }

    fn finish(self) -> Fold {
        // The first command's rank among those kept, if it can be kept.
        let first_rank = self.first.map(|_| self.above_first);
        // The summary row with the `n` highest ranked kept.
        let summary =
            |n: usize| usize::from(self.commands > 0 && first_rank.is_none_or(|r| r >= n));
        let all = self.eligible;
        let (n, by_budget) = if all + summary(all) <= self.budget {
            (all, false)
        } else if first_rank.is_some_and(|r| r < self.budget) {
            (self.budget, true)
        } else {
            (self.budget - 1, true)
        };
        let folded = self.commands - n;
        if folded == 0 {
            return Fold::none(self.commands);
        }
        // The highest ranked first: the `n` kept, then the longest folded.
        let ranked = self.best.into_sorted_vec();
        let longest_ranked = ranked
            .get(n)
            .filter(|_| by_budget)
            .map_or(0, |((d, _), _)| d.0);
        Fold {
            min_dur: self.min_dur,
            kept: by_budget.then(|| ranked[..n].iter().map(|&(_, e)| e).collect()),
            commands: self.commands,
            folded,
            longest_folded: self.longest_short.max(longest_ranked),
            summaries: summary(n),
            rows: n + summary(n),
            by_budget,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Commands numbered 1, 2, … in tree order with these durations.
    fn numbered(durs: &[i64]) -> Vec<(i64, i64)> {
        durs.iter()
            .enumerate()
            .map(|(i, &d)| (i as i64 + 1, d))
            .collect()
    }

    /// Which commands (by number) `f` folds.
    fn folded(f: &Fold, cmds: &[(i64, i64)]) -> Vec<i64> {
        cmds.iter()
            .filter(|(e, d)| f.folds(*e, *d))
            .map(|(e, _)| *e)
            .collect()
    }

    #[test]
    fn folded_commands_join_the_row_above_and_the_budget_holds() {
        // Tree order: 5 1 2 9 1 7.
        let cmds = numbered(&[5, 1, 2, 9, 1, 7]);
        let f = choose(&cmds, None, 6);
        assert_eq!((f.rows, f.folded), (6, 0));
        assert_eq!(folded(&f, &cmds), Vec::<i64>::new());
        let f = choose(&cmds, None, 4);
        assert_eq!(
            (f.rows, f.folded, f.summaries, f.by_budget),
            (4, 2, 0, true)
        );
        assert_eq!(folded(&f, &cmds), [2, 5]);
        assert_eq!(f.longest_folded, 1);
        // The first command folded: a summary row of its own.
        let f = choose(&cmds, None, 2);
        assert_eq!((f.rows, f.folded, f.summaries), (2, 5, 1));
        assert_eq!(folded(&f, &cmds), [1, 2, 3, 5, 6]);
        let f = choose(&cmds, None, 1);
        assert_eq!((f.rows, f.folded, f.summaries), (1, 6, 1));
        let f = choose(&cmds, Some(2), 100);
        assert_eq!((f.rows, f.folded, f.by_budget), (4, 2, false));
        assert_eq!(folded(&f, &cmds), [2, 5]);
        let none = choose(&[], None, 1);
        assert_eq!(none.rows, 0);
    }

    #[test]
    fn ties_keep_the_longest_up_to_the_budget() {
        // 1,000 commands of the same length between a long first and a
        // long last one: a threshold would fold every tied one or none;
        // the budget keeps the two long ones and as many tied ones as fit.
        let mut durs = vec![100];
        durs.extend(std::iter::repeat_n(10, 1000));
        durs.push(50);
        let cmds = numbered(&durs);
        assert_eq!(choose(&cmds, None, 1999).folded, 0);
        assert_eq!(choose(&cmds, None, 1002).folded, 0);
        for budget in [3, 4, 50, 1001] {
            let f = choose(&cmds, None, budget);
            assert!(f.rows <= budget && f.rows + 2 >= budget, "{budget}: {f:?}");
            let gone = folded(&f, &cmds);
            assert!(!gone.contains(&1) && !gone.contains(&1002), "{budget}");
            assert_eq!(f.commands - f.folded, cmds.len() - gone.len());
            assert_eq!(f.longest_folded, 10);
        }
        // The tied ones kept are the first in tree order.
        let f = choose(&cmds, None, 10);
        let kept: Vec<i64> = cmds
            .iter()
            .filter(|(e, d)| !f.folds(*e, *d))
            .map(|(e, _)| *e)
            .collect();
        // Ten kept, the 992 others drawn in the row of the 9th.
        assert_eq!(kept, [1, 2, 3, 4, 5, 6, 7, 8, 9, 1002]);
        assert_eq!((f.rows, f.summaries), (10, 0));
        // --min-dur folds every shorter one whatever the budget.
        let f = choose(&cmds, Some(11), 2000);
        assert_eq!((f.folded, f.rows, f.by_budget), (1000, 2, false));
        let f = choose(&cmds, Some(60), 2000);
        assert_eq!(folded(&f, &cmds).len(), 1001);
    }

    #[test]
    fn every_budget_is_kept_with_the_fewest_folded() {
        let cmds = numbered(&(0..200).map(|i| (i * 7919 % 97) as i64).collect::<Vec<_>>());
        let mut last = 0;
        for budget in 1..=200 {
            let f = choose(&cmds, None, budget);
            assert!(f.rows <= budget, "{budget}: {f:?}");
            // More budget never folds more.
            let kept = f.commands - f.folded;
            assert!(kept >= last, "{budget}: {f:?}");
            last = kept;
            // No folded command is longer than a kept one.
            let longest = folded(&f, &cmds)
                .iter()
                .map(|&e| cmds[e as usize - 1].1)
                .max();
            let shortest_kept = cmds
                .iter()
                .filter(|(e, d)| !f.folds(*e, *d))
                .map(|c| c.1)
                .min();
            if let (Some(a), Some(b)) = (longest, shortest_kept) {
                assert!(a <= b, "{budget}: folded {a} kept {b}");
            }
        }
    }

    // The rule as first written: every command held, the most kept found
    // by a binary search over the rows each count makes.
    /// The rows (commands kept + summary rows), the commands folded, the
    /// summary rows and the longest folded duration, of `keep` (by position
    /// in tree order) over `cmds`.
    fn count(cmds: &[(i64, i64)], keep: &[bool]) -> (usize, usize, usize, i64) {
        let (mut kept, mut folded, mut runs, mut in_run, mut longest) = (0, 0, 0, false, 0);
        for (&(_, d), &k) in cmds.iter().zip(keep) {
            if k {
                kept += 1;
                in_run = false;
            } else {
                folded += 1;
                longest = longest.max(d);
                // A run after a kept command is drawn in that command's row.
                runs += usize::from(!in_run && kept == 0);
                in_run = true;
            }
        }
        (kept + runs, folded, runs, longest)
    }

    /// Keep the `n` first of `order` (positions into the commands).
    fn keep_first(len: usize, order: &[usize], n: usize) -> Vec<bool> {
        let mut keep = vec![false; len];
        for &i in &order[..n] {
            keep[i] = true;
        }
        keep
    }

    /// Fold the commands (exec_id, duration, in tree order) shorter than
    /// `min_dur`, then as few more as bring the rows within `budget`, the
    /// shortest first (equal durations: the later in tree order first).
    fn choose_by_search(cmds: &[(i64, i64)], min_dur: Option<i64>, budget: usize) -> Fold {
        let min = min_dur.unwrap_or(i64::MIN);
        // The commands `min_dur` leaves, longest first, ties in tree order.
        let mut order: Vec<usize> = (0..cmds.len()).filter(|&i| cmds[i].1 >= min).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(cmds[i].1), i));
        let rows = |n: usize| count(cmds, &keep_first(cmds.len(), &order, n)).0;
        let (n, by_budget) = if rows(order.len()) <= budget {
            (order.len(), false)
        } else {
            // The most commands kept whose rows fit: rows(0) is one summary
            // row (or none), within any budget.
            let (mut lo, mut hi) = (0, order.len() - 1);
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                if rows(mid) <= budget {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            (lo, true)
        };
        let keep = keep_first(cmds.len(), &order, n);
        let (rows, folded, summaries, longest_folded) = count(cmds, &keep);
        if folded == 0 {
            return Fold::none(cmds.len());
        }
        Fold {
            min_dur,
            kept: by_budget.then(|| order[..n].iter().map(|&i| cmds[i].0).collect()),
            commands: cmds.len(),
            folded,
            longest_folded,
            summaries,
            rows,
            by_budget,
        }
    }

    #[test]
    fn the_scan_folds_what_the_search_over_every_command_folds() {
        // Durations from a small range (many ties), budgets around the
        // counts, with and without --min-dur.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for case in 0..400 {
            let len = next(40) as usize;
            let durs: Vec<i64> = (0..len).map(|_| next(8) as i64).collect();
            let cmds = numbered(&durs);
            let min = match case % 3 {
                0 => None,
                _ => Some(next(8) as i64),
            };
            let budget = 1 + next(len as u64 + 3) as usize;
            let want = choose_by_search(&cmds, min, budget);
            let got = choose(&cmds, min, budget);
            let ctx = format!("{durs:?} min {min:?} budget {budget}");
            assert_eq!(
                (
                    got.commands,
                    got.folded,
                    got.longest_folded,
                    got.summaries,
                    got.rows,
                    got.by_budget
                ),
                (
                    want.commands,
                    want.folded,
                    want.longest_folded,
                    want.summaries,
                    want.rows,
                    want.by_budget
                ),
                "{ctx}"
            );
            assert_eq!(folded(&got, &cmds), folded(&want, &cmds), "{ctx}");
        }
    }
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::Dur>();
    }
}
