//! What the console offers and how its transcript marks what ran.
//!
//! The suggestion chips and the Command box's placeholder are built from
//! the tables there are now: the selected one (or the first), its first
//! column family, and a key prefix taken from a row of it, so a chip
//! never names a table that does not exist. With no tables at all they
//! suggest creating one, and `help`.
//!
//! Every transcript entry gets a mark: `cbt` prints nothing when
//! `createtable` or `set` succeeds, and the output stays byte for byte
//! what `cbt` prints, so the mark beside the command is what tells a
//! silent success from a failure.

use crate::state::console::{Entry, Tab};
use crate::state::tools::sql_name;
use crate::view_model::filter::shell_quote;
use crate::view_model::format::format_count;
use crate::view_model::keys::SEPARATORS;
use crate::view_model::schema::TableSummary;

/// The table a suggestion creates when there is none yet.
pub const NEW_TABLE: &str = "my-table";

/// One suggestion: a command for a tab, and the chip's label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The tab the command goes to (a click switches to it).
    pub tab: Tab,
    /// The command put into the Command box.
    pub text: String,
    /// What the chip shows.
    pub label: String,
}

impl Suggestion {
    fn new(tab: Tab, text: String) -> Suggestion {
        Suggestion {
            tab,
            label: text.clone(),
            text,
        }
    }

    fn labelled(tab: Tab, text: String, label: String) -> Suggestion {
        Suggestion { tab, text, label }
    }
}

/// The chips and the placeholder of one tab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestions {
    /// The chips, in order.
    pub chips: Vec<Suggestion>,
    /// The Command box's placeholder.
    pub placeholder: String,
}

/// What the suggestions are built from.
#[derive(Clone, Copy, Debug)]
pub struct SuggestionInput<'a> {
    /// The tables there are.
    pub tables: &'a [TableSummary],
    /// The selected table.
    pub selected: Option<&'a str>,
    /// A row key and the table it belongs to (the first row on screen).
    pub sample: Option<(&'a str, &'a [u8])>,
    /// The instance's resource name, for JSON requests.
    pub instance_name: &'a str,
}

/// The table suggestions are about: the selected one if it exists, else
/// the first.
fn chosen<'a>(input: &SuggestionInput<'a>) -> Option<&'a TableSummary> {
    input
        .selected
        .and_then(|s| input.tables.iter().find(|t| t.name == s))
        .or_else(|| input.tables.first())
}

/// A prefix of `key` worth a prefix read: the key up to and including its
/// first separator (`phone#` of `phone#4c410523#20200501`), or else its
/// leading letters (`user` of `user00042`). `None` for keys that are not
/// plain printable text, or have no such prefix. The prefix never holds
/// a quote, a backslash or a backtick, so it goes into a command as is.
pub fn key_prefix(key: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(key).ok()?;
    let typeable = |c: char| c.is_ascii_graphic() && !matches!(c, '\'' | '"' | '\\' | '`');
    if let Some(at) = text.find(SEPARATORS)
        && at > 0
    {
        let prefix = &text[..=at];
        return prefix.chars().all(typeable).then(|| prefix.to_string());
    }
    let letters = text.chars().take_while(char::is_ascii_alphabetic).count();
    (letters >= 2 && letters < text.len()).then(|| text[..letters].to_string())
}

/// A word for a `cbt` command line: as it is when the tokenizer reads it
/// so (`#` inside a word is not a comment), quoted otherwise.
fn cbt_word(word: &str) -> String {
    let plain = !word.is_empty()
        && !word.starts_with('#')
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    '-' | '_' | '.' | '/' | ':' | '=' | ',' | '@' | '+' | '%' | '#'
                )
        });
    if plain {
        word.to_string()
    } else {
        shell_quote(word)
    }
}

