//! Emulator parity in the playground: the instance answers as Google's
//! Bigtable emulator does where it differs from production (the CLI's
//! `--emulator-parity`; `tabletop_core::Fidelity`), so a person can see
//! which of their commands pass only on the emulator. The setting lives in
//! the instance (a snapshot keeps it) and in the saved state's
//! `emulator_parity` field (for when the rows are too big to travel).

use tabletop_core::Fidelity;

use super::{AppState, Notice};

impl AppState {
    /// Whether the instance answers as the emulator does.
    #[must_use]
    pub fn emulator_parity(&self) -> bool {
        self.instance.borrow().fidelity().is_emulator()
    }

    /// Turns emulator parity on or off, and says what that means; parity
    /// stays on, saying why, while the instance holds what production
    /// refuses (a row key over 4 KiB, a GC rule that keeps nothing).
    pub(super) fn set_emulator_parity(&mut self, on: bool) {
        let switched = self.instance.borrow_mut().switch_fidelity(fidelity(on));
        let sketched = match switched {
            Ok(n) => n,
            Err(e) => {
                self.notice = Some(Notice {
                    error: true,
                    text: e.message().to_string(),
                });
                return;
            }
        };
        let text = if on {
            "Emulator parity is on: the playground answers as Google's Bigtable emulator does where it differs from production (looser checks, other error codes, writes applied up to a failing mutation). Commands that work only now may fail on Bigtable.".to_string()
        } else if sketched > 0 {
            format!(
                "Emulator parity is off: the playground answers as production Bigtable does. {sketched} HyperLogLog cell(s) held the emulator's raw last input and now hold a sketch of it, as production keeps them."
            )
        } else {
            "Emulator parity is off: the playground answers as production Bigtable does."
                .to_string()
        };
        self.notice = Some(Notice { error: false, text });
    }
}

/// The fidelity the setting names.
pub(super) fn fidelity(emulator_parity: bool) -> Fidelity {
    if emulator_parity {
        Fidelity::Emulator
    } else {
        Fidelity::Production
    }
}

#[cfg(test)]
mod tests {
    use crate::state::console::Tab;
    use crate::state::{Action, AppState, run_console as run, test_app};

    fn last_output(state: &AppState) -> String {
        state
            .console
            .entries
            .last()
            .expect("an entry")
            .output
            .clone()
    }

    #[test]
    fn the_console_answers_as_the_emulator_while_parity_is_on() {
        let state = run(&test_app(), Tab::Cbt, "createtable t families=cf");
        let write = "set t r cf:a=1 nope:b=2";
        let prod = run(&state, Tab::Cbt, write);
        assert!(
            last_output(&prod).contains("code = NotFound"),
            "{}",
            last_output(&prod)
        );
        let on = state.apply(Action::SetEmulatorParity(true));
        assert!(on.emulator_parity());
        assert!(
            on.notice
                .as_ref()
                .is_some_and(|n| n.text.contains("emulator"))
        );
        let emu = run(&on, Tab::Cbt, write);
        assert!(
            last_output(&emu).contains("code = Unknown desc = unknown family \"nope\""),
            "{}",
            last_output(&emu)
        );
        // The emulator kept the mutation before the failing one.
        let read = run(&emu, Tab::Cbt, "read t");
        assert!(
            last_output(&read).contains("cf:a"),
            "{}",
            last_output(&read)
        );
        let off = read.apply(Action::SetEmulatorParity(false));
        assert!(!off.emulator_parity());
        let again = run(&off, Tab::Cbt, "set t r2 nope:b=2");
        assert!(last_output(&again).contains("code = NotFound"));
    }

    /// Under parity a HyperLogLog cell keeps the raw last input; turning
    /// parity off makes it a sketch (and says so), so production's
    /// AddToCell aggregates into it instead of failing.
    #[test]
    fn turning_parity_off_makes_raw_hll_inputs_sketches() {
        let on = test_app().apply(Action::SetEmulatorParity(true));
        let made = run(
            &on,
            Tab::Cbt,
            "createtable h families=visitors:never:inthll",
        );
        let added = run(&made, Tab::Cbt, "addtocell h page visitors:u=5@1000");
        assert!(
            !last_output(&added).contains("error"),
            "{}",
            last_output(&added)
        );
        let off = added.apply(Action::SetEmulatorParity(false));
        assert!(
            off.notice
                .as_ref()
                .is_some_and(|n| !n.error && n.text.contains("1 HyperLogLog cell(s)")),
            "{:?}",
            off.notice.as_ref().map(|n| &n.text)
        );
        let again = run(&off, Tab::Cbt, "addtocell h page visitors:u=7@1000");
        assert_eq!(last_output(&again), "", "the AddToCell aggregates");
    }

    #[test]
    fn parity_stays_on_while_a_table_keeps_what_production_refuses() {
        let on = test_app().apply(Action::SetEmulatorParity(true));
        let made = run(&on, Tab::Cbt, "createtable g families=cf:maxversions=0");
        assert!(
            !last_output(&made).contains("rror"),
            "{}",
            last_output(&made)
        );
        let off = made.apply(Action::SetEmulatorParity(false));
        assert!(off.emulator_parity(), "parity stays on");
        assert!(
            off.notice
                .as_ref()
                .is_some_and(|n| n.error && n.text.contains("table \"g\"")),
            "{:?}",
            off.notice.as_ref().map(|n| &n.text)
        );
        let dropped = run(&off, Tab::Cbt, "deletetable g");
        let off = dropped.apply(Action::SetEmulatorParity(false));
        assert!(!off.emulator_parity());
    }

    #[test]
    fn the_setting_travels_in_links_and_autosave_with_or_without_rows() {
        let on = test_app().apply(Action::SetEmulatorParity(true));
        for for_link in [true, false] {
            let mut shared = on.to_shared(for_link);
            assert!(shared.emulator_parity);
            // With the snapshot, and (rows too big to travel) without it.
            let opened = test_app().apply(Action::OpenLink(Box::new(shared.clone())));
            assert!(opened.emulator_parity());
            shared.snapshot = None;
            let opened = test_app().apply(Action::OpenLink(Box::new(shared)));
            assert!(opened.emulator_parity());
        }
        // Off by default, and a link made with it off opens it off.
        let off = test_app();
        assert!(!off.emulator_parity());
        let shared = off.to_shared(true);
        assert!(!shared.emulator_parity);
        let opened = on.apply(Action::OpenLink(Box::new(shared)));
        assert!(!opened.emulator_parity());
    }
}
