//! Rows back into id order. The model gives a call its `call_id` at the
//! CALL record but finishes the row at the RET, so with several processes
//! running, about half the call rows reach the encoder after a row with a
//! higher id. SQLite appends a row whose key is above every other cheaply
//! and fills pages full; a row that lands between others costs a B-tree
//! search and a page split that leaves both halves part-empty (the 1 GiB
//! benchmark's `call` table: 2.9 s and 237 MB inserted as finished, 2.45 s
//! and 215 MB in id order).
//!
//! [`InOrder`] holds finished rows in a ring of `window` slots indexed by
//! id and releases them lowest id first as soon as no lower id is missing.
//! A call still open when the ring fills (a `wait4` across a whole build) is
//! passed over: the rows behind it go on, and it is released alone, late,
//! when it finishes. So memory stays bounded and every row is released
//! exactly once, whatever the ids.
//!
//! Both sinks hold a call as a [`HeldCall`]: the typed row, a fifth of the
//! size of its encoded values, moved into the ring and out again.

use crate::process::rows::CallRow;
use crate::record::MAX_ARGS;

/// Call rows held to be written in `call_id` order: well above how late a
/// call finishes behind others in the benchmark's 8-job builds (< 1 024
/// ids), and 2.6 MB of cells.
pub const CALL_WINDOW: usize = 4096;

/// A reorder window over rows of type `R`, keyed by dense `i64` ids.
#[derive(Debug)]
pub struct InOrder<R> {
    /// The lowest id not yet released or passed over; `None` before the
    /// first row.
    next: Option<i64>,
    /// Slot `id % len` holds row `id`, for ids in `next .. next + len`.
    slots: Vec<Option<R>>,
    /// Rows held.
    held: usize,
}

impl<R> InOrder<R> {
    /// A window of `window` slots (at least 1).
    pub fn new(window: usize) -> Self {
        InOrder {
            next: None,
            slots: std::iter::repeat_with(|| None)
                .take(window.max(1))
                .collect(),
            held: 0,
        }
    }

    /// Rows held, waiting for a lower id.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.held
    }

    fn slot(&self, id: i64) -> usize {
        id.rem_euclid(self.slots.len() as i64) as usize
    }

    /// Take row `id`. Every row this makes releasable goes to `release`,
    /// lowest id first; returns how many went.
    pub fn push(&mut self, id: i64, row: R, mut release: impl FnMut(R)) -> usize {
        let window = self.slots.len() as i64;
        let next = *self.next.get_or_insert(id);
        if id == next && self.slots[self.slot(id)].is_none() {
            // The row the window waits for: it goes now, without a move
            // through its slot (the 20 values of a call row), and the rows
            // held behind it follow.
            release(row);
            self.next = Some(id + 1);
            return 1 + self.release_ready(&mut release);
        }
        if id < next {
            // Passed over (or below the first id seen): it goes now, alone.
            release(row);
            return 1;
        }
        let mut released = 0;
        if id - next >= window {
            // The ring is full: pass over the lowest ids until `id` fits,
            // releasing the rows held among them.
            released += self.release_through(id - window + 1, &mut release);
        }
        let s = self.slot(id);
        if self.slots[s].is_some() {
            // The same id twice (a model bug): pass it on rather than drop
            // either row, so the INSERT's uniqueness check reports it.
            release(row);
            return released + 1;
        }
        self.slots[s] = Some(row);
        self.held += 1;
        released + self.release_ready(&mut release)
    }

    /// Release every row held, lowest id first (at the end of a trace).
    pub fn drain(&mut self, mut release: impl FnMut(R)) -> usize {
        let Some(next) = self.next else { return 0 };
        let end = next + self.slots.len() as i64;
        let n = self.release_through(end, &mut release);
        self.next = None;
        n
    }

    /// Release the rows held for ids below `stop` and move `next` there.
    /// Held rows lie within a window of `next`, so the walk ends within one
    /// window however far `stop` is.
    fn release_through(&mut self, stop: i64, release: &mut impl FnMut(R)) -> usize {
        let mut n = 0;
        let mut id = self.next.unwrap_or(stop);
        while id < stop && self.held > 0 {
            let s = self.slot(id);
            if let Some(row) = self.slots[s].take() {
                release(row);
                self.held -= 1;
                n += 1;
            }
            id += 1;
        }
        self.next = Some(stop);
        n
    }

    /// Release the run of rows from `next` on with no id missing.
    fn release_ready(&mut self, release: &mut impl FnMut(R)) -> usize {
        let mut n = 0;
        let Some(mut id) = self.next else { return 0 };
        loop {
            let s = self.slot(id);
            match self.slots[s].take() {
                Some(row) => {
                    release(row);
                    self.held -= 1;
                    n += 1;
                    id += 1;
                }
                None => break,
            }
        }
        self.next = Some(id);
        n
    }
}