/// The chips and placeholder of `tab`.
pub fn suggestions(tab: Tab, input: &SuggestionInput<'_>) -> Suggestions {
    let Some(table) = chosen(input) else {
        return empty_suggestions(tab, input.instance_name);
    };
    let name = table.name.as_str();
    let family = table.families.first().map(|f| f.name.as_str());
    let prefix = input
        .sample
        .filter(|(t, _)| *t == name)
        .and_then(|(_, key)| key_prefix(key));
    match tab {
        Tab::Cbt => cbt_suggestions(name, family, prefix.as_deref()),
        Tab::Json => json_suggestions(name, family, input.instance_name),
        Tab::Sql => sql_suggestions(name, prefix.as_deref()),
    }
}

fn cbt_suggestions(table: &str, family: Option<&str>, prefix: Option<&str>) -> Suggestions {
    let t = cbt_word(table);
    let mut chips = vec![
        Suggestion::new(Tab::Cbt, "ls".into()),
        Suggestion::new(Tab::Cbt, format!("ls {t}")),
        Suggestion::new(Tab::Cbt, format!("read {t} count=5")),
    ];
    let narrow = match (prefix, family) {
        (Some(p), Some(f)) => Some(format!(
            "read {t} {} {} count=3",
            cbt_word(&format!("prefix={p}")),
            cbt_word(&format!("columns={f}:"))
        )),
        (Some(p), None) => Some(format!(
            "read {t} {} count=3",
            cbt_word(&format!("prefix={p}"))
        )),
        (None, Some(f)) => Some(format!(
            "read {t} {} count=3",
            cbt_word(&format!("columns={f}:"))
        )),
        (None, None) => None,
    };
    chips.extend(narrow.map(|text| Suggestion::new(Tab::Cbt, text)));
    chips.push(Suggestion::new(Tab::Cbt, format!("count {t}")));
    chips.push(Suggestion::new(Tab::Cbt, "help".into()));
    let example = match prefix {
        Some(p) => format!("read {t} {} count=5", cbt_word(&format!("prefix={p}"))),
        None => format!("read {t} count=5"),
    };
    Suggestions {
        chips,
        placeholder: format!("a cbt command, e.g. {example}"),
    }
}

fn json_suggestions(table: &str, family: Option<&str>, instance: &str) -> Suggestions {
    let table_name = format!("{instance}/tables/{table}");
    let line = |value: serde_json::Value| tabletop_core::api::to_line(&value);
    let mut chips = vec![
        Suggestion::labelled(
            Tab::Json,
            line(serde_json::json!({"method": "listTables", "request": {"parent": instance}})),
            "listTables".into(),
        ),
        Suggestion::labelled(
            Tab::Json,
            line(serde_json::json!({
                "method": "readRows",
                "request": {"tableName": table_name, "rowsLimit": "3"},
            })),
            format!("readRows {table} (3 rows)"),
        ),
    ];
    if let Some(f) = family {
        chips.push(Suggestion::labelled(
            Tab::Json,
            line(serde_json::json!({
                "method": "readRows",
                "request": {
                    "tableName": table_name,
                    "rowsLimit": "3",
                    "filter": {"familyNameRegexFilter": f},
                },
            })),
            format!("readRows {table} (family {f})"),
        ));
    }
    chips.push(Suggestion::labelled(
        Tab::Json,
        line(serde_json::json!({"method": "sampleRowKeys", "request": {"tableName": table_name}})),
        format!("sampleRowKeys {table}"),
    ));
    Suggestions {
        chips,
        placeholder: format!(
            r#"a request, e.g. {{"method": "readRows", "request": {{"tableName": "…/tables/{table}", "rowsLimit": "5"}}}}"#
        ),
    }
}

fn sql_suggestions(table: &str, prefix: Option<&str>) -> Suggestions {
    let t = sql_name(table);
    let mut chips = vec![Suggestion::new(
        Tab::Sql,
        format!("SELECT * FROM {t} LIMIT 5"),
    )];
    match prefix {
        Some(p) => {
            chips.push(Suggestion::new(
                Tab::Sql,
                format!("SELECT _key FROM {t} WHERE STARTS_WITH(_key, '{p}') LIMIT 10"),
            ));
            chips.push(Suggestion::new(
                Tab::Sql,
                format!("EXPLAIN SELECT _key FROM {t} WHERE STARTS_WITH(_key, '{p}')"),
            ));
        }
        None => chips.push(Suggestion::new(
            Tab::Sql,
            format!("EXPLAIN SELECT _key FROM {t} LIMIT 10"),
        )),
    }
    chips.push(Suggestion::new(Tab::Sql, "SHOW MATERIALIZED VIEWS".into()));
    Suggestions {
        chips,
        placeholder: format!("a GoogleSQL statement, e.g. SELECT _key FROM {t} LIMIT 5"),
    }
}

