//! The messages Cloud Bigtable's Key Visualizer shows above a heatmap, for
//! the same conditions: high read pressure, high write pressure, large
//! rows, no data scanned and key space not to scale. They sit beside the
//! named patterns of [`super::diagnose`] (which Google does not offer):
//! the messages say *what* Google would flag, the patterns say *why* and
//! what to change.
//!
//! - **High read / write pressure**: some fine bucket reached a pressure
//!   index of [`POOR_PRESSURE`] or more ([`super::pressure_index`]). The
//!   message spans every bucket and time bucket that did. Its icon is
//!   *danger* when one row explains the peak (a single key took at least
//!   half of the operations of the worst bucket), *warning* otherwise.
//! - **Large rows**: a row over 256 MiB, or a key range whose rows average
//!   more than 200 MiB (Google's two thresholds).
//! - **No data scanned**: no operation was recorded at all.
//! - **Key space not to scale**: the table holds fewer rows than the 1,000
//!   key buckets, so the buckets cannot each hold an equal share of rows.

use serde::{Deserialize, Serialize};

use super::heatmap::pressure_max;
use super::pressure::POOR_PRESSURE;
use super::{Context, MAX_KEY_BUCKETS, Metric};
use tabletop_store::{escape_bytes, human_bytes};

/// A row over this size is a large row.
const LARGE_ROW_BYTES: f64 = 256.0 * 1024.0 * 1024.0;
/// A key range whose rows average more than this holds large rows.
const LARGE_AVERAGE_BYTES: f64 = 200.0 * 1024.0 * 1024.0;

/// Which message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// Some key ranges had a read pressure index of 100 or more.
    HighReadPressure,
    /// Some key ranges had a write pressure index of 100 or more.
    HighWritePressure,
    /// Rows over 256 MiB, or key ranges averaging over 200 MiB a row.
    LargeRows,
    /// No traffic was recorded.
    NoDataScanned,
    /// Too few rows to cut the key space into equal buckets.
    KeySpaceNotToScale,
}

impl MessageKind {
    /// Google's title for it ("High write pressure").
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            MessageKind::HighReadPressure => "High read pressure",
            MessageKind::HighWritePressure => "High write pressure",
            MessageKind::LargeRows => "Large rows",
            MessageKind::NoDataScanned => "No data scanned",
            MessageKind::KeySpaceNotToScale => "Key space not to scale",
        }
    }

    /// The snake_case name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            MessageKind::HighReadPressure => "high_read_pressure",
            MessageKind::HighWritePressure => "high_write_pressure",
            MessageKind::LargeRows => "large_rows",
            MessageKind::NoDataScanned => "no_data_scanned",
            MessageKind::KeySpaceNotToScale => "key_space_not_to_scale",
        }
    }
}

/// The icon Google shows with a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageIcon {
    /// Something to keep in mind when reading the heatmap.
    Info,
    /// A key range performs poorly.
    Warning,
    /// Single rows cause it.
    Danger,
}

impl MessageIcon {
    /// `info`, `warning` or `danger`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            MessageIcon::Info => "info",
            MessageIcon::Warning => "warning",
            MessageIcon::Danger => "danger",
        }
    }
}

/// One message above the heatmap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GoogleMessage {
    /// Which message.
    pub kind: MessageKind,
    /// Google's title ([`MessageKind::title`]).
    pub title: String,
    /// Its icon.
    pub icon: MessageIcon,
    /// What was seen, with numbers.
    pub text: String,
    /// First key of the range concerned (escaped; empty: start of table).
    pub key_start: String,
    /// Key after it (escaped; `None`: end of table).
    pub key_end: Option<String>,
    /// Start of the time concerned, seconds from the start.
    pub time_start_seconds: f64,
    /// End of the time concerned.
    pub time_end_seconds: f64,
    /// The worst value seen: the pressure index, or the row size in bytes
    /// (0 for the other messages).
    pub peak: f64,
}

