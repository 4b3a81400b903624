//! The console's change stream feed: the selected table's newest recorded
//! changes as lines (time, row key, USER or GC, what changed), newest
//! first, read from the core's change stream (`change_stream_tail`), never
//! from what a command printed.

use tabletop_core::{
    AggregateInput, ChangeKind, ChangeRecord, Instance, MAX_CHANGE_RETENTION_MICROS,
    MIN_CHANGE_RETENTION_MICROS, Mutation, escape_bytes,
};

use super::format::format_timestamp;
use super::keys::DisplayKey;

/// How many of the newest changes the feed shows.
pub const FEED_LINES: usize = 60;
/// A summary longer than this many characters is cut, with a count of
/// the mutations left out.
const SUMMARY_CHARS: usize = 140;
/// One day in microseconds.
const DAY_MICROS: i64 = 86_400_000_000;

/// The retention the feed's *Enable* offers: Bigtable's shortest, one day.
pub const OFFERED_RETENTION_DAYS: u32 = 1;

/// What the feed shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeFeed {
    /// The selected table, if any.
    pub table: Option<String>,
    /// The table's change stream retention in whole days, when it has one.
    pub retention_days: Option<u32>,
    /// How many changes the table keeps.
    pub kept: usize,
    /// The newest changes, newest first.
    pub lines: Vec<FeedLine>,
}

/// Who made a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeedKind {
    /// A client's write (`USER`).
    User,
    /// A garbage-collection deletion (`GARBAGE_COLLECTION`).
    Gc,
}

impl FeedKind {
    /// The short label the line shows.
    pub fn label(self) -> &'static str {
        match self {
            FeedKind::User => "USER",
            FeedKind::Gc => "GC",
        }
    }

    /// What the label means, for its title.
    pub fn title(self) -> &'static str {
        match self {
            FeedKind::User => "a client's write (type USER)",
            FeedKind::Gc => "deleted by a GC rule at compaction (type GARBAGE_COLLECTION)",
        }
    }
}

/// One change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedLine {
    /// Its position in the table's change stream (unique, increasing).
    pub sequence: u64,
    /// Commit time of day, `hh:mm:ss.mmm` (UTC).
    pub time: String,
    /// The full commit time, `YYYY-MM-DD hh:mm:ss.mmm UTC`.
    pub when: String,
    /// The row key (unprintable bytes as `\xNN`), cut into segments for
    /// the same tints as every other panel.
    pub key: DisplayKey,
    /// USER or GC.
    pub kind: FeedKind,
    /// What changed, one short phrase per mutation.
    pub summary: String,
}

/// The feed of `table` in `instance`.
pub fn change_feed(instance: &Instance, table: Option<&str>) -> ChangeFeed {
    let Some(table) = table else {
        return ChangeFeed::default();
    };
    let tail = instance
        .change_stream_tail(table, FEED_LINES)
        .ok()
        .flatten();
    let Some(tail) = tail else {
        return ChangeFeed {
            table: Some(table.to_string()),
            ..ChangeFeed::default()
        };
    };
    ChangeFeed {
        table: Some(table.to_string()),
        retention_days: Some(days(tail.config.retention_micros)),
        kept: tail.kept,
        lines: tail.records.iter().rev().map(feed_line).collect(),
    }
}

/// The JSON protocol request that turns `table_name`'s change stream on
/// (keeping changes `retention_days`) or off, as the console shows it.
pub fn change_stream_line(table_name: &str, retention_days: Option<u32>) -> String {
    let table = match retention_days {
        Some(d) => serde_json::json!({
            "name": table_name,
            "changeStreamConfig": {"retentionPeriod": format!("{}s", u64::from(d) * 86_400)},
        }),
        None => serde_json::json!({"name": table_name}),
    };
    serde_json::json!({
        "method": "updateTable",
        "request": {"table": table, "updateMask": "changeStreamConfig"},
    })
    .to_string()
}

/// A retention in whole days (Bigtable's are 1 to 7 days).
fn days(micros: i64) -> u32 {
    let clamped = micros.clamp(MIN_CHANGE_RETENTION_MICROS, MAX_CHANGE_RETENTION_MICROS);
    u32::try_from(clamped / DAY_MICROS).unwrap_or(1)
}

fn feed_line(r: &ChangeRecord) -> FeedLine {
    let when = format_timestamp(r.commit_micros);
    // `YYYY-MM-DD hh:mm:ss.mmm UTC`: the time of day is the middle.
    let time = when
        .split(' ')
        .nth(1)
        .map_or_else(|| when.clone(), str::to_string);
    FeedLine {
        sequence: r.sequence,
        time,
        when,
        key: DisplayKey::new(&r.row_key),
        kind: match r.kind {
            ChangeKind::User => FeedKind::User,
            ChangeKind::GarbageCollection => FeedKind::Gc,
        },
        summary: summary(&r.mutations),
    }
}

