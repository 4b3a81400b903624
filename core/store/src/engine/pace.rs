//! How a budgeted tick spends its time: between two pieces of work (a
//! tablet flushed or compacted, two tablets merged) it asks its [`Pace`]
//! whether the next may start and whether time is up.
//!
//! Hosts give either a bare "out of time?" test ([`OutOfTime`]: every
//! piece starts, the tick stops after one once time is up) or a clock and
//! a deadline ([`Deadline`]: a piece starts only when its cost, estimated
//! from its bytes at the pace measured on earlier pieces ([`TickPace`]),
//! fits in the time left). The engine never reads a clock itself.

/// What a tick asks between pieces of work.
pub(crate) trait Pace {
    /// Whether a piece of work over about `bytes` logical bytes may start
    /// now. A piece that may not is left, with everything after it, for a
    /// later tick.
    fn may_start(&mut self, bytes: u64) -> bool;
    /// The piece last allowed by [`Pace::may_start`] is done.
    fn done(&mut self, bytes: u64);
    /// Whether the tick should stop now that a piece is done.
    fn out_of_time(&mut self) -> bool;
}

/// A pace that starts every piece and stops once the host's test says so.
pub(crate) struct OutOfTime<'c>(pub(crate) &'c mut dyn FnMut() -> bool);

impl Pace for OutOfTime<'_> {
    fn may_start(&mut self, _bytes: u64) -> bool {
        true
    }

    fn done(&mut self, _bytes: u64) {}

    fn out_of_time(&mut self) -> bool {
        (self.0)()
    }
}

/// Budgeted ticks in a row that did nothing because their first piece did
/// not fit, after which the next one starts its first piece whatever its
/// cost (so that a piece bigger than any budget still gets done).
pub(crate) const STARVED_TICKS: u32 = 2;

/// Pieces smaller than this teach [`TickPace`] nothing: their time is
/// mostly the clock's grain and fixed costs.
const MIN_SAMPLE_BYTES: u64 = 16 * 1024;

/// What an instance has learned of its ticks' speed, kept between ticks.
#[derive(Clone, Debug)]
pub(crate) struct TickPace {
    /// Estimated milliseconds per logical byte of a piece of work: set to
    /// a slower measurement at once, eased towards faster ones, so the
    /// estimate errs on the slow side.
    ms_per_byte: f64,
    /// Budgeted ticks in a row that did nothing because their first piece
    /// did not fit.
    stalled: u32,
}

impl Default for TickPace {
    fn default() -> Self {
        TickPace {
            // 40 ns a byte: a 128 KiB compaction in about 5 ms, slower
            // than this engine runs natively or in a browser, until
            // measured.
            ms_per_byte: 40e-6,
            stalled: 0,
        }
    }
}

impl TickPace {
    /// The estimated time of a piece of work over `bytes`, in ms.
    pub(crate) fn estimate_ms(&self, bytes: u64) -> f64 {
        self.ms_per_byte * bytes as f64
    }

    /// Learns from a piece over `bytes` that took `ms`.
    fn learn(&mut self, bytes: u64, ms: f64) {
        if bytes < MIN_SAMPLE_BYTES || !ms.is_finite() || ms < 0.0 {
            return;
        }
        let seen = ms / bytes as f64;
        self.ms_per_byte = if seen > self.ms_per_byte {
            seen
        } else {
            0.9 * self.ms_per_byte + 0.1 * seen
        };
    }
}

/// A pace with a clock and a deadline (both in the host's milliseconds).
pub(crate) struct Deadline<'c> {
    clock: &'c mut dyn FnMut() -> f64,
    deadline_ms: f64,
    pace: &'c mut TickPace,
    /// When the piece allowed last started.
    started_ms: Option<f64>,
    /// Whether any piece was done in this tick.
    did_any: bool,
    /// Whether a piece was refused in this tick.
    refused: bool,
}

impl<'c> Deadline<'c> {
    pub(crate) fn new(
        clock: &'c mut dyn FnMut() -> f64,
        deadline_ms: f64,
        pace: &'c mut TickPace,
    ) -> Self {
        Deadline {
            clock,
            deadline_ms,
            pace,
            started_ms: None,
            did_any: false,
            refused: false,
        }
    }

    /// Ends the tick: counts it as stalled if it refused its first piece.
    pub(crate) fn finish(self) {
        if self.did_any {
            self.pace.stalled = 0;
        } else if self.refused {
            self.pace.stalled += 1;
        }
    }
}

impl Pace for Deadline<'_> {
    fn may_start(&mut self, bytes: u64) -> bool {
        let now = (self.clock)();
        let left = self.deadline_ms - now;
        let fits = left > 0.0 && self.pace.estimate_ms(bytes) <= left;
        let starved = !self.did_any && self.pace.stalled >= STARVED_TICKS;
        if fits || starved {
            self.started_ms = Some(now);
            true
        } else {
            self.refused = true;
            false
        }
    }

    fn done(&mut self, bytes: u64) {
        self.did_any = true;
        if let Some(start) = self.started_ms.take() {
            let ms = (self.clock)() - start;
            self.pace.learn(bytes, ms);
        }
    }

    fn out_of_time(&mut self) -> bool {
        (self.clock)() >= self.deadline_ms
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn a_piece_starts_only_when_its_estimate_fits_in_the_time_left() {
        let mut pace = TickPace::default();
        let t = 0.0;
        let mut clock = || t;
        let mut d = Deadline::new(&mut clock, 10.0, &mut pace);
        // 40 ns a byte: 100 KB in 4 ms fits in 10 ms, 1 MB in 40 ms does not.
        assert!(d.may_start(100_000));
        d.done(100_000);
        assert!(!d.may_start(1_000_000));
        d.finish();
        assert_eq!(pace.stalled, 0, "a tick that did something has not stalled");
    }

    #[test]
    fn measured_pieces_set_the_pace_slow_at_once_and_fast_gradually() {
        let mut pace = TickPace::default();
        pace.learn(100_000, 10.0);
        assert!((pace.ms_per_byte - 1e-4).abs() < 1e-12);
        pace.learn(100_000, 1.0);
        assert!(pace.ms_per_byte < 1e-4 && pace.ms_per_byte > 1e-5);
        let before = pace.ms_per_byte;
        pace.learn(100, 50.0);
        assert_eq!(pace.ms_per_byte, before, "tiny pieces teach nothing");
    }

    #[test]
    fn ticks_refused_in_a_row_end_with_one_that_starts_whatever_the_cost() {
        let mut pace = TickPace::default();
        let mut runs = 0;
        for _ in 0..=STARVED_TICKS {
            let mut clock = || 0.0;
            let mut d = Deadline::new(&mut clock, 1.0, &mut pace);
            if d.may_start(10_000_000) {
                runs += 1;
                d.done(10_000_000);
            }
            d.finish();
        }
        assert_eq!(runs, 1);
        assert_eq!(pace.stalled, 0);
    }
}
