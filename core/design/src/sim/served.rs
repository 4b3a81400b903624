//! Who served which keys when: the simulated tablets' key ranges and
//! nodes over the run, so that a heatmap cell can name the tablet and the
//! node that served its keys during its time bucket, although the tablets
//! split, merge and move as the run goes.
//!
//! The log keeps one span per tablet and node for as long as the tablet
//! keeps its range and node: a split, a merge or a move closes the span
//! and opens new ones. Its size grows with the balancer's changes, not
//! with the run's length.

use serde::{Deserialize, Serialize};

use super::cluster::Tablet;

/// A tablet serving a key range from one node for a while.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServedSpan {
    /// The tablet id.
    pub tablet: u64,
    /// The node serving it.
    pub node: u32,
    /// The fine key buckets `[first, last)` it covers.
    pub fine: [u32; 2],
    /// Seconds into the run `[from, to)` it served them (`to` is infinite
    /// while it still does).
    pub seconds: [f64; 2],
}

impl ServedSpan {
    /// The heatmap columns `[first, last)` of `bucket_seconds` each that
    /// this span served during (at least part of each); `u32::MAX` for
    /// the end of a span still open.
    #[must_use]
    pub fn columns(&self, bucket_seconds: f64) -> [u32; 2] {
        let bs = bucket_seconds.max(1e-9);
        // A small slack, so a change exactly at a column's edge belongs
        // to the column after it only.
        let first = (self.seconds[0] / bs + 1e-9).floor().max(0.0) as u32;
        let last = if self.seconds[1].is_finite() {
            ((self.seconds[1] / bs - 1e-9).ceil().max(0.0) as u32).max(first + 1)
        } else {
            u32::MAX
        };
        [first, last]
    }
}

/// The spans of a run so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct ServedLog {
    closed: Vec<ServedSpan>,
    open: Vec<ServedSpan>,
}

impl ServedLog {
    /// Notes the tablets as they are at `now` (seconds into the run):
    /// spans whose tablet, range or node changed end now; new ones begin.
    pub fn note(&mut self, now: f64, tablets: &[Tablet]) {
        let same = |s: &ServedSpan, t: &Tablet| {
            s.tablet == t.id && s.node == t.node && s.fine == [t.lo, t.hi]
        };
        if self.open.len() == tablets.len()
            && self.open.iter().zip(tablets).all(|(s, t)| same(s, t))
        {
            return;
        }
        // Both are in key order, each range starting once: a tablet's
        // span is found by its first bucket.
        let find = |lo: u32| tablets.binary_search_by_key(&lo, |t| t.lo).ok();
        let mut still = Vec::with_capacity(tablets.len());
        for mut s in self.open.drain(..) {
            if find(s.fine[0])
                .and_then(|i| tablets.get(i))
                .is_some_and(|t| same(&s, t))
            {
                still.push(s);
            } else {
                s.seconds[1] = now;
                self.closed.push(s);
            }
        }
        let kept = still.len();
        for t in tablets {
            let known = still[..kept]
                .binary_search_by_key(&t.lo, |s| s.fine[0])
                .is_ok_and(|i| same(&still[i], t));
            if !known {
                still.push(ServedSpan {
                    tablet: t.id,
                    node: t.node,
                    fine: [t.lo, t.hi],
                    seconds: [now, f64::INFINITY],
                });
            }
        }
        still.sort_by_key(|s| s.fine[0]);
        self.open = still;
    }

    /// Every span, ended ones first (each group in key order).
    pub fn spans(&self) -> Vec<ServedSpan> {
        self.closed.iter().chain(&self.open).copied().collect()
    }
}
