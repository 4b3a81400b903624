//! When the app writes its state to the address bar and the autosave.
//!
//! A save waits until the state has been still for a moment
//! ([`SAVE_DELAY_MS`]); while it keeps changing (a simulation playing:
//! every frame is a change) one is made at least every
//! [`SAVE_MAX_WAIT_MS`]. While rows load in bulk (Load sample data,
//! Create table with rows) nothing is written: a save then would describe
//! a table still growing (its rows left out, the load to be run again)
//! and cost the load a long task every few seconds, while the save made
//! before the load still holds everything the user had made. When the
//! load has ended or was stopped, and the panels have caught up with it
//! (its progress is gone), the save follows within [`SAVE_DELAY_MS`],
//! however busy the page stays.

/// How long the state must stay unchanged before it is saved, in
/// milliseconds.
pub const SAVE_DELAY_MS: u32 = 400;

/// The longest a save waits while the state keeps changing, in
/// milliseconds.
pub const SAVE_MAX_WAIT_MS: f64 = 3000.0;

/// The User Timing name of a save (the link and the autosave written).
pub const SAVE_MEASURE: &str = "tabletop:save";

/// What to do about saving after a change of the state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SaveStep {
    /// Save now (and forget any timer).
    Now,
    /// Save once the state has been still for [`SAVE_DELAY_MS`] (a timer
    /// set again at each change).
    AfterDelay,
    /// Save nothing now and forget any timer: rows are loading.
    Hold,
}

/// The saving's memory between changes of the state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SaveSchedule {
    /// Since when (milliseconds) a change has waited for its save.
    pending_since: Option<f64>,
    /// A load held the saves back: the next save is due soon.
    held: bool,
}

impl SaveSchedule {
    /// The state changed at `now` (milliseconds); `loading` says whether
    /// a load is in progress (rows written in bulk, or the panels still
    /// catching up with them).
    pub fn changed(&mut self, now: f64, loading: bool) -> SaveStep {
        if loading {
            self.pending_since = None;
            self.held = true;
            return SaveStep::Hold;
        }
        if std::mem::take(&mut self.held) {
            // Counted as having waited all but the delay: saved at the
            // first change after it, or by the timer.
            self.pending_since = Some(now - (SAVE_MAX_WAIT_MS - f64::from(SAVE_DELAY_MS)));
        }
        let since = self.pending_since.unwrap_or(now);
        if now - since >= SAVE_MAX_WAIT_MS {
            self.pending_since = None;
            SaveStep::Now
        } else {
            self.pending_since = Some(since);
            SaveStep::AfterDelay
        }
    }

    /// The timer's save was made.
    pub fn saved(&mut self) {
        self.pending_since = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DELAY: f64 = SAVE_DELAY_MS as f64;

    #[test]
    fn a_still_state_is_saved_after_the_delay_and_a_busy_one_at_least_every_few_seconds() {
        let mut s = SaveSchedule::default();
        assert_eq!(s.changed(0.0, false), SaveStep::AfterDelay);
        s.saved();
        // Changes every frame: the timer keeps being set again, until the
        // longest wait is over.
        let mut steps = Vec::new();
        let mut t = 1000.0;
        while t < 1000.0 + SAVE_MAX_WAIT_MS + 100.0 {
            steps.push((t, s.changed(t, false)));
            t += 16.0;
        }
        let now: Vec<f64> = steps
            .iter()
            .filter(|(_, step)| *step == SaveStep::Now)
            .map(|(t, _)| *t)
            .collect();
        assert_eq!(now.len(), 1, "{now:?}");
        assert!(now[0] - 1000.0 >= SAVE_MAX_WAIT_MS, "{now:?}");
    }

    #[test]
    fn nothing_is_saved_while_rows_load_however_long() {
        let mut s = SaveSchedule::default();
        assert_eq!(s.changed(0.0, false), SaveStep::AfterDelay);
        // The click that starts the load: the pending save is dropped with
        // its timer (it would describe the load half done).
        let mut t = 100.0;
        while t < 20_000.0 {
            assert_eq!(s.changed(t, true), SaveStep::Hold, "at {t} ms");
            t += 16.0;
        }
    }

    #[test]
    fn the_end_of_a_load_is_saved_within_the_delay_even_while_the_page_stays_busy() {
        let mut s = SaveSchedule::default();
        for t in [0.0, 16.0, 5000.0] {
            assert_eq!(s.changed(t, true), SaveStep::Hold);
        }
        // The load ended (or was stopped) at 5016 ms; the panels catch up
        // for a second more, a change every frame.
        let end = 5016.0;
        assert_eq!(s.changed(end, false), SaveStep::AfterDelay);
        let mut t = end + 16.0;
        let saved_at = loop {
            if s.changed(t, false) == SaveStep::Now {
                break t;
            }
            t += 16.0;
            assert!(t < end + 2000.0, "no save a second after the load");
        };
        assert!(
            saved_at - end >= DELAY && saved_at - end < DELAY + 20.0,
            "{saved_at}"
        );
        // Then saves are spaced as usual again.
        assert_eq!(s.changed(saved_at + 16.0, false), SaveStep::AfterDelay);
    }

    #[test]
    fn a_quiet_end_of_a_load_is_saved_by_the_timer() {
        let mut s = SaveSchedule::default();
        assert_eq!(s.changed(0.0, true), SaveStep::Hold);
        assert_eq!(s.changed(10.0, false), SaveStep::AfterDelay);
        s.saved();
        // A change long after starts a fresh wait.
        assert_eq!(s.changed(60_000.0, false), SaveStep::AfterDelay);
    }
}
