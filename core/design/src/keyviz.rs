//! Key Visualizer: time x key-bucket matrices of traffic and storage,
//! heatmaps ready for a canvas, a hierarchy of key-prefix labels, and
//! diagnostics that name the pattern a heatmap shows.
//!
//! Cloud Bigtable's Key Visualizer needs a large table and hours of
//! traffic before it draws anything; here the simulator ([`crate::sim`])
//! feeds the same kind of matrices in a fraction of a second. The pieces:
//!
//! - [`KeyAxis`]: anchor keys cutting the key space into *fine* buckets that
//!   each hold about the same number of rows (quantiles of a sample of the
//!   table's keys). Every operation is counted in the fine bucket of its key.
//! - [`Recorder`]: one `f32` matrix per stored [`Metric`], time bucket x fine
//!   bucket.
//! - [`Heatmap`]: fine buckets grouped into at most [`MAX_KEY_BUCKETS`]
//!   display buckets ([`BucketMode::EqualKeys`], as Bigtable does, or
//!   [`BucketMode::TrafficWeighted`], which keeps hot ranges fine-grained),
//!   as a flat row-major buffer plus RGBA pixels on a relative or absolute
//!   [`ColorScale`].
//! - [`PrefixTree`]: labels for the key axis, one level per key segment.
//! - [`diagnose`]: the findings ([`Pattern`]) with key range, time range,
//!   [`Severity`] and a remedy.
//! - Google's own vocabulary beside the named patterns: read and write
//!   pressure indexes ([`pressure_index`]) and the messages Key Visualizer
//!   shows above a heatmap ([`google_messages`]).
//! - [`LiveKeyViz`]: the same pieces fed by what a real instance's table
//!   served ([`tabletop_store::traffic`]) instead of by the simulator;
//!   [`LiveBuild`] makes one in steps, for a page that must not stall.
//!
//! Nothing here knows about nodes or workloads except through the plain
//! numbers handed to [`diagnose`] in a [`Context`].

mod axis;
mod diagnose;
mod heatmap;
mod labels;
mod live;
mod live_build;
mod messages;
mod placement;
mod pressure;
mod recorder;

use serde::{Deserialize, Serialize};

pub use axis::KeyAxis;
pub use diagnose::{Context, Diagnostic, HotKey, Pattern, Severity, diagnose, human_seconds};
pub use heatmap::{
    BucketMode, ColorScale, Heatmap, KeyBucket, KeyGrouping, MAX_KEY_BUCKETS, viridis,
};
pub(crate) use labels::grouped_prefix_shares;
pub use labels::{PrefixNode, PrefixShare, PrefixTree, prefixes_text};
pub use live::{LiveKeyViz, LiveOptions, LiveReport, LiveTablet, LiveTotals};
pub use live_build::LiveBuild;
pub use messages::{GoogleMessage, MessageIcon, MessageKind, google_messages, messages_text};
pub use placement::tablet_nodes;
pub use pressure::{
    CPU_AT_POOR, POOR_PRESSURE, SLOWDOWN_AT_POOR, pressure_index, queue_latency_ms,
};
pub use recorder::Recorder;

/// What a heatmap shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Operations (reads, writes, scans) per second touching the bucket; a
    /// scan counts once in every bucket it reads.
    Ops,
    /// Rows returned by reads per second.
    ReadRows,
    /// Rows written per second.
    WriteRows,
    /// Bytes returned by reads per second.
    ReadBytes,
    /// Bytes written per second.
    WriteBytes,
    /// Rows examined by reads per second (at least the rows returned;
    /// far more for filtered scans).
    RowsScanned,
    /// Bytes stored at the end of each time bucket.
    DataStored,
    /// Rows stored at the end of each time bucket.
    Rows,
    /// Rows scanned per row returned (derived; 0 where nothing was read).
    ScanRatio,
    /// CPU the bucket's reads (and scans) need, in % of one node.
    ReadCpu,
    /// CPU the bucket's writes need, in % of one node.
    WriteCpu,
    /// Mean latency of the bucket's operations, in ms: the latency of the
    /// node serving it, weighted by the work (derived).
    Latency,
    /// Google's read pressure index: CPU and latency of reads as one
    /// score, 100 or more meaning poor performance ([`pressure_index`]; derived,
    /// the highest fine bucket of each display bucket).
    ReadPressure,
    /// The same index for writes.
    WritePressure,
}

