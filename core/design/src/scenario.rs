//! The scenario document: a table, a cluster, a row-key design, workloads
//! and (for the advisor) the application's reads, columns and other
//! tables, in TOML. The format is documented in `static/scenarios/README.md`;
//! every field is checked here, and a bad file gets an error naming its
//! line (for syntax and type errors) or its field. [`scenario_to_toml`]
//! writes one back.
//!
//! The simulator runs a scenario and the advisor reads one; neither owns
//! the document, so both can stand on it.

mod spec;
mod toml_out;

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::keydesign::KeyTemplate;
use tabletop_store::days_from_civil;
use tabletop_store::{Error, Result};

pub use spec::field_segment;
pub use spec::{AccessSpec, ColumnSpec, OtherTable};
pub use toml_out::scenario_to_toml;

/// A length of simulated time, written `"90s"`, `"10m"`, `"1h30m"`,
/// `"2d"`, `"250ms"` or as a number of seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct Seconds(pub f64);

impl Seconds {
    /// Parses `"1h30m"`-style text.
    pub fn parse(text: &str) -> Result<Seconds> {
        let t = text.trim();
        let bad = || {
            Error::invalid(format!(
                "{text:?} is not a duration; write a number of seconds or e.g. \"90s\", \"10m\", \"1h30m\", \"2d\""
            ))
        };
        if t.is_empty() {
            return Err(bad());
        }
        if let Ok(v) = t.parse::<f64>() {
            return Ok(Seconds(v));
        }
        let mut total = 0.0;
        let mut rest = t;
        while !rest.is_empty() {
            let num_len = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .ok_or_else(bad)?;
            if num_len == 0 {
                return Err(bad());
            }
            let (num, tail) = rest.split_at(num_len);
            let v: f64 = num.parse().map_err(|_| bad())?;
            let unit_len = tail
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(tail.len());
            let (unit, tail) = tail.split_at(unit_len);
            let scale = match unit.trim() {
                "ms" => 0.001,
                "s" => 1.0,
                "m" | "min" => 60.0,
                "h" => 3600.0,
                "d" => 86_400.0,
                "w" => 604_800.0,
                _ => return Err(bad()),
            };
            total += v * scale;
            rest = tail.trim_start();
        }
        Ok(Seconds(total))
    }
}

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        for (unit, size) in [("d", 86_400.0), ("h", 3600.0), ("m", 60.0), ("s", 1.0)] {
            if s >= size && (s / size).fract() == 0.0 {
                return write!(f, "{}{unit}", s / size);
            }
        }
        write!(f, "{s}s")
    }
}

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Seconds, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Seconds;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as \"10m\" or a number of seconds")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Seconds, E> {
                Seconds::parse(v).map_err(|e| E::custom(e.message()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Seconds, E> {
                Ok(Seconds(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Seconds, E> {
                Ok(Seconds(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Seconds, E> {
                Ok(Seconds(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// A point in time, microseconds since the Unix epoch; written as
/// `"2020-05-01T00:00:00Z"`, `"2020-05-01"`, or a TOML date-time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartTime(pub i64);

impl Default for StartTime {
    fn default() -> Self {
        StartTime(1_588_291_200_000_000)
    }
}

/// The last instant a scenario may reach: 9999-12-31T23:59:59.999999Z.
const LAST_MICROS: i64 = 253_402_300_799_999_999;

impl StartTime {
    /// Parses `YYYY-MM-DD` with an optional `THH:MM:SS` (and optional
    /// fraction), in UTC (`Z`, `+00:00` or nothing).
    pub fn parse(text: &str) -> Result<StartTime> {
        let bad = || {
            Error::invalid(format!(
                "{text:?} is not a UTC date-time; write e.g. \"2020-05-01T00:00:00Z\""
            ))
        };
        let t = text.trim();
        let t = t
            .strip_suffix('Z')
            .or_else(|| t.strip_suffix("+00:00"))
            .unwrap_or(t);
        let (date, time) = match t.split_once(['T', ' ']) {
            Some((d, tm)) => (d, Some(tm)),
            None => (t, None),
        };
        let mut dp = date.split('-');
        let (Some(y), Some(m), Some(d), None) = (dp.next(), dp.next(), dp.next(), dp.next()) else {
            return Err(bad());
        };
        let y: i64 = y.parse().map_err(|_| bad())?;
        let m: u32 = m.parse().map_err(|_| bad())?;
        let d: u32 = d.parse().map_err(|_| bad())?;
        if !(1970..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
            return Err(bad());
        }
        let mut micros = days_from_civil(y, m, d) * 86_400_000_000;
        if let Some(tm) = time {
            let mut tp = tm.split(':');
            let (Some(h), Some(mi), s, None) = (tp.next(), tp.next(), tp.next(), tp.next()) else {
                return Err(bad());
            };
            let h: i64 = h.parse().map_err(|_| bad())?;
            let mi: i64 = mi.parse().map_err(|_| bad())?;
            let s: f64 = s.map_or(Ok(0.0), str::parse).map_err(|_| bad())?;
            if !(0..24).contains(&h) || !(0..60).contains(&mi) || !(0.0..61.0).contains(&s) {
                return Err(bad());
            }
            micros += (h * 3600 + mi * 60) * 1_000_000 + (s * 1e6) as i64;
        }
        Ok(StartTime(micros))
    }
}

impl fmt::Display for StartTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.0.div_euclid(86_400_000_000);
        let rem = self.0.rem_euclid(86_400_000_000) / 1_000_000;
        let (y, m, d) = tabletop_store::civil_from_days(days);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            rem / 3600,
            rem / 60 % 60,
            rem % 60
        )
    }
}

impl Serialize for StartTime {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for StartTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<StartTime, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StartTime;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a UTC date-time such as \"2020-05-01T00:00:00Z\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<StartTime, E> {
                StartTime::parse(v).map_err(|e| E::custom(e.message()))
            }
            // A TOML date-time arrives as a one-entry map.
            fn visit_map<A: de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<StartTime, A::Error> {
                let Some((_, v)) = map.next_entry::<String, String>()? else {
                    return Err(de::Error::custom("expected a date-time"));
                };
                StartTime::parse(&v).map_err(|e| de::Error::custom(e.message()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A whole scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A short title.
    pub name: String,
    /// What the scenario shows.
    #[serde(default)]
    pub description: String,
    /// Seed of every random choice: same scenario and seed, same report.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time.
    pub duration: Seconds,
    /// Wall-clock time at the start (for timestamp and date segments).
    #[serde(default)]
    pub start: StartTime,
    /// The table.
    pub table: TableSpec,
    /// The cluster serving it.
    #[serde(default)]
    pub cluster: ClusterSpec,
    /// The row-key design.
    pub key: KeyTemplate,
    /// The traffic.
    #[serde(rename = "workload")]
    pub workloads: Vec<Workload>,
    /// Heatmap resolution.
    #[serde(default)]
    pub keyviz: KeyVizSpec,
    /// Simulator settings.
    #[serde(default)]
    pub sim: SimSpec,
    /// Reads the application makes (`[[access]]`), for the advisor.
    #[serde(default, rename = "access", skip_serializing_if = "Vec::is_empty")]
    pub access: Vec<AccessSpec>,
    /// What rows hold (`[[column]]`), for the advisor.
    #[serde(default, rename = "column", skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<ColumnSpec>,
    /// Other tables of the instance (`[[other_table]]`), for the advisor.
    #[serde(default, rename = "other_table", skip_serializing_if = "Vec::is_empty")]
    pub other_tables: Vec<OtherTable>,
    /// Continuous materialized views of the table (`[[view]]`): the
    /// simulation shows how far behind its writes each one falls.
    #[serde(default, rename = "view", skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<ViewSpec>,
}

/// A continuous materialized view of the scenario's table, such as an
/// asynchronous secondary index. Bigtable maintains it from the table's
/// writes in the background; every row written is queued for it, and the
/// queue drains at `rows_per_second`. When writes arrive faster, the view
/// falls behind (its lag grows) until they slow down.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewSpec {
    /// Its name.
    pub name: String,
    /// What it is for (for example its defining query).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Source rows applied to the view per second (the core's own views
    /// default to the same rate).
    #[serde(default = "default_view_rate")]
    pub rows_per_second: f64,
}

fn default_view_rate() -> f64 {
    tabletop_sql::views::ViewOptions::default().rows_per_second as f64
}

fn default_seed() -> u64 {
    1
}

/// The table: families and the data present before the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// Table id (for materialising rows into an instance).
    #[serde(default = "default_table_id")]
    pub id: String,
    /// Column families and their GC rules; one family `cf` if empty.
    #[serde(default)]
    pub families: BTreeMap<String, FamilySpec>,
    /// Rows present before the run (capped by what the key design allows).
    #[serde(default)]
    pub rows: u64,
    /// Average bytes per row, for existing rows and reads.
    #[serde(default = "default_row_bytes")]
    pub row_bytes: u64,
    /// Entities (users, devices, sites...) keys are drawn from.
    #[serde(default = "default_entities")]
    pub entities: u64,
    /// Time span the existing rows were written over, before `start`.
    #[serde(default = "default_history")]
    pub history: Seconds,
}

fn default_table_id() -> String {
    "table".into()
}
fn default_row_bytes() -> u64 {
    1024
}
fn default_entities() -> u64 {
    10_000
}
fn default_history() -> Seconds {
    Seconds(30.0 * 86_400.0)
}

/// A column family's garbage-collection rule.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilySpec {
    /// Keep at most this many versions per column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_versions: Option<u32>,
    /// Drop versions older than this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age: Option<Seconds>,
}

/// Storage type of the cluster's nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Storage {
    /// Solid-state: about 17,000 reads/s, 14,000 writes/s or 220 MB/s of
    /// scans per node.
    #[default]
    Ssd,
    /// Hard disks: about 500 reads/s, 10,000 writes/s or 180 MB/s of scans
    /// per node.
    Hdd,
}

/// The simulated cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// Nodes serving the table.
    #[serde(default = "default_nodes")]
    pub nodes: u32,
    /// Storage type (sets the per-node capacities below).
    #[serde(default)]
    pub storage: Storage,
    /// Point reads of 1 KB rows per second one node serves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads_per_node: Option<f64>,
    /// Writes of 1 KB rows per second one node serves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes_per_node: Option<f64>,
    /// Megabytes per second one node scans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan_mb_per_node: Option<f64>,
    /// A tablet larger than this is split in two (bytes).
    #[serde(default = "default_split_bytes")]
    pub split_bytes: u64,
    /// A tablet needing more than this share of a node is split in two.
    #[serde(default = "default_split_load")]
    pub split_load: f64,
    /// Two neighbouring cold tablets smaller than this together are merged
    /// (bytes).
    #[serde(default = "default_merge_bytes")]
    pub merge_bytes: u64,
    /// How often the balancer splits, merges and moves tablets.
    #[serde(default = "default_rebalance")]
    pub rebalance_every: Seconds,
    /// Latency of an operation on an idle node, in milliseconds.
    #[serde(default = "default_latency")]
    pub base_latency_ms: f64,
}

fn default_nodes() -> u32 {
    3
}
fn default_split_bytes() -> u64 {
    512 * 1024 * 1024
}
fn default_split_load() -> f64 {
    0.25
}
fn default_merge_bytes() -> u64 {
    128 * 1024 * 1024
}
fn default_rebalance() -> Seconds {
    Seconds(60.0)
}
fn default_latency() -> f64 {
    5.0
}

impl ClusterSpec {
    /// Most nodes a cluster may have, in a scenario or the live Key
    /// Visualizer.
    pub const MAX_NODES: u32 = 1000;
}

impl Default for ClusterSpec {
    fn default() -> Self {
        ClusterSpec {
            nodes: default_nodes(),
            storage: Storage::Ssd,
            reads_per_node: None,
            writes_per_node: None,
            scan_mb_per_node: None,
            split_bytes: default_split_bytes(),
            split_load: default_split_load(),
            merge_bytes: default_merge_bytes(),
            rebalance_every: default_rebalance(),
            base_latency_ms: default_latency(),
        }
    }
}

impl ClusterSpec {
    /// Point reads per second per node.
    #[must_use]
    pub fn reads_per_second(&self) -> f64 {
        self.reads_per_node.unwrap_or(match self.storage {
            Storage::Ssd => 17_000.0,
            Storage::Hdd => 500.0,
        })
    }

    /// Writes per second per node.
    #[must_use]
    pub fn writes_per_second(&self) -> f64 {
        self.writes_per_node.unwrap_or(match self.storage {
            Storage::Ssd => 14_000.0,
            Storage::Hdd => 10_000.0,
        })
    }

    /// Scan bytes per second per node.
    #[must_use]
    pub fn scan_bytes_per_second(&self) -> f64 {
        self.scan_mb_per_node.unwrap_or(match self.storage {
            Storage::Ssd => 220.0,
            Storage::Hdd => 180.0,
        }) * 1e6
    }
}

/// Kind of operation a workload sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    /// MutateRow: one row written.
    Write,
    /// ReadRows of one row.
    Read,
    /// ReadRows of a prefix (`prefix_segments`) or of `rows` rows from a
    /// start key.
    Scan,
    /// ReadRows of the whole table with a filter that keeps `selectivity`
    /// of the rows.
    FullScan,
}

impl OpKind {
    /// The name as written in files.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Write => "write",
            OpKind::Read => "read",
            OpKind::Scan => "scan",
            OpKind::FullScan => "full_scan",
        }
    }
}

/// Which entities a workload's operations pick.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyDist {
    /// Every entity equally often.
    Uniform,
    /// A few entities much more often than the rest (Zipf's law with this
    /// exponent; 1 is classic, larger is more skewed). Popular entities are
    /// scattered over the entity numbers.
    Zipf(f64),
    /// Writes: each operation creates the next entity after the existing
    /// ones (new users, new orders). Reads and scans: walk the entities in
    /// order.
    Sequential,
    /// Always the same entity (`hot_entity`).
    HotKey,
}

/// How a workload's rate varies over time (a multiplier of `rate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape {
    /// Always `rate`.
    #[default]
    Steady,
    /// A batch job: `rate` for `active` out of every `every`, `idle` times
    /// `rate` otherwise.
    Periodic {
        /// Period.
        every: Seconds,
        /// How long each run lasts.
        active: Seconds,
        /// Share of `rate` between runs (default 0).
        #[serde(default)]
        idle: f64,
        /// When the first run starts (default: at the start).
        #[serde(default)]
        offset: Seconds,
    },
    /// A smooth day/night cycle between `low` times `rate` and `rate`.
    Diurnal {
        /// Length of one cycle (default 24 h).
        #[serde(default = "default_day")]
        period: Seconds,
        /// Share of `rate` at the quietest time (default 0.2).
        #[serde(default = "default_low")]
        low: f64,
    },
    /// `factor` times `rate` from `at` for `length`, `rate` otherwise.
    Spike {
        /// Start of the spike.
        at: Seconds,
        /// Its length.
        length: Seconds,
        /// Multiplier during the spike.
        factor: f64,
    },
}

fn default_day() -> Seconds {
    Seconds(86_400.0)
}
fn default_low() -> f64 {
    0.2
}

impl Shape {
    /// The multiplier at `t` seconds into the run.
    #[must_use]
    pub fn factor(&self, t: f64) -> f64 {
        match *self {
            Shape::Steady => 1.0,
            Shape::Periodic {
                every,
                active,
                idle,
                offset,
            } => {
                let x = t - offset.0;
                if x < 0.0 || every.0 <= 0.0 {
                    return idle;
                }
                if x - (x / every.0).floor() * every.0 < active.0 {
                    1.0
                } else {
                    idle
                }
            }
            Shape::Diurnal { period, low } => {
                if period.0 <= 0.0 {
                    return 1.0;
                }
                let phase = std::f64::consts::TAU * t / period.0;
                low + (1.0 - low) * 0.5 * (1.0 - crate::rng::det_cos(phase))
            }
            Shape::Spike { at, length, factor } => {
                if t >= at.0 && t < at.0 + length.0 {
                    factor
                } else {
                    1.0
                }
            }
        }
    }

    /// The largest multiplier.
    #[must_use]
    pub fn max_factor(&self) -> f64 {
        match *self {
            Shape::Steady => 1.0,
            Shape::Periodic { idle, .. } => idle.max(1.0),
            Shape::Diurnal { low, .. } => low.max(1.0),
            Shape::Spike { factor, .. } => factor.max(1.0),
        }
    }
}

/// One stream of operations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// A label for reports.
    #[serde(default)]
    pub name: String,
    /// What each operation does.
    pub op: OpKind,
    /// Operations per second (before the shape).
    pub rate: f64,
    /// Which entities it picks.
    #[serde(default = "default_dist")]
    pub keys: KeyDist,
    /// How the rate varies.
    #[serde(default)]
    pub shape: Shape,
    /// Writes: bytes written per operation (default: the table's
    /// `row_bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_bytes: Option<u64>,
    /// Writes: the family written (its GC rule caps versions); default the
    /// first family.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// Scans: read everything under the first N segments of the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_segments: Option<u32>,
    /// Scans: keep only the first N dot-separated labels of a `domain`
    /// segment ending the prefix (2 = a whole reversed site).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_labels: Option<u32>,
    /// Scans: rows returned per scan (a limit; for prefix scans the default
    /// is an estimate from the key design).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Full scans: share of the rows the filter keeps (default 0.001).
    /// Scans: a filter keeping this share of the rows read (default: every
    /// row read is returned); a range scan then reads `rows / selectivity`
    /// rows to return `rows`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selectivity: Option<f64>,
    /// `hot_key`: the entity (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hot_entity: Option<u64>,
    /// Reads and scans: how far back in time the rows they want were
    /// written (default: anywhere in the table's history).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age: Option<Seconds>,
    /// Only from this time on (default: the start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Seconds>,
    /// Only until this time (default: the end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Seconds>,
}

