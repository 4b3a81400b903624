//! The console's SQL tab: statements split as `tabletop sql` splits them,
//! run through the core's [`sql::execute_traced`], printed as the CLI
//! prints them.
//!
//! A query's (or EXPLAIN's) report comes from the trace of the one read it
//! made, like a cbt or JSON read's: nothing is taken from the printed plan.

use std::rc::Rc;

use tabletop_core::{Instance, TraceOptions, Traces, sql};

use super::{Entry, ReadReport, Source, Tab, cut};

/// The SQL tab's statements: the text split at `;` (outside literals and
/// comments), or the whole text as one statement when it has none, as
/// `tabletop sql STATEMENT` splits its argument.
pub fn split_sql(text: &str) -> Vec<String> {
    let parts = sql::split_statements(text);
    if parts.len() <= 1 {
        let whole = text.trim();
        return if whole.is_empty() {
            Vec::new()
        } else {
            vec![whole.to_string()]
        };
    }
    parts
        .into_iter()
        .map(|(_, s)| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Whether Enter should run the SQL tab's text: every statement in it is
/// whole (no open literal, nothing cut short), as the core's
/// [`sql::is_complete`] decides for a console reading line by line.
pub fn sql_ready(text: &str) -> bool {
    let parts = split_sql(text);
    !parts.is_empty() && parts.iter().all(|p| sql::is_complete(p))
}

/// A table id as a GoogleSQL name: backquoted unless it is a plain
/// identifier.
pub fn sql_name(id: &str) -> String {
    let plain = id
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        id.to_string()
    } else {
        format!("`{}`", id.replace('\\', "\\\\").replace('`', "\\`"))
    }
}

/// Runs one SQL statement through [`sql::execute_traced`], printing what
/// `tabletop sql` prints: the outcome's text, or the error. Reads (SELECT
/// and EXPLAIN) report what they cost from the trace of their read,
/// recorded with `options`.
pub fn run_sql(instance: &mut Instance, statement: &str, options: TraceOptions) -> Entry {
    let mut traces = Traces::new(options);
    let result = sql::execute_traced(instance, statement, &mut traces);
    let trace = traces.last_read().filter(|_| result.is_ok()).cloned();
    let (output, ok, writes) = match result {
        Ok(outcome) => (outcome.to_text(), true, outcome.changes_state()),
        Err(e) => (format!("{e}\n"), false, false),
    };
    let (output, cut_from) = cut(output);
    Entry {
        id: 0,
        tab: Tab::Sql,
        source: Source::Typed,
        input: statement.to_string(),
        input_cut_from: None,
        output,
        cut_from,
        rows_not_printed: 0,
        ok,
        read: trace.as_ref().map(|t| ReadReport::from_trace(t, true)),
        trace: trace.map(Rc::new),
        writes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::layout::Panels;
    use crate::state::{Action, AppState, Boot, TestClock};

    const NOW: i64 = 1_700_000_000_000_000;

    use crate::state::test_app as app;

    fn sql(state: &AppState, text: &str) -> AppState {
        state
            .apply(Action::ConsoleTab(Tab::Sql))
            .apply(Action::ConsoleInput(text.into()))
            .apply(Action::ConsoleRun)
    }

    #[test]
    fn the_sql_tab_prints_what_tabletop_sql_prints() {
        let state = app();
        // The same history as the app's instance (a restored snapshot
        // would number its tablets afresh).
        let mut twin = Instance::default();
        twin.set_now(NOW);
        crate::demo::load(&mut twin, NOW).unwrap();
        let query = "SELECT _key, stats_summary['os_build'] AS build FROM `mobile-time-series` WHERE STARTS_WITH(_key, 'phone#')";
        let ran = sql(&state, query);
        let entry = ran.console.entries.last().unwrap();
        assert_eq!(entry.tab, Tab::Sql);
        assert!(entry.ok, "{}", entry.output);
        assert_eq!(
            entry.output,
            sql::execute(&mut twin, query).unwrap().to_text()
        );
        assert!(
            entry.output.contains("phone#4c410523#20200501"),
            "{}",
            entry.output
        );
        // The report is the core's trace of the query's read.
        let report = entry.read.clone().unwrap();
        let mut traces = Traces::new(TraceOptions::default());
        sql::execute_traced(&mut twin.clone(), query, &mut traces).unwrap();
        let core = traces.last_read().unwrap();
        assert_eq!(report, ReadReport::from_trace(core, true));
        assert_eq!(entry.trace.as_deref(), Some(core));
        assert_eq!((report.rows_returned, report.rows_seen), (3, 3));
        assert_eq!(report.tablets, core.read.tablets);
        assert_eq!(report.tablets.len(), 1);

        let explain = format!("EXPLAIN {query}");
        let ran = sql(&ran, &explain);
        let entry = ran.console.entries.last().unwrap();
        assert_eq!(
            entry.output,
            sql::execute(&mut twin, &explain).unwrap().to_text()
        );
        assert!(entry.output.contains("phone#"), "{}", entry.output);

        // Several statements run one after another; errors are flagged.
        let ran = sql(&ran, "SELECT 1 AS one;\nSELEKT 2;");
        let last: Vec<&Entry> = ran
            .console
            .entries
            .iter()
            .rev()
            .take(2)
            .map(|e| e.as_ref())
            .collect();
        assert!(
            !last[0].ok && last[0].output.contains("Syntax error"),
            "{}",
            last[0].output
        );
        assert!(last[1].ok && last[1].input == "SELECT 1 AS one");
        assert_eq!(ran.console.history.last().unwrap().0, Tab::Sql);

        // The tab travels in share links with its input.
        let typed = ran.apply(Action::ConsoleInput("SELECT 2".into()));
        let shared = typed.to_shared(true);
        assert_eq!(shared.tab, "sql");
        let back = AppState::new(Rc::new(TestClock::new(NOW, 0.5)), false, Panels::default())
            .apply(Action::Boot(Boot::Shared(Box::new(shared))));
        assert_eq!(back.console.tab, Tab::Sql);
        assert_eq!(back.console.input(), "SELECT 2");
    }

    /// A logical view made in the JSON tab is read by the SQL tab: both
    /// run on the app's one instance.
    #[test]
    fn the_sql_tab_reads_logical_views_made_in_the_json_tab() {
        let state = app();
        let create = r#"{"method": "createLogicalView", "request": {"parent": "projects/tabletop/instances/playground", "logicalViewId": "phones", "logicalView": {"query": "SELECT _key AS id FROM `mobile-time-series` WHERE STARTS_WITH(_key, 'phone#')"}}}"#;
        let made = state
            .apply(Action::ConsoleTab(Tab::Json))
            .apply(Action::ConsoleInput(create.into()))
            .apply(Action::ConsoleRun);
        let entry = made.console.entries.last().unwrap();
        assert!(entry.ok, "{}", entry.output);
        let ran = sql(
            &made,
            "SELECT id FROM phones WHERE id = b'phone#4c410523#20200501'",
        );
        let entry = ran.console.entries.last().unwrap();
        assert!(entry.ok, "{}", entry.output);
        assert!(entry.output.contains("1 row"), "{}", entry.output);
    }

    #[test]
    fn statements_split_like_the_cli() {
        assert_eq!(split_sql("SELECT 1"), ["SELECT 1"]);
        assert_eq!(split_sql("SELECT\n  1\n"), ["SELECT\n  1"]);
        assert_eq!(
            split_sql("SELECT 1; SELECT ';'; "),
            ["SELECT 1", "SELECT ';'"]
        );
        assert!(split_sql("  ").is_empty());
    }
}