/// With no tables: create one, or ask for help.
fn empty_suggestions(tab: Tab, instance: &str) -> Suggestions {
    let create = format!("createtable {NEW_TABLE} families=cf");
    match tab {
        Tab::Cbt => Suggestions {
            chips: vec![
                Suggestion::new(Tab::Cbt, create.clone()),
                Suggestion::new(Tab::Cbt, "help".into()),
            ],
            placeholder: format!("no tables yet: try {create}"),
        },
        Tab::Json => {
            let mut request = tabletop_core::CreateTableRequest {
                table_id: NEW_TABLE.into(),
                ..Default::default()
            };
            request
                .schema
                .families
                .insert("cf".into(), tabletop_core::ColumnFamily::with_gc(None));
            Suggestions {
                chips: vec![
                    Suggestion::labelled(
                        Tab::Json,
                        crate::view_model::schema::create_table_line(instance, &request),
                        format!("createTable {NEW_TABLE}"),
                    ),
                    Suggestion::labelled(
                        Tab::Json,
                        tabletop_core::api::to_line(
                            &serde_json::json!({"method": "listTables", "request": {"parent": instance}}),
                        ),
                        "listTables".into(),
                    ),
                ],
                placeholder: format!(
                    r#"no tables yet: try {{"method": "createTable", "request": {{"tableId": "{NEW_TABLE}", …}}}}"#
                ),
            }
        }
        Tab::Sql => Suggestions {
            chips: vec![
                Suggestion::labelled(Tab::Cbt, create.clone(), format!("{create} (cbt tab)")),
                Suggestion::new(Tab::Cbt, "help".into()),
            ],
            placeholder: "no tables yet: create one first (createtable in the cbt tab)".into(),
        },
    }
}

/// How a transcript entry is marked beside its command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryMark {
    /// It printed something, which speaks for itself.
    Printed,
    /// It succeeded and printed nothing (`createtable`, `set`, …).
    Done,
    /// It failed.
    Failed,
}

impl EntryMark {
    /// The mark's symbol (hidden from screen readers, which read
    /// [`EntryMark::text`]).
    pub fn symbol(self) -> &'static str {
        match self {
            EntryMark::Printed => "",
            EntryMark::Done => "✓",
            EntryMark::Failed => "✗",
        }
    }

    /// The mark in words.
    pub fn text(self) -> &'static str {
        match self {
            EntryMark::Printed => "",
            EntryMark::Done => "done",
            EntryMark::Failed => "failed",
        }
    }
}

/// The mark of `entry`.
pub fn entry_mark(entry: &Entry) -> EntryMark {
    if !entry.ok {
        EntryMark::Failed
    } else if entry.output.is_empty() && entry.rows_not_printed == 0 {
        EntryMark::Done
    } else {
        EntryMark::Printed
    }
}

/// Why a silent success printed nothing, for the mark's tooltip.
pub fn done_title(tab: Tab) -> &'static str {
    match tab {
        Tab::Cbt => "Succeeded: cbt prints nothing when this command works",
        Tab::Json | Tab::Sql => "Succeeded, with nothing to print",
    }
}