/// Google's messages for what the recorder holds.
#[must_use]
pub fn google_messages(ctx: &Context<'_>) -> Vec<GoogleMessage> {
    let rec = ctx.recorder;
    let mut out = Vec::new();
    let ops: f64 = rec.totals_by_time(Metric::Ops).iter().sum();
    let writes: f64 = rec.totals_by_time(Metric::WriteRows).iter().sum();
    if rec.filled() == 0 || ops + writes <= 0.0 {
        out.push(message(
            ctx,
            MessageKind::NoDataScanned,
            MessageIcon::Info,
            "No operation was recorded on this table, so there is no performance data to show."
                .into(),
            (0, rec.fine_buckets()),
            (0, rec.filled().max(1) - 1),
            0.0,
        ));
    } else {
        for metric in [Metric::ReadPressure, Metric::WritePressure] {
            out.extend(high_pressure(ctx, metric));
        }
    }
    out.extend(large_rows(ctx));
    let rows: f64 = rec.totals_by_key(Metric::Rows).iter().sum();
    if rec.filled() > 0 && rows < MAX_KEY_BUCKETS as f64 {
        out.push(message(
            ctx,
            MessageKind::KeySpaceNotToScale,
            MessageIcon::Info,
            format!(
                "The table holds {} rows, fewer than the {MAX_KEY_BUCKETS} key buckets, so the \
                 buckets cannot each hold an equal share of the rows: the heights of key ranges \
                 on the heatmap are not to scale.",
                rows.round()
            ),
            (0, rec.fine_buckets()),
            (0, rec.filled() - 1),
            0.0,
        ));
    }
    out
}

fn message(
    ctx: &Context<'_>,
    kind: MessageKind,
    icon: MessageIcon,
    text: String,
    fine: (usize, usize),
    time: (usize, usize),
    peak: f64,
) -> GoogleMessage {
    let secs = ctx.recorder.bucket_seconds();
    GoogleMessage {
        kind,
        title: kind.title().to_string(),
        icon,
        text,
        key_start: escape_bytes(ctx.axis.start(fine.0)),
        key_end: (fine.1 < ctx.axis.len()).then(|| escape_bytes(ctx.axis.start(fine.1))),
        time_start_seconds: time.0 as f64 * secs,
        time_end_seconds: (time.1 + 1) as f64 * secs,
        peak,
    }
}

/// High read or write pressure: where and when any fine bucket reached
/// 100, and the worst cell.
fn high_pressure(ctx: &Context<'_>, metric: Metric) -> Option<GoogleMessage> {
    let rec = ctx.recorder;
    let (t_n, fine) = (rec.filled(), rec.fine_buckets());
    let identity: Vec<u32> = (0..fine as u32).collect();
    let mut cells = vec![0.0f32; fine * t_n];
    pressure_max(rec, &identity, metric, &mut cells);
    let mut keys = (usize::MAX, 0usize);
    let mut times = (usize::MAX, 0usize);
    let mut worst = (0.0f32, 0usize, 0usize);
    for (i, &v) in cells.iter().enumerate() {
        let (f, t) = (i / t_n.max(1), i % t_n.max(1));
        if v > worst.0 {
            worst = (v, f, t);
        }
        if f64::from(v) >= POOR_PRESSURE {
            keys = (keys.0.min(f), keys.1.max(f));
            times = (times.0.min(t), times.1.max(t));
        }
    }
    if keys.0 == usize::MAX {
        return None;
    }
    let (peak, wf, wt) = worst;
    let read = metric == Metric::ReadPressure;
    let cpu_metric = if read {
        Metric::ReadCpu
    } else {
        Metric::WriteCpu
    };
    let cpu = f64::from(rec.value(cpu_metric, wt, wf)) / rec.bucket_seconds().max(1e-9);
    let bucket_ops = f64::from(rec.value(Metric::Ops, wt, wf));
    // One row causes it when, at its average rate over the run, it took at
    // least half of the worst bucket's operations.
    let row = ctx.hot_keys.iter().find(|k| {
        ctx.axis.bucket_of(&k.key) == wf
            && bucket_ops > 0.0
            && k.ops / t_n.max(1) as f64 >= 0.5 * bucket_ops
    });
    let kind = if read {
        MessageKind::HighReadPressure
    } else {
        MessageKind::HighWritePressure
    };
    let what = if read { "reads" } else { "writes" };
    let mut text = format!(
        "Key ranges from {} to {} reached a {} pressure index of {:.0} (100 or more means poor \
         performance). At the worst, one range's {what} needed {:.0}% of a node while the node \
         serving it was slow.",
        shown(&escape_bytes(ctx.axis.start(keys.0))),
        (keys.1 + 1 < ctx.axis.len())
            .then(|| escape_bytes(ctx.axis.start(keys.1 + 1)))
            .map_or_else(|| "the end of the table".to_string(), |k| shown(&k)),
        if read { "read" } else { "write" },
        peak,
        cpu * 100.0,
    );
    if let Some(k) = row {
        text.push_str(&format!(
            " A single row, `{}`, causes it.",
            escape_bytes(&k.key)
        ));
    }
    Some(message(
        ctx,
        kind,
        if row.is_some() {
            MessageIcon::Danger
        } else {
            MessageIcon::Warning
        },
        text,
        (keys.0, keys.1 + 1),
        times,
        f64::from(peak),
    ))
}