fn default_dist() -> KeyDist {
    KeyDist::Uniform
}

impl Workload {
    /// The multiplier of `rate` at `t`, including the active window.
    #[must_use]
    pub fn factor(&self, t: f64) -> f64 {
        if self.from.is_some_and(|f| t < f.0) || self.until.is_some_and(|u| t >= u.0) {
            return 0.0;
        }
        self.shape.factor(t)
    }
}

/// Heatmap resolution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyVizSpec {
    /// Columns (time buckets), 1 to 2000.
    #[serde(default = "default_time_buckets")]
    pub time_buckets: u32,
    /// Display key buckets, 1 to 1000.
    #[serde(default = "default_key_buckets")]
    pub key_buckets: u32,
    /// Fine key buckets recorded (display buckets are groups of these),
    /// 16 to 8192.
    #[serde(default = "default_fine_buckets")]
    pub fine_buckets: u32,
}

fn default_time_buckets() -> u32 {
    300
}
fn default_key_buckets() -> u32 {
    1000
}
fn default_fine_buckets() -> u32 {
    2048
}

impl Default for KeyVizSpec {
    fn default() -> Self {
        KeyVizSpec {
            time_buckets: default_time_buckets(),
            key_buckets: default_key_buckets(),
            fine_buckets: default_fine_buckets(),
        }
    }
}

