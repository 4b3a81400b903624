//! What a materialized view is and how far behind its source it is:
//! [`ViewKind`], [`ViewOptions`], [`ViewStatus`]. Plain data, below
//! everything that reports on views (EXPLAIN included); the views
//! themselves live with the instance (`crate::instance::views`).

use serde::{Deserialize, Serialize};
use serde_json::{Value as Json, json};

/// How fast a view follows its source (in instance time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewOptions {
    /// A queued change is applied once it is at least this old.
    pub delay_micros: i64,
    /// At most this many queued rows are applied per second of instance
    /// time (0: no limit).
    pub rows_per_second: u64,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            delay_micros: 1_000_000,
            rows_per_second: 10_000,
        }
    }
}

/// Aggregation or secondary index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewKind {
    /// `GROUP BY`: one row per group.
    Aggregation,
    /// `ORDER BY`: an asynchronous secondary index, one row per source row.
    SecondaryIndex,
}

/// A view's state, for the console and the simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewStatus {
    /// View name.
    pub name: String,
    /// The table it reads.
    pub source_table: String,
    /// Aggregation or index.
    pub kind: ViewKind,
    /// The defining query.
    pub query: String,
    /// Its key columns, in key order.
    pub key_columns: Vec<String>,
    /// Rows the view holds.
    pub rows: u64,
    /// Source rows queued for maintenance.
    pub pending_rows: u64,
    /// Source key ranges queued (after DropRowRange or garbage collection).
    pub pending_ranges: u64,
    /// Whether a full rebuild is queued (the source's families or row-key
    /// schema changed).
    pub rebuild_pending: bool,
    /// When the oldest queued change arrived (instance time, µs).
    pub oldest_pending_micros: Option<i64>,
    /// How far behind the source the view is: instance time minus the
    /// oldest queued change (0 when caught up).
    pub lag_micros: i64,
    /// Source rows applied since the view was created or restored.
    pub rows_applied: u64,
    /// Source rows left out because evaluating the view on them failed.
    pub row_errors: u64,
    /// The last such failure, or why the view cannot be maintained.
    pub error: Option<String>,
    /// How fast it follows its source.
    pub options: ViewOptions,
}

impl ViewStatus {
    /// Whether nothing is queued.
    #[must_use]
    pub fn is_caught_up(&self) -> bool {
        self.pending_rows == 0 && self.pending_ranges == 0 && !self.rebuild_pending
    }

    /// One line: "caught up" or "3 rows pending, 1.2 s behind".
    #[must_use]
    pub fn lag_text(&self) -> String {
        if self.is_caught_up() {
            return "caught up".into();
        }
        let mut parts = Vec::new();
        if self.rebuild_pending {
            parts.push("a full rebuild pending".to_string());
        }
        if self.pending_rows > 0 {
            parts.push(format!(
                "{} row{} pending",
                self.pending_rows,
                if self.pending_rows == 1 { "" } else { "s" }
            ));
        }
        if self.pending_ranges > 0 {
            parts.push(format!("{} key range(s) pending", self.pending_ranges));
        }
        format!(
            "{}, {:.1} s behind",
            parts.join(", "),
            self.lag_micros as f64 / 1e6
        )
    }

    /// The status as JSON.
    #[must_use]
    pub fn to_json(&self) -> Json {
        let mut v = json!({
            "name": self.name,
            "sourceTable": self.source_table,
            "kind": match self.kind { ViewKind::Aggregation => "AGGREGATION", ViewKind::SecondaryIndex => "SECONDARY_INDEX" },
            "query": self.query,
            "keyColumns": self.key_columns,
            "rows": self.rows.to_string(),
            "pendingRows": self.pending_rows.to_string(),
            "pendingRanges": self.pending_ranges.to_string(),
            "rebuildPending": self.rebuild_pending,
            "lagMicros": self.lag_micros.to_string(),
            "caughtUp": self.is_caught_up(),
            "rowsApplied": self.rows_applied.to_string(),
            "rowErrors": self.row_errors.to_string(),
            "lag": self.lag_text(),
            "delayMicros": self.options.delay_micros.to_string(),
            "rowsPerSecond": self.options.rows_per_second.to_string(),
        });
        // Like proto3 JSON, an absent value is left out.
        if let (Some(e), Some(m)) = (&self.error, v.as_object_mut()) {
            m.insert("lastError".into(), json!(e));
        }
        v
    }
}