/// A call row held for `call_id` order: its fields, the argument words
/// copied out of the record they borrow from (no SQL values or columns yet:
/// a row is encoded once, when it is released).
#[derive(Debug)]
pub struct HeldCall {
    row: CallRow<'static>,
    words: Words,
}

/// A call's argument words.
#[derive(Debug)]
enum Words {
    Inline(u8, [u64; MAX_ARGS]),
    Heap(Box<[u64]>),
}

impl HeldCall {
    /// `r`, detached from the record its words borrow from.
    pub fn of(r: &CallRow<'_>) -> HeldCall {
        let words = match r.args.len() {
            n @ 0..=MAX_ARGS => {
                let mut w = [0; MAX_ARGS];
                w[..n].copy_from_slice(r.args);
                Words::Inline(n as u8, w)
            }
            _ => Words::Heap(r.args.into()),
        };
        HeldCall {
            row: CallRow { args: &[], ..*r },
            words,
        }
    }

    /// The row again, its words borrowed from here.
    pub fn row(&self) -> CallRow<'_> {
        let args = match &self.words {
            Words::Inline(n, w) => &w[..usize::from(*n)],
            Words::Heap(w) => w,
        };
        CallRow { args, ..self.row }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run(window: usize, ids: &[i64]) -> Vec<i64> {
        let mut r = InOrder::new(window);
        let mut out = Vec::new();
        for &id in ids {
            let n = r.push(id, id, |x| out.push(x));
            assert!(n <= window + 1);
            assert!(r.held() <= window);
        }
        r.drain(|x| out.push(x));
        assert_eq!(r.held(), 0);
        out
    }

    #[test]
    fn late_rows_are_put_back_in_order() {
        assert_eq!(run(8, &[1, 3, 2, 5, 4, 6]), [1, 2, 3, 4, 5, 6]);
        assert_eq!(run(8, &[1, 3, 4, 2]), [1, 2, 3, 4]);
    }

    #[test]
    fn a_row_open_past_the_window_is_passed_over() {
        // id 1 stays open while 2..=5 finish; a window of 3 cannot wait.
        assert_eq!(run(3, &[0, 2, 3, 4, 5, 1]), [0, 2, 3, 4, 5, 1]);
        // Passing over 1 releases 2 at once; 3 and 4 wait for nothing else.
        assert_eq!(run(3, &[0, 3, 2, 5, 1, 4]), [0, 2, 3, 1, 4, 5]);
    }

    #[test]
    fn the_first_id_seen_starts_the_order_and_lower_ones_go_alone() {
        assert_eq!(run(4, &[10, 12, 9, 11]), [10, 9, 11, 12]);
    }

    #[test]
    fn a_repeated_id_is_passed_on_not_dropped() {
        assert_eq!(run(4, &[1, 3, 3, 2]), [1, 3, 2, 3]);
    }

    #[test]
    fn far_jumps_and_gaps_keep_every_row() {
        assert_eq!(run(4, &[1, 100, 3, 1000, 2]), [1, 3, 100, 2, 1000]);
        assert_eq!(run(4, &[5, 7]), [5, 7]);
    }

    proptest! {
        /// Every row comes out exactly once; with a window as large as the
        /// ids, in id order; with any window, rows released together are in
        /// order and the number held never exceeds it.
        #[test]
        fn every_row_once(perm in Just((0..60i64).collect::<Vec<_>>()).prop_shuffle(),
                          window in 1usize..80) {
            let out = run(window, &perm);
            let mut sorted = out.clone();
            sorted.sort_unstable();
            prop_assert_eq!(&sorted, &(0..60).collect::<Vec<_>>());
            if window >= 60 {
                // Ids below the first one seen go alone; the rest are sorted.
                let first = perm[0];
                let tail: Vec<_> = out.iter().copied().filter(|&x| x >= first).collect();
                prop_assert!(tail.windows(2).all(|w| w[0] < w[1]));
            }
        }

        /// Rows that finish at most `window` ids late come out sorted.
        #[test]
        fn bounded_lateness_is_fully_undone(keys in proptest::collection::vec(0i64..16, 1..200)) {
            // Row i finishes at time i + keys[i] (< 16 later): finishing order.
            let mut order: Vec<i64> = (0..keys.len() as i64).collect();
            order.sort_by_key(|&i| (i + keys[i as usize], i));
            // Start from id 0 so no row is below the first seen.
            let mut ids = vec![0];
            ids.extend(order.into_iter().filter(|&i| i != 0));
            let out = run(32, &ids);
            prop_assert_eq!(out, (0..keys.len() as i64).collect::<Vec<_>>());
        }
    }
}