impl Metric {
    /// Every metric: the nine traffic and storage metrics, then Google's
    /// CPU, latency and pressure metrics.
    pub const ALL: [Metric; 14] = [
        Metric::Ops,
        Metric::ReadRows,
        Metric::WriteRows,
        Metric::ReadBytes,
        Metric::WriteBytes,
        Metric::RowsScanned,
        Metric::DataStored,
        Metric::Rows,
        Metric::ScanRatio,
        Metric::ReadCpu,
        Metric::WriteCpu,
        Metric::Latency,
        Metric::ReadPressure,
        Metric::WritePressure,
    ];

    /// Index of the metric's matrix in the [`Recorder`], or `None` for a
    /// derived metric.
    #[must_use]
    pub fn stored_index(self) -> Option<usize> {
        match self {
            Metric::Ops => Some(0),
            Metric::ReadRows => Some(1),
            Metric::WriteRows => Some(2),
            Metric::ReadBytes => Some(3),
            Metric::WriteBytes => Some(4),
            Metric::RowsScanned => Some(5),
            Metric::DataStored => Some(6),
            Metric::Rows => Some(7),
            Metric::ReadCpu => Some(8),
            Metric::WriteCpu => Some(9),
            Metric::ScanRatio | Metric::Latency | Metric::ReadPressure | Metric::WritePressure => {
                None
            }
        }
    }

    /// Whether the metric is a state (stored data) rather than traffic.
    #[must_use]
    pub fn is_state(self) -> bool {
        matches!(self, Metric::DataStored | Metric::Rows)
    }

    /// Whether heatmaps show it per second.
    #[must_use]
    pub fn is_rate(self) -> bool {
        !self.is_state()
            && !matches!(
                self,
                Metric::ScanRatio | Metric::Latency | Metric::ReadPressure | Metric::WritePressure
            )
    }

    /// Whether the metric is one of Google's warnings (a pressure index).
    #[must_use]
    pub fn is_pressure(self) -> bool {
        matches!(self, Metric::ReadPressure | Metric::WritePressure)
    }

    /// The unit heatmap values are in.
    #[must_use]
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Ops => "ops/s",
            Metric::ReadRows | Metric::WriteRows | Metric::RowsScanned => "rows/s",
            Metric::ReadBytes | Metric::WriteBytes => "B/s",
            Metric::DataStored => "B",
            Metric::Rows => "rows",
            Metric::ScanRatio => "rows scanned per row returned",
            Metric::ReadCpu | Metric::WriteCpu => "% of a node",
            Metric::Latency => "ms",
            Metric::ReadPressure | Metric::WritePressure => "index (100+ is poor)",
        }
    }

    /// The snake_case name (`write_rows`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Metric::Ops => "ops",
            Metric::ReadRows => "read_rows",
            Metric::WriteRows => "write_rows",
            Metric::ReadBytes => "read_bytes",
            Metric::WriteBytes => "write_bytes",
            Metric::RowsScanned => "rows_scanned",
            Metric::DataStored => "data_stored",
            Metric::Rows => "rows",
            Metric::ScanRatio => "scan_ratio",
            Metric::ReadCpu => "read_cpu",
            Metric::WriteCpu => "write_cpu",
            Metric::Latency => "latency",
            Metric::ReadPressure => "read_pressure",
            Metric::WritePressure => "write_pressure",
        }
    }

    /// Parses a snake_case name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }
}
