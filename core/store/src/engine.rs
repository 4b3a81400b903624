//! The storage engine: tables made of tablets, each tablet a memtable plus
//! immutable sorted runs, merged on read and reshaped by an explicit
//! [`tick`](crate::Instance::tick).
//!
//! This follows Bigtable's own design at playground scale:
//! - writes go to the tablet's memtable; past a size threshold the memtable
//!   is flushed into a run, and runs of similar size are merged;
//! - compactions run only inside `tick(now)` (or "compact now"); they are
//!   the only place where GC rules delete cells, so GC is lazy exactly as in
//!   Bigtable: eligible cells stay readable until a compaction collects them;
//! - tablets split at row boundaries when they grow past a threshold and
//!   merge with a neighbour when both are small.
//!
//! Nothing here reads a clock or starts a thread: time is always passed in.

pub(crate) mod family;
pub(crate) mod fence;
pub(crate) mod memtable;
pub(crate) mod merge;
pub(crate) mod pace;
pub(crate) mod run;
pub(crate) mod run_scan;
pub(crate) mod table;
pub(crate) mod tablet;
pub(crate) mod value_index;

/// Size thresholds and timing of the engine's background work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// A memtable holding more logical bytes than this is flushed into a run.
    pub memtable_flush_bytes: u64,
    /// A tablet holding more logical bytes than this is split at the next
    /// tick. Small by default so splits happen in playground-sized tables.
    pub split_bytes: u64,
    /// Two neighbouring tablets holding fewer bytes than this together are
    /// merged at the next tick (never across an initial split key).
    pub merge_bytes: u64,
    /// A tablet whose last GC compaction is older than this (in instance
    /// time) is compacted at the next tick. GC happens only then.
    pub gc_interval_micros: i64,
    /// A tablet with more runs than this is compacted at the next tick.
    pub max_runs: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            memtable_flush_bytes: 32 * 1024,
            split_bytes: 128 * 1024,
            merge_bytes: 32 * 1024,
            gc_interval_micros: 3_600 * 1_000_000,
            max_runs: 4,
        }
    }
}

impl EngineConfig {
    /// Thresholds for loading large data sets fast (benchmarks, imports):
    /// big memtables and tablets, so data is copied few times.
    #[must_use]
    pub fn bulk() -> Self {
        EngineConfig {
            memtable_flush_bytes: 64 * 1024 * 1024,
            split_bytes: 256 * 1024 * 1024,
            merge_bytes: 16 * 1024 * 1024,
            gc_interval_micros: 3_600 * 1_000_000,
            max_runs: 8,
        }
    }
}

/// Something the engine did to a table's layout during a tick or an
/// explicit compaction; the UI animates these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineEvent {
    /// A memtable became a run.
    Flush {
        /// Table id.
        table: String,
        /// Tablet id.
        tablet: u64,
    },
    /// A tablet was compacted; `collected` cells were removed by GC rules.
    Compaction {
        /// Table id.
        table: String,
        /// Tablet id.
        tablet: u64,
        /// The tablet's start key.
        start: Vec<u8>,
        /// The tablet's end key (`None`: the end of the table).
        end: Option<Vec<u8>>,
        /// Cells removed by GC.
        collected: u64,
        /// Cells kept.
        kept: u64,
    },
    /// A tablet was split; the new tablets start at `keys` (the first keeps
    /// the old start).
    Split {
        /// Table id.
        table: String,
        /// The tablet that was split.
        tablet: u64,
        /// The new tablets, in key order.
        into: Vec<u64>,
        /// The new split keys.
        keys: Vec<Vec<u8>>,
    },
    /// Two neighbouring tablets became one.
    Merge {
        /// Table id.
        table: String,
        /// The two tablets, in key order.
        from: [u64; 2],
        /// The new tablet.
        into: u64,
    },
}