/// The mutations as short phrases, joined, cut at [`SUMMARY_CHARS`].
pub fn summary(mutations: &[Mutation<'_>]) -> String {
    let mut out = String::new();
    for (i, m) in mutations.iter().enumerate() {
        let phrase = phrase(m);
        if i > 0 && out.chars().count() + phrase.chars().count() > SUMMARY_CHARS {
            out.push_str(&format!(" · … {} more", mutations.len() - i));
            break;
        }
        if i > 0 {
            out.push_str(" · ");
        }
        out.push_str(&phrase);
    }
    out
}

/// A value shown in a summary: escaped, at most 24 characters.
fn short_value(bytes: &[u8]) -> String {
    let text = escape_bytes(bytes);
    if text.chars().count() <= 24 {
        format!("\"{text}\"")
    } else {
        let cut: String = text.chars().take(21).collect();
        format!("\"{cut}…\" ({} B)", bytes.len())
    }
}

fn phrase(m: &Mutation<'_>) -> String {
    match m {
        Mutation::SetCell {
            family_name,
            column_qualifier,
            value,
            ..
        } => format!(
            "set {family_name}:{} = {}",
            escape_bytes(column_qualifier),
            short_value(value)
        ),
        Mutation::AddToCell {
            family_name,
            column_qualifier,
            input,
            ..
        } => format!(
            "add {family_name}:{} += {}",
            escape_bytes(column_qualifier),
            input_text(input)
        ),
        Mutation::MergeToCell {
            family_name,
            column_qualifier,
            input,
            ..
        } => format!(
            "merge {family_name}:{} ← {}",
            escape_bytes(column_qualifier),
            input_text(input)
        ),
        Mutation::DeleteFromColumn {
            family_name,
            column_qualifier,
            time_range,
        } => match time_range {
            Some(r) if r.end_micros == r.start_micros + 1000 => format!(
                "delete {family_name}:{} @ {}",
                escape_bytes(column_qualifier),
                format_timestamp(r.start_micros)
            ),
            Some(r) => format!(
                "delete {family_name}:{} in [{}, {})",
                escape_bytes(column_qualifier),
                r.start_micros,
                if r.end_micros == 0 {
                    "∞".to_string()
                } else {
                    r.end_micros.to_string()
                }
            ),
            None => format!("delete {family_name}:{}", escape_bytes(column_qualifier)),
        },
        Mutation::DeleteFromFamily { family_name } => format!("delete family {family_name}"),
        Mutation::DeleteFromRow => "delete row".to_string(),
    }
}

fn input_text(input: &AggregateInput<'_>) -> String {
    match input {
        AggregateInput::Int(v) => v.to_string(),
        AggregateInput::Raw(b) => short_value(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_core::{ColumnFamily, CreateTableRequest, GcRule, TableSchema, TimestampRange};

    fn instance() -> Instance {
        let mut db = Instance::default();
        db.set_now(1_700_000_000_000_000);
        let mut schema = TableSchema::default();
        schema.families.insert(
            "cf".into(),
            ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))),
        );
        db.create_table(CreateTableRequest {
            table_id: "t".into(),
            schema,
            initial_splits: vec![],
        })
        .unwrap();
        db
    }

    #[test]
    fn a_table_without_a_change_stream_has_an_empty_feed() {
        let db = instance();
        let feed = change_feed(&db, Some("t"));
        assert_eq!(feed.table.as_deref(), Some("t"));
        assert_eq!(feed.retention_days, None);
        assert!(feed.lines.is_empty());
        assert_eq!(change_feed(&db, None), ChangeFeed::default());
        assert_eq!(change_feed(&db, Some("nope")).retention_days, None);
    }

    #[test]
    fn changes_come_newest_first_with_kind_and_summary() {
        let mut db = instance();
        db.set_change_stream(
            "t",
            Some(tabletop_core::ChangeStreamConfig::new(DAY_MICROS).unwrap()),
        )
        .unwrap();
        db.mutate_row(
            "t",
            b"r\x01",
            &[Mutation::set_cell("cf", b"q", 1000, b"old")],
        )
        .unwrap();
        db.mutate_row(
            "t",
            b"r\x01",
            &[Mutation::set_cell("cf", b"q", 2000, b"new")],
        )
        .unwrap();
        db.compact(Some("t")).unwrap();
        let feed = change_feed(&db, Some("t"));
        assert_eq!(feed.retention_days, Some(1));
        assert_eq!(feed.kept, 3);
        let got: Vec<(FeedKind, &str, &str)> = feed
            .lines
            .iter()
            .map(|l| (l.kind, l.key.text.as_str(), l.summary.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    FeedKind::Gc,
                    "r\\x01",
                    "delete cf:q @ 1970-01-01 00:00:00.001 UTC"
                ),
                (FeedKind::User, "r\\x01", "set cf:q = \"new\""),
                (FeedKind::User, "r\\x01", "set cf:q = \"old\""),
            ]
        );
        assert_eq!(feed.lines[0].time, "22:13:20.000");
        assert_eq!(feed.lines[0].when, "2023-11-14 22:13:20.000 UTC");
    }

    #[test]
    fn long_summaries_are_cut_with_a_count() {
        let many: Vec<Mutation<'_>> = (0..20)
            .map(|i| Mutation::DeleteFromColumn {
                family_name: "family".into(),
                column_qualifier: format!("qualifier-{i}").into_bytes().into(),
                time_range: Some(TimestampRange {
                    start_micros: 0,
                    end_micros: 0,
                }),
            })
            .collect();
        let s = summary(&many);
        assert!(s.chars().count() < SUMMARY_CHARS + 20, "{s}");
        assert!(s.ends_with("more"), "{s}");
        assert!(short_value(&[b'x'; 100]).ends_with("(100 B)"));
    }
}