/// What the transcript says under a command whose echo was cut.
pub fn echo_note(entry: &Entry) -> Option<String> {
    let total = entry.input_cut_from?;
    let shown = entry.input.chars().count();
    Some(format!(
        "(command shortened here: {} of its {} characters shown; it ran in full)",
        format_count(shown as u64),
        format_count(total as u64)
    ))
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use tabletop_core::Instance;
    use tabletop_core::cbt::{self, NoHost};

    use super::*;
    use crate::state::console::{ConsoleState, MAX_ECHO_CHARS};
    use crate::view_model::schema::tables;

    const INSTANCE: &str = "projects/p/instances/i";

    fn instance(lines: &[&str]) -> Instance {
        let mut db = Instance::default();
        for line in lines {
            cbt::run_line(&mut db, line).unwrap();
        }
        db
    }

    fn texts(s: &Suggestions) -> Vec<&str> {
        s.chips.iter().map(|c| c.text.as_str()).collect()
    }

    /// Every table a chip or the placeholder names, checked against the
    /// tables there are.
    fn assert_only_existing(s: &Suggestions, existing: &[TableSummary]) {
        let names: Vec<&str> = existing.iter().map(|t| t.name.as_str()).collect();
        for text in texts(s).into_iter().chain([s.placeholder.as_str()]) {
            for word in text.split([' ', '"', '`', '/']) {
                if word.starts_with("t-") {
                    assert!(names.contains(&word), "{word} does not exist: {text}");
                }
            }
        }
    }

    #[test]
    fn chips_name_the_selected_table_its_family_and_a_real_prefix() {
        let db = instance(&["createtable t-phones families=stats,extra"]);
        let tables = tables(&db);
        let key = b"phone#4c410523#20200501";
        let input = SuggestionInput {
            tables: &tables,
            selected: Some("t-phones"),
            sample: Some(("t-phones", key)),
            instance_name: INSTANCE,
        };
        let cbt = suggestions(Tab::Cbt, &input);
        assert_eq!(
            texts(&cbt),
            [
                "ls",
                "ls t-phones",
                "read t-phones count=5",
                "read t-phones prefix=phone# columns=extra: count=3",
                "count t-phones",
                "help"
            ]
        );
        assert_eq!(
            cbt.placeholder,
            "a cbt command, e.g. read t-phones prefix=phone# count=5"
        );
        let sql = suggestions(Tab::Sql, &input);
        assert!(
            texts(&sql)
                .contains(&"EXPLAIN SELECT _key FROM `t-phones` WHERE STARTS_WITH(_key, 'phone#')"),
            "{sql:?}"
        );
        let json = suggestions(Tab::Json, &input);
        assert!(json.chips.iter().all(|c| c.tab == Tab::Json));
        assert!(
            json.chips[1]
                .text
                .contains(r#""tableName":"projects/p/instances/i/tables/t-phones""#)
        );
        assert!(
            json.chips[2]
                .text
                .contains(r#""familyNameRegexFilter":"extra""#)
        );
        // Every chip runs as it stands.
        let mut db = db;
        cbt::run_line(&mut db, "set t-phones phone#1 stats:q=v").unwrap();
        let mut console = ConsoleState::default();
        for tab in [Tab::Cbt, Tab::Json, Tab::Sql] {
            for chip in suggestions(tab, &input).chips {
                console.run(
                    &mut db,
                    &mut NoHost,
                    chip.tab,
                    &chip.text,
                    crate::state::console::Source::Typed,
                );
                let entry = console.entries.last().unwrap();
                assert!(entry.ok, "{} failed: {}", chip.text, entry.output);
            }
        }
    }

    #[test]
    fn chips_follow_the_tables_and_never_name_a_missing_one() {
        let db = instance(&["createtable t-new families=cf"]);
        let tables = tables(&db);
        // The selection and the sampled row still point at a deleted table.
        let input = SuggestionInput {
            tables: &tables,
            selected: Some("t-gone"),
            sample: Some(("t-gone", b"phone#1")),
            instance_name: INSTANCE,
        };
        for tab in [Tab::Cbt, Tab::Json, Tab::Sql] {
            let s = suggestions(tab, &input);
            assert_only_existing(&s, &tables);
            assert!(
                s.chips.iter().any(|c| c.text.contains("t-new")),
                "{tab:?}: {s:?}"
            );
            // The prefix came from another table's row: not offered here.
            assert!(
                !s.placeholder.contains("phone#")
                    && !texts(&s).iter().any(|t| t.contains("phone#"))
            );
        }
    }

    #[test]
    fn with_no_tables_the_chips_create_one_or_ask_for_help() {
        let input = SuggestionInput {
            tables: &[],
            selected: Some("t-gone"),
            sample: None,
            instance_name: INSTANCE,
        };
        let cbt = suggestions(Tab::Cbt, &input);
        assert_eq!(texts(&cbt), ["createtable my-table families=cf", "help"]);
        assert!(cbt.placeholder.contains("createtable my-table"));
        let sql = suggestions(Tab::Sql, &input);
        assert_eq!(
            sql.chips[0].tab,
            Tab::Cbt,
            "SQL needs a table: the chip goes to cbt"
        );
        let json = suggestions(Tab::Json, &input);
        let mut db = Instance::default();
        let mut console = ConsoleState::default();
        console.run(
            &mut db,
            &mut NoHost,
            Tab::Json,
            &json.chips[0].text,
            crate::state::console::Source::Typed,
        );
        assert!(console.entries[0].ok, "{}", console.entries[0].output);
        assert_eq!(db.list_tables()[0].id, NEW_TABLE);
    }

    #[test]
    fn key_prefixes_are_plain_text_up_to_a_separator() {
        assert_eq!(key_prefix(b"phone#4c41#2020").as_deref(), Some("phone#"));
        assert_eq!(key_prefix(b"07:user:1").as_deref(), Some("07:"));
        assert_eq!(key_prefix(b"user00042").as_deref(), Some("user"));
        assert_eq!(key_prefix(b"user"), None, "the whole key is no prefix");
        assert_eq!(key_prefix(b"12345"), None);
        assert_eq!(key_prefix(b"#lead"), None);
        assert_eq!(key_prefix(b"it's#1"), None, "a quote would need quoting");
        assert_eq!(key_prefix(b"a b#1"), None);
        assert_eq!(key_prefix(&[0xff, b'#']), None);
    }

    #[test]
    fn odd_table_and_family_names_are_quoted_for_cbt() {
        assert_eq!(cbt_word("prefix=phone#"), "prefix=phone#");
        assert_eq!(cbt_word("#x"), "'#x'");
        assert_eq!(cbt_word("a b"), "'a b'");
    }

    fn entry(ok: bool, output: &str) -> Entry {
        Entry {
            id: 0,
            tab: Tab::Cbt,
            source: crate::state::console::Source::Typed,
            input: "createtable t".into(),
            input_cut_from: None,
            output: output.into(),
            cut_from: None,
            rows_not_printed: 0,
            ok,
            read: None,
            trace: None,
            writes: true,
        }
    }

    #[test]
    fn silent_successes_are_marked_done_and_failures_failed() {
        let mut db = Instance::default();
        let mut console = ConsoleState::default();
        for line in [
            "createtable t families=cf",
            "set t k cf:q=v",
            "ls",
            "createtable t",
        ] {
            console.run(
                &mut db,
                &mut NoHost,
                Tab::Cbt,
                line,
                crate::state::console::Source::Typed,
            );
        }
        let marks: Vec<EntryMark> = console.entries.iter().map(|e| entry_mark(e)).collect();
        assert_eq!(
            marks,
            [
                EntryMark::Done,
                EntryMark::Done,
                EntryMark::Printed,
                EntryMark::Failed
            ]
        );
        assert_eq!(console.entries[0].output, "", "cbt's silence is kept");
        assert_eq!(entry_mark(&entry(false, "")), EntryMark::Failed);
        assert_eq!(
            (EntryMark::Done.symbol(), EntryMark::Done.text()),
            ("✓", "done")
        );
    }

    #[test]
    fn a_cut_echo_says_how_much_was_left_out() {
        let mut cut = entry(true, "");
        assert_eq!(echo_note(&cut), None);
        cut.input = "x".repeat(MAX_ECHO_CHARS);
        cut.input_cut_from = Some(3_000_000);
        assert_eq!(
            echo_note(&Rc::new(cut)).unwrap(),
            "(command shortened here: 2,000 of its 3,000,000 characters shown; it ran in full)"
        );
    }
}
