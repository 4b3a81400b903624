//! What a change stream costs the write path: the main benchmark's bulk
//! load on two instances side by side, one table without a change stream
//! (the path every table takes unless it asks for one: one branch per
//! write) and one with a change stream kept for a day (every committed
//! row recorded with its mutations), interleaved in slices as the traffic
//! phases are (see `traffic.rs`), then a compaction of each.

use tabletop_core::{ChangeStreamConfig, Instance};

use crate::traffic::{instance, interleaved, load_rows};
use crate::{MobileData, Report, phase};

/// Rows loaded into one instance before switching to the other.
const LOAD_SLICE: usize = 2_000;
const DAY_MICROS: i64 = 86_400_000_000;

/// Adds the phases "change stream: ..." (off and on) to `report`.
pub(crate) fn run(data: &MobileData, report: &mut Report, now_ms: &dyn Fn() -> f64) {
    let mut dbs: [Instance; 2] = [instance(data, true), instance(data, true)];
    let config = ChangeStreamConfig::new(DAY_MICROS).ok();
    let _ = dbs[1].set_change_stream("mobile", config);
    let (ms_off, ms_on, ratio) = interleaved(
        &mut dbs,
        data.rows.chunks(LOAD_SLICE),
        now_ms,
        |db, rows| load_rows(db, data, rows),
    );
    let kept = dbs[1]
        .change_stream_tail("mobile", 0)
        .ok()
        .flatten()
        .map_or(0, |t| t.kept);
    let rows = data.rows() as u64;
    phase(
        report,
        "off",
        "change stream: bulk load",
        ms_off,
        rows,
        String::new(),
    );
    phase(
        report,
        "on",
        "change stream: bulk load",
        ms_on,
        rows,
        format!(
            "{:+.1}% with a change stream (median of the slices); {kept} records kept",
            (ratio - 1.0) * 100.0
        ),
    );
    let mut compact_ms = [0.0f64; 2];
    for (k, db) in dbs.iter_mut().enumerate() {
        let start = now_ms();
        let _ = db.compact(None);
        compact_ms[k] = now_ms() - start;
    }
    phase(
        report,
        "off",
        "change stream: compaction",
        compact_ms[0],
        rows,
        String::new(),
    );
    phase(
        report,
        "on",
        "change stream: compaction",
        compact_ms[1],
        rows,
        String::new(),
    );
}
