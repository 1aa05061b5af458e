//! Which commands the SVG timeline folds into summary rows, so that the
//! picture keeps within a row budget whatever the build's size (image
//! tools refuse pictures past 32,767 px: librsvg, hence `rsvg-convert`).
//!
//! A command shorter than the threshold is folded: each run of folded
//! commands that follow one another in tree order shares one summary
//! row, every one of them still drawn as a bar with its tooltip. The
//! threshold is `--min-dur` (none by default), raised to the smallest
//! command duration that brings the rows (commands drawn + summary rows)
//! within `--max-rows`. Folding one more command never adds a row (it
//! starts a run, −1 + 1, joins one, or joins two, −1 − 1), so the rows
//! only fall as the threshold rises and a binary search finds it.
//!
//! The plan reads `queries/timeline_rows.sql` (each command's duration
//! in tree order, one integer per command held) and is skipped when every
//! command fits and no `--min-dur` was given.

use rusqlite::Connection;

use super::Options;
use crate::report::each_as;
use crate::report::row::typed_row;
use crate::Error;

/// Rows drawn by default: 2,000 rows of 14 px keep the picture near
/// 28,000 px, within the 32,767 px image tools take.
pub const MAX_ROWS: usize = 2000;

/// What is folded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fold {
    /// Commands shorter than this (ns) are folded; `i64::MIN` folds none.
    pub threshold: i64,
    /// Commands in scope.
    pub commands: usize,
    /// Commands folded.
    pub folded: usize,
    /// Summary rows they fill.
    pub summaries: usize,
    /// Rows drawn: commands not folded, plus summary rows.
    pub rows: usize,
    /// Whether the row budget (rather than `--min-dur` alone) set the
    /// threshold.
    pub by_budget: bool,
}

impl Fold {
    /// Nothing folded: one row per command.
    fn none(commands: usize) -> Fold {
        Fold {
            threshold: i64::MIN,
            commands,
            folded: 0,
            summaries: 0,
            rows: commands,
            by_budget: false,
        }
    }

    /// Whether a command that took `dur` (ns) is folded.
    pub fn folds(&self, dur: i64) -> bool {
        dur < self.threshold
    }
}

typed_row! {
    /// A row of `queries/timeline_rows.sql`: a command's duration.
    struct Dur from "timeline_rows" {
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
    let mut durs = Vec::with_capacity(commands);
    each_as::<Dur>(conn, "timeline_rows", &opts.params(), |r| {
        durs.push(r.dur);
        Ok(())
    })?;
    Ok(choose(&durs, opts.min_dur, budget))
}

/// The rows (drawn commands + summary rows) and folded commands of
/// threshold `t` over durations in tree order.
fn count(durs: &[i64], t: i64) -> (usize, usize, usize) {
    let (mut kept, mut folded, mut runs, mut in_run) = (0, 0, 0, false);
    for &d in durs {
        if d < t {
            folded += 1;
            runs += usize::from(!in_run);
            in_run = true;
        } else {
            kept += 1;
            in_run = false;
        }
    }
    (kept + runs, folded, runs)
}

/// The lowest threshold at or above `min_dur` whose rows fit `budget`.
fn choose(durs: &[i64], min_dur: Option<i64>, budget: usize) -> Fold {
    let base = min_dur.unwrap_or(i64::MIN);
    let fold = |t: i64, by_budget: bool| {
        let (rows, folded, summaries) = count(durs, t);
        Fold {
            threshold: if folded == 0 { i64::MIN } else { t },
            commands: durs.len(),
            folded,
            summaries,
            rows,
            by_budget: by_budget && folded > 0,
        }
    };
    let at_base = fold(base, false);
    if at_base.rows <= budget {
        return at_base;
    }
    // Thresholds that change something: each duration above the base, and
    // one past the longest (everything folded, one row).
    let mut cands: Vec<i64> = durs.iter().copied().filter(|&d| d > base).collect();
    cands.sort_unstable();
    cands.dedup();
    cands.push(durs.iter().copied().max().unwrap_or(0).saturating_add(1));
    let (mut lo, mut hi) = (0, cands.len() - 1);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if count(durs, cands[mid]).0 <= budget {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    fold(cands[lo], true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_share_a_row_and_the_budget_holds() {
        // Tree order: 5 [1 2] 9 [1] 7.
        let durs = [5, 1, 2, 9, 1, 7];
        assert_eq!(count(&durs, 3), (5, 3, 2));
        let f = choose(&durs, None, 6);
        assert_eq!((f.rows, f.folded, f.threshold), (6, 0, i64::MIN));
        let f = choose(&durs, None, 5);
        assert_eq!(
            (f.rows, f.folded, f.threshold, f.by_budget),
            (5, 3, 5, true)
        );
        let f = choose(&durs, None, 1);
        assert_eq!((f.rows, f.folded, f.summaries), (1, 6, 1));
        let f = choose(&durs, Some(2), 100);
        assert_eq!((f.rows, f.folded, f.by_budget), (6, 2, false));
        assert!(f.folds(1) && !f.folds(2));
        let none = choose(&[], None, 1);
        assert_eq!(none.rows, 0);
    }

    #[test]
    fn every_budget_is_kept_with_the_fewest_folded() {
        let durs: Vec<i64> = (0..200).map(|i| (i * 7919 % 97) as i64).collect();
        for budget in 1..=200 {
            let f = choose(&durs, None, budget);
            assert!(f.rows <= budget, "{budget}: {f:?}");
            // One less would not fit.
            if f.folded > 0 {
                let lower = durs.iter().copied().filter(|&d| d < f.threshold).max();
                if let Some(l) = lower {
                    assert!(count(&durs, l).0 > budget, "{budget}: {f:?}");
                }
            }
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