/// Simulator settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimSpec {
    /// Most operations simulated one by one; beyond that each simulated
    /// operation stands for several real ones (the report says how many).
    #[serde(default = "default_sample_ops")]
    pub sample_ops: u64,
}

fn default_sample_ops() -> u64 {
    200_000
}

impl Default for SimSpec {
    fn default() -> Self {
        SimSpec {
            sample_ops: default_sample_ops(),
        }
    }
}

/// Where a validation error was found, to point at the file's line.
enum Place {
    Top,
    Section(&'static str),
    Workload(usize),
    /// `[[access]]`, `[[column]]` or `[[other_table]]` number i.
    Array(&'static str, usize),
}

impl Scenario {
    /// Parses and checks a TOML scenario. Errors are `INVALID_ARGUMENT`
    /// and name the line (syntax, unknown or mistyped fields) or the field
    /// (values out of range).
    pub fn from_toml(text: &str) -> Result<Scenario> {
        let scenario: Scenario = toml::from_str(text).map_err(|e| {
            let mut msg = String::from("scenario: ");
            if let Some(span) = e.span() {
                let (line, col) = line_col(text, span.start);
                msg.push_str(&format!("line {line}, column {col}: "));
            }
            msg.push_str(e.message().trim());
            Error::invalid(msg)
        })?;
        scenario.check().map_err(|(place, e)| {
            let line = match place {
                Place::Top => None,
                Place::Section(s) => find_line(text, &format!("[{s}]")),
                Place::Workload(i) => nth_line(text, "[[workload]]", i),
                Place::Array(header, i) => nth_line(text, header, i),
            };
            match line {
                Some(l) => Error::invalid(format!("scenario: line {l}: {}", e.message())),
                None => Error::invalid(format!("scenario: {}", e.message())),
            }
        })?;
        Ok(scenario)
    }

    /// Checks every value (run by [`Scenario::from_toml`] and by
    /// [`crate::sim::Simulation::new`]).
    pub fn validate(&self) -> Result<()> {
        self.check().map_err(|(_, e)| e)
    }

    fn check(&self) -> std::result::Result<(), (Place, Error)> {
        let top = |m: String| (Place::Top, Error::invalid(m));
        let table = |m: String| {
            (
                Place::Section("table"),
                Error::invalid(format!("table.{m}")),
            )
        };
        let cluster = |m: String| {
            (
                Place::Section("cluster"),
                Error::invalid(format!("cluster.{m}")),
            )
        };
        let kv = |m: String| {
            (
                Place::Section("keyviz"),
                Error::invalid(format!("keyviz.{m}")),
            )
        };
        let finite_pos = |v: f64| v.is_finite() && v > 0.0;
        if self.name.trim().is_empty() {
            return Err(top("`name` must not be empty".into()));
        }
        if !(finite_pos(self.duration.0) && self.duration.0 <= 30.0 * 86_400.0) {
            return Err(top(format!(
                "`duration` must be more than 0 and at most 30 days, got {}",
                self.duration.0
            )));
        }
        // Keys and cells carry the simulated time; past year 9999 dates
        // no longer fit their four-digit years.
        if self.start.0 as f64 + self.duration.0 * 1e6 > LAST_MICROS as f64 {
            return Err(top(format!(
                "the scenario would run past the end of year 9999 (start {} plus duration \
                 {}s), where times no longer fit row keys and cells; start earlier",
                self.start, self.duration.0
            )));
        }
        let t = &self.table;
        tabletop_store::validate_table_id(&t.id)
            .map_err(|e| table(format!("id: {}", e.message())))?;
        for (name, fam) in &t.families {
            tabletop_store::validate_family_name(name)
                .map_err(|e| table(format!("families: {}", e.message())))?;
            if fam.max_versions == Some(0) {
                return Err(table(format!(
                    "families.{name}.max_versions must be at least 1"
                )));
            }
            if fam
                .max_age
                .is_some_and(|a| !(finite_pos(a.0) && a.0 <= 100.0 * 365.0 * 86_400.0))
            {
                return Err(table(format!(
                    "families.{name}.max_age must be more than 0 and at most 100 years"
                )));
            }
        }
        if t.rows > 1_000_000_000_000 {
            return Err(table("rows must be at most 10^12".into()));
        }
        if !(1..=100 * 1024 * 1024).contains(&t.row_bytes) {
            return Err(table(
                "row_bytes must be from 1 to 104857600 (100 MiB)".into(),
            ));
        }
        if !(1..=1_000_000_000_000).contains(&t.entities) {
            return Err(table("entities must be from 1 to 10^12".into()));
        }
        if !(t.history.0.is_finite() && (0.0..=3650.0 * 86_400.0).contains(&t.history.0)) {
            return Err(table("history must be from 0 to 10 years".into()));
        }
        let c = &self.cluster;
        if !(1..=ClusterSpec::MAX_NODES).contains(&c.nodes) {
            return Err(cluster(format!(
                "nodes must be from 1 to {}",
                ClusterSpec::MAX_NODES
            )));
        }
        for (name, v) in [
            ("reads_per_node", c.reads_per_node),
            ("writes_per_node", c.writes_per_node),
            ("scan_mb_per_node", c.scan_mb_per_node),
        ] {
            if v.is_some_and(|v| !(finite_pos(v) && v <= 1e9)) {
                return Err(cluster(format!("{name} must be more than 0")));
            }
        }
        if c.split_bytes < 1024 * 1024 {
            return Err(cluster(
                "split_bytes must be at least 1048576 (1 MiB)".into(),
            ));
        }
        if !(finite_pos(c.split_load) && c.split_load <= 10.0) {
            return Err(cluster(
                "split_load must be more than 0 and at most 10".into(),
            ));
        }
        if !finite_pos(c.rebalance_every.0) {
            return Err(cluster("rebalance_every must be more than 0".into()));
        }
        if !(c.base_latency_ms.is_finite() && (0.0..=10_000.0).contains(&c.base_latency_ms)) {
            return Err(cluster("base_latency_ms must be from 0 to 10000".into()));
        }
        self.key
            .validate()
            .map_err(|e| (Place::Section("key"), e.context("key")))?;
        if self.workloads.is_empty() || self.workloads.len() > 32 {
            return Err(top("a scenario needs 1 to 32 [[workload]] sections".into()));
        }
        for (i, w) in self.workloads.iter().enumerate() {
            self.check_workload(w).map_err(|m| {
                let label = if w.name.is_empty() {
                    format!("workload #{}", i + 1)
                } else {
                    format!("workload #{} ({:?})", i + 1, w.name)
                };
                (Place::Workload(i), Error::invalid(format!("{label}: {m}")))
            })?;
        }
        let k = &self.keyviz;
        if !(1..=2000).contains(&k.time_buckets) {
            return Err(kv("time_buckets must be from 1 to 2000".into()));
        }
        if !(1..=1000).contains(&k.key_buckets) {
            return Err(kv("key_buckets must be from 1 to 1000".into()));
        }
        if !(16..=8192).contains(&k.fine_buckets) {
            return Err(kv("fine_buckets must be from 16 to 8192".into()));
        }
        if u64::from(k.time_buckets) * u64::from(k.fine_buckets) > 1 << 21 {
            return Err(kv(
                "time_buckets x fine_buckets must be at most 2097152 (memory: 44 bytes each)"
                    .into(),
            ));
        }
        if !(1..=20_000_000).contains(&self.sim.sample_ops) {
            return Err((
                Place::Section("sim"),
                Error::invalid("sim.sample_ops must be from 1 to 20000000"),
            ));
        }
        self.check_design_sections()
    }

    /// The advisor's optional sections: `[[access]]`, `[[column]]`,
    /// `[[other_table]]`.
    fn check_design_sections(&self) -> std::result::Result<(), (Place, Error)> {
        let at = |header: &'static str, i: usize, m: String| {
            (
                Place::Array(header, i),
                Error::invalid(format!(
                    "{} #{}: {m}",
                    header.trim_matches(['[', ']']),
                    i + 1
                )),
            )
        };
        if self.access.len() > 64 || self.columns.len() > 1000 || self.other_tables.len() > 1000 {
            return Err((
                Place::Top,
                Error::invalid(
                    "at most 64 [[access]], 1000 [[column]] and 1000 [[other_table]] sections",
                ),
            ));
        }
        for (i, a) in self.access.iter().enumerate() {
            spec::check_access(a, &self.key).map_err(|m| at("[[access]]", i, m))?;
            if self.access[..i].iter().any(|b| b.name == a.name) {
                return Err(at(
                    "[[access]]",
                    i,
                    format!("name {:?} is used twice", a.name),
                ));
            }
        }
        for (i, c) in self.columns.iter().enumerate() {
            spec::check_column(c, &self.table.families).map_err(|m| at("[[column]]", i, m))?;
        }
        for (i, t) in self.other_tables.iter().enumerate() {
            spec::check_other_table(t).map_err(|m| at("[[other_table]]", i, m))?;
            if t.id == self.table.id || self.other_tables[..i].iter().any(|o| o.id == t.id) {
                return Err(at(
                    "[[other_table]]",
                    i,
                    format!("table id {:?} is used twice", t.id),
                ));
            }
        }
        if self.views.len() > 16 {
            return Err((Place::Top, Error::invalid("at most 16 [[view]] sections")));
        }
        for (i, v) in self.views.iter().enumerate() {
            let name_ok = !v.name.trim().is_empty() && v.name.chars().count() <= 64;
            if !name_ok {
                return Err(at("[[view]]", i, "name must be 1 to 64 characters".into()));
            }
            if self.views[..i].iter().any(|w| w.name == v.name) {
                return Err(at(
                    "[[view]]",
                    i,
                    format!("name {:?} is used twice", v.name),
                ));
            }
            if !(v.rows_per_second.is_finite()
                && v.rows_per_second >= 1.0
                && v.rows_per_second <= 1e9)
            {
                return Err(at(
                    "[[view]]",
                    i,
                    format!(
                        "rows_per_second must be from 1 to 10^9, got {}",
                        v.rows_per_second
                    ),
                ));
            }
        }
        Ok(())
    }

    fn check_workload(&self, w: &Workload) -> std::result::Result<(), String> {
        let finite_nonneg = |v: f64| v.is_finite() && v >= 0.0;
        if !(finite_nonneg(w.rate) && w.rate <= 1e9) {
            return Err(format!(
                "rate must be from 0 to 10^9 operations per second, got {}",
                w.rate
            ));
        }
        if let KeyDist::Zipf(s) = w.keys
            && !(s.is_finite() && s > 0.0 && s <= 10.0)
        {
            return Err(format!(
                "the zipf exponent must be more than 0 and at most 10, got {s}"
            ));
        }
        match w.shape {
            Shape::Steady => {}
            Shape::Periodic {
                every,
                active,
                idle,
                offset,
            } => {
                if !(every.0.is_finite() && every.0 > 0.0) {
                    return Err("shape.periodic.every must be more than 0".into());
                }
                if !(active.0.is_finite() && active.0 > 0.0 && active.0 <= every.0) {
                    return Err(
                        "shape.periodic.active must be more than 0 and at most `every`".into(),
                    );
                }
                if !(finite_nonneg(idle) && idle <= 1.0) {
                    return Err("shape.periodic.idle must be from 0 to 1".into());
                }
                if !finite_nonneg(offset.0) {
                    return Err("shape.periodic.offset must not be negative".into());
                }
            }
            Shape::Diurnal { period, low } => {
                if !(period.0.is_finite() && period.0 > 0.0) {
                    return Err("shape.diurnal.period must be more than 0".into());
                }
                if !(finite_nonneg(low) && low <= 1.0) {
                    return Err("shape.diurnal.low must be from 0 to 1".into());
                }
            }
            Shape::Spike { at, length, factor } => {
                if !(finite_nonneg(at.0) && length.0.is_finite() && length.0 > 0.0) {
                    return Err("shape.spike needs `at` >= 0 and `length` > 0".into());
                }
                if !(finite_nonneg(factor) && factor <= 1e6) {
                    return Err("shape.spike.factor must be from 0 to 10^6".into());
                }
            }
        }
        for (name, v) in [("from", w.from), ("until", w.until), ("age", w.age)] {
            if v.is_some_and(|v| !finite_nonneg(v.0)) {
                return Err(format!("`{name}` must not be negative"));
            }
        }
        if w.value_bytes
            .is_some_and(|b| !(1..=100 * 1024 * 1024).contains(&b))
        {
            return Err("value_bytes must be from 1 to 104857600 (100 MiB)".into());
        }
        if let Some(f) = &w.family {
            let known = if self.table.families.is_empty() {
                f == "cf"
            } else {
                self.table.families.contains_key(f)
            };
            if !known {
                return Err(format!("family {f:?} is not a family of the table"));
            }
        }
        let segs = self.key.segments.len() as u32;
        let applies = |field: &str, ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "`{field}` does not apply to {} operations",
                    w.op.name()
                ))
            }
        };
        applies(
            "value_bytes",
            w.value_bytes.is_none() || w.op == OpKind::Write,
        )?;
        applies("family", w.family.is_none() || w.op == OpKind::Write)?;
        applies(
            "prefix_segments",
            w.prefix_segments.is_none() || w.op == OpKind::Scan,
        )?;
        applies(
            "prefix_labels",
            w.prefix_labels.is_none() || w.op == OpKind::Scan,
        )?;
        applies("rows", w.rows.is_none() || w.op == OpKind::Scan)?;
        applies(
            "selectivity",
            w.selectivity.is_none() || matches!(w.op, OpKind::FullScan | OpKind::Scan),
        )?;
        applies(
            "hot_entity",
            w.hot_entity.is_none() || w.keys == KeyDist::HotKey,
        )?;
        if let Some(p) = w.prefix_segments
            && !(1..=segs).contains(&p)
        {
            return Err(format!(
                "prefix_segments must be from 1 to {segs} (the key's segments)"
            ));
        }
        if w.prefix_labels.is_some_and(|l| !(1..=16).contains(&l)) {
            return Err("prefix_labels must be from 1 to 16".into());
        }
        if w.op == OpKind::Scan && w.prefix_segments.is_none() && w.rows.is_none() {
            return Err(
                "a scan needs `prefix_segments` (a prefix scan) or `rows` (a range scan)".into(),
            );
        }
        if w.rows.is_some_and(|r| !(1..=1_000_000_000).contains(&r)) {
            return Err("rows must be from 1 to 10^9".into());
        }
        if w.selectivity
            .is_some_and(|s| !(s.is_finite() && (0.0..=1.0).contains(&s)))
            || (w.op == OpKind::Scan && w.selectivity.is_some_and(|s| s < 1e-9))
        {
            return Err("selectivity must be from 0 to 1 (above 0 for a scan)".into());
        }
        Ok(())
    }

    /// The family a write workload writes to.
    #[must_use]
    pub fn family_of(&self, w: &Workload) -> Option<&FamilySpec> {
        match &w.family {
            Some(f) => self.table.families.get(f),
            None => self.table.families.values().next(),
        }
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before.len(), |p| before.len() - p - 1)
        + 1;
    (line, col)
}