fn shown(key: &str) -> String {
    if key.is_empty() {
        "the start of the table".to_string()
    } else {
        format!("`{key}`")
    }
}

/// Large rows: single rows over 256 MiB (from the busiest keys), or key
/// ranges whose rows average over 200 MiB.
fn large_rows(ctx: &Context<'_>) -> Option<GoogleMessage> {
    let rec = ctx.recorder;
    if rec.filled() == 0 {
        return None;
    }
    let last = rec.filled() - 1;
    let big_row = ctx
        .hot_keys
        .iter()
        .filter(|k| k.row_bytes > LARGE_ROW_BYTES)
        .max_by(|a, b| a.row_bytes.total_cmp(&b.row_bytes));
    if let Some(k) = big_row {
        let f = ctx.axis.bucket_of(&k.key);
        let mut m = message(
            ctx,
            MessageKind::LargeRows,
            MessageIcon::Warning,
            format!(
                "The row `{}` holds about {}, more than 256 MiB.",
                escape_bytes(&k.key),
                human_bytes(k.row_bytes)
            ),
            (f, f + 1),
            (0, last),
            k.row_bytes,
        );
        m.key_start = escape_bytes(&k.key);
        let mut end = k.key.clone();
        end.push(0);
        m.key_end = Some(escape_bytes(&end));
        return Some(m);
    }
    let rows = rec.totals_by_key(Metric::Rows);
    let bytes = rec.totals_by_key(Metric::DataStored);
    let avg = |f: usize| {
        let r = rows.get(f).copied().unwrap_or(0.0);
        if r >= 1.0 {
            bytes.get(f).copied().unwrap_or(0.0) / r
        } else {
            0.0
        }
    };
    let big: Vec<usize> = (0..rows.len())
        .filter(|&f| avg(f) > LARGE_AVERAGE_BYTES)
        .collect();
    let (&first, &last_f) = (big.first()?, big.last()?);
    let peak = big.iter().map(|&f| avg(f)).fold(0.0, f64::max);
    Some(message(
        ctx,
        MessageKind::LargeRows,
        MessageIcon::Warning,
        format!(
            "{} key range{} hold rows of more than 200 MiB on average (up to {} a row).",
            big.len(),
            if big.len() == 1 { "" } else { "s" },
            human_bytes(peak)
        ),
        (first, last_f + 1),
        (0, last),
        peak,
    ))
}

/// The messages as text lines, each with its icon, title, place and
/// explanation (`(none)` when there are none), indented by `indent`.
#[must_use]
pub fn messages_text(messages: &[GoogleMessage], indent: &str) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    if messages.is_empty() {
        let _ = writeln!(s, "{indent}(none)");
    }
    for m in messages {
        let _ = writeln!(
            s,
            "{indent}{:<8} {}  keys [{}, {})  time {}..{}",
            m.icon.name().to_uppercase(),
            m.title,
            if m.key_start.is_empty() {
                "start"
            } else {
                &m.key_start
            },
            m.key_end.as_deref().unwrap_or("end"),
            super::human_seconds(m.time_start_seconds),
            super::human_seconds(m.time_end_seconds),
        );
        let _ = writeln!(s, "{indent}         {}", m.text);
    }
    s
}