fn find_line(text: &str, header: &str) -> Option<usize> {
    nth_line(text, header, 0)
}

fn nth_line(text: &str, header: &str, n: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(header))
        .nth(n)
        .map(|(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    const MINIMAL: &str = r#"
name = "minimal"
duration = "10m"

[table]
rows = 1000

[key]
segments = [{ name = "user", kind = "int", width = 6 }]

[[workload]]
op = "write"
rate = 100
"#;

    #[test]
    fn durations_and_times() {
        assert_eq!(Seconds::parse("90").unwrap().0, 90.0);
        assert_eq!(Seconds::parse("1h30m").unwrap().0, 5400.0);
        assert_eq!(Seconds::parse("250ms").unwrap().0, 0.25);
        assert_eq!(Seconds::parse("2d").unwrap().0, 172_800.0);
        assert!(Seconds::parse("ten minutes").is_err());
        assert!(Seconds::parse("").is_err());
        assert!(Seconds::parse("5x").is_err());
        assert_eq!(Seconds(5400.0).to_string(), "90m");
        assert_eq!(Seconds(3600.0).to_string(), "1h");
        assert_eq!(Seconds(1.5).to_string(), "1.5s");
        let t = StartTime::parse("2020-05-01T00:00:00Z").unwrap();
        assert_eq!(t.0, 1_588_291_200_000_000);
        assert_eq!(t.to_string(), "2020-05-01T00:00:00Z");
        assert_eq!(StartTime::parse("2020-05-01").unwrap(), t);
        assert!(StartTime::parse("2020-13-01").is_err());
        assert!(StartTime::parse("yesterday").is_err());
    }

    #[test]
    fn parses_a_minimal_scenario_with_defaults() {
        let s = Scenario::from_toml(MINIMAL).unwrap();
        assert_eq!(s.duration.0, 600.0);
        assert_eq!(s.cluster.nodes, 3);
        assert_eq!(s.workloads[0].keys, KeyDist::Uniform);
        assert_eq!(s.keyviz.time_buckets, 300);
        assert_eq!(s.cluster.reads_per_second(), 17_000.0);
        assert_eq!(s.cluster.writes_per_second(), 14_000.0);
        assert_eq!(s.cluster.scan_bytes_per_second(), 220e6);
        // Round trip through JSON.
        let json = serde_json::to_string(&s).unwrap();
        let back: Scenario = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn a_scenario_running_past_year_9999_is_refused() {
        let at = |start: &str, duration: &str| {
            let text = MINIMAL.replace(
                "duration = \"10m\"",
                &format!("duration = \"{duration}\"\nstart = {start}"),
            );
            Scenario::from_toml(&text)
        };
        assert!(at("9999-12-31T23:00:00Z", "10m").is_ok());
        for (start, duration) in [
            ("9999-12-31T23:55:00Z", "10m"),
            ("9999-12-31T00:00:00Z", "30d"),
        ] {
            let e = at(start, duration).unwrap_err();
            assert_eq!(e.code(), tabletop_store::Code::InvalidArgument);
            assert!(
                e.message().contains("past the end of year 9999"),
                "{}",
                e.message()
            );
        }
    }

    #[test]
    fn parses_shapes_dists_and_toml_datetimes() {
        let text = format!(
            "{MINIMAL}keys = {{ zipf = 1.2 }}\nshape = {{ periodic = {{ every = \"10m\", active = \"2m\" }} }}\n"
        )
        .replace("duration = \"10m\"", "duration = \"10m\"\nstart = 2021-01-02T03:04:05Z");
        let s = Scenario::from_toml(&text).unwrap();
        assert_eq!(s.workloads[0].keys, KeyDist::Zipf(1.2));
        assert_eq!(s.start.to_string(), "2021-01-02T03:04:05Z");
        let shape = s.workloads[0].shape;
        assert_eq!(shape.factor(0.0), 1.0);
        assert_eq!(shape.factor(119.0), 1.0);
        assert_eq!(shape.factor(121.0), 0.0);
        assert_eq!(shape.factor(600.0), 1.0);
        let spike = Shape::Spike {
            at: Seconds(10.0),
            length: Seconds(5.0),
            factor: 4.0,
        };
        assert_eq!((spike.factor(9.0), spike.factor(12.0)), (1.0, 4.0));
        let day = Shape::Diurnal {
            period: Seconds(100.0),
            low: 0.2,
        };
        assert!((day.factor(0.0) - 0.2).abs() < 1e-9);
        assert!((day.factor(50.0) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn errors_name_the_line_or_field() {
        let err =
            Scenario::from_toml(&MINIMAL.replace("rate = 100", "rate = \"fast\"")).unwrap_err();
        assert!(err.message().contains("line 13"), "{}", err.message());
        let err = Scenario::from_toml(&MINIMAL.replace("rate = 100", "rat = 100")).unwrap_err();
        assert!(
            err.message().contains("unknown field `rat`"),
            "{}",
            err.message()
        );
        assert!(err.message().contains("line 13"), "{}", err.message());
        let err = Scenario::from_toml(&MINIMAL.replace("rate = 100", "rate = -1")).unwrap_err();
        assert!(err.message().contains("line 11"), "{}", err.message());
        assert!(err.message().contains("workload #1"), "{}", err.message());
        let err =
            Scenario::from_toml(&MINIMAL.replace("rows = 1000", "rows = 1000\nrow_bytes = 0"))
                .unwrap_err();
        assert!(
            err.message().contains("table.row_bytes"),
            "{}",
            err.message()
        );
        assert!(err.message().contains("line 5"), "{}", err.message());
        let err = Scenario::from_toml(&MINIMAL.replace("kind = \"int\"", "kind = \"integer\""))
            .unwrap_err();
        assert!(err.message().contains("unknown kind"), "{}", err.message());
        assert!(err.message().contains("line 9"), "{}", err.message());
        assert!(
            !err.message().contains("INVALID_ARGUMENT"),
            "{}",
            err.message()
        );
        let err =
            Scenario::from_toml(&MINIMAL.replace("op = \"write\"", "op = \"scan\"")).unwrap_err();
        assert!(
            err.message().contains("prefix_segments"),
            "{}",
            err.message()
        );
        assert!(Scenario::from_toml("not toml at all [").is_err());
        assert!(Scenario::from_toml("").is_err());
    }
}
