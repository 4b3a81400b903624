//! The core's three read phases of issue 18's goals, timed warm and
//! repeated.
//!
//! `run` times each read phase once, early in the process: in wasm under
//! V8 that first call also pays for compiling the read code (V8 compiles a
//! wasm function lazily, with its baseline compiler, and optimizes hot ones
//! later in the background), so its figures are not what a read costs once
//! the code is hot. Here the same store (the mobile data set, written row
//! by row with the bulk engine thresholds, then compacted, as `run` does)
//! is read in untimed warm-up rounds first, then in timed rounds, each
//! round one batch of every phase. [`WarmReads`] holds the store so that a
//! caller can also time the phases itself, between other stores' reads.

use tabletop_core::{CountRows, EngineConfig, Instance, ReadRowsRequest, RowFilter};

use crate::{MobileData, VALUE_REGEX, load_mobile, mobile_instance, point_reads, prefix_scans};

/// The mobile data set in a store of its own, with the reads of the goals:
/// 1000 sampled keys, 1000 sampled month prefixes (the same samples as
/// `run`'s), and the value-regex full scan.
pub struct WarmReads {
    data: MobileData,
    keys: Vec<Vec<u8>>,
    prefixes: Vec<Vec<u8>>,
    db: Instance,
}

impl WarmReads {
    /// About `rows` rows generated, and the empty table made; nothing
    /// written yet.
    #[must_use]
    pub fn new(rows: usize) -> WarmReads {
        let data = MobileData::generate(rows);
        let keys = data.sample_keys(1000, 7);
        let prefixes = data.sample_prefixes(1000, 11);
        let db = mobile_instance(&data, EngineConfig::bulk());
        WarmReads {
            data,
            keys,
            prefixes,
            db,
        }
    }

    /// Rows in the data set.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.data.rows()
    }

    /// Cells in the data set.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.data.cells()
    }

    /// Writes the data set; answers how many row writes failed.
    pub fn load(&mut self) -> u64 {
        load_mobile(&mut self.db, &self.data)
    }

    /// Compacts the table (as `run` does before its reads).
    pub fn compact(&mut self) {
        let _ = self.db.compact(None);
    }

    /// The 1000 point reads; answers the rows found.
    pub fn point_reads(&mut self) -> u64 {
        let mut sink = CountRows::default();
        point_reads(&mut self.db, &self.keys, &mut sink);
        sink.rows
    }

    /// The 1000 prefix scans of ten rows; answers the rows returned.
    pub fn prefix_scans(&mut self) -> u64 {
        let mut sink = CountRows::default();
        prefix_scans(&mut self.db, &self.prefixes, &mut sink);
        sink.rows
    }

    /// The value-regex full scan (the first one also builds the table's
    /// value index); answers the rows returned.
    pub fn regex_scan(&mut self) -> u64 {
        let mut sink = CountRows::default();
        let req = ReadRowsRequest {
            filter: Some(RowFilter::ValueRegex(VALUE_REGEX.as_bytes().to_vec())),
            ..ReadRowsRequest::default()
        };
        let _ = self.db.read_rows("mobile", &req, &mut sink);
        sink.rows
    }
}

/// One read phase's timed rounds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhaseRounds {
    /// Each round's time in milliseconds, in order.
    pub ms: Vec<f64>,
    /// Each round's rows counted, in order.
    pub rows: Vec<u64>,
}

impl PhaseRounds {
    fn time(&mut self, now_ms: &dyn Fn() -> f64, read: impl FnOnce() -> u64) {
        let start = now_ms();
        let rows = read();
        self.ms.push(now_ms() - start);
        self.rows.push(rows);
    }
}

/// What [`read_rounds`] measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rounds {
    /// Rows in the data set.
    pub rows: usize,
    /// Cells in the data set.
    pub cells: usize,
    /// Untimed rounds before the timed ones.
    pub warm_up: usize,
    /// Row writes that failed.
    pub load_errors: u64,
    /// The load's time in milliseconds.
    pub load_ms: f64,
    /// The compaction's time in milliseconds.
    pub compact_ms: f64,
    /// The first value-regex scan, which builds the value index (before
    /// the warm-up rounds).
    pub first_regex_ms: f64,
    /// 1000 point reads per round.
    pub point: PhaseRounds,
    /// 1000 prefix scans of ten rows per round.
    pub prefix: PhaseRounds,
    /// One value-regex full scan per round.
    pub regex: PhaseRounds,
}

impl Rounds {
    /// The figures as one JSON object (times in ms; a time the clock could
    /// not give, NaN, as `null`).
    #[must_use]
    pub fn to_json(&self) -> String {
        let phase = |p: &PhaseRounds| serde_json::json!({ "ms": p.ms, "rows": p.rows });
        serde_json::json!({
            "rows": self.rows,
            "cells": self.cells,
            "warm_up": self.warm_up,
            "load_errors": self.load_errors,
            "load_ms": self.load_ms,
            "compact_ms": self.compact_ms,
            "first_regex_ms": self.first_regex_ms,
            "point": phase(&self.point),
            "prefix": phase(&self.prefix),
            "regex": phase(&self.regex),
        })
        .to_string()
    }
}

/// Builds the store of about `rows` rows (load and compaction timed), scans
/// once to build the value index (timed apart), reads `warm_up` untimed
/// rounds, then `rounds` timed rounds of point reads, prefix scans and the
/// regex scan, in that order each round. `now_ms` is the clock.
pub fn read_rounds(rows: usize, warm_up: usize, rounds: usize, now_ms: &dyn Fn() -> f64) -> Rounds {
    let mut store = WarmReads::new(rows);
    let mut out = Rounds {
        rows: store.rows(),
        cells: store.cells(),
        warm_up,
        ..Rounds::default()
    };
    let start = now_ms();
    out.load_errors = store.load();
    out.load_ms = now_ms() - start;
    let start = now_ms();
    store.compact();
    out.compact_ms = now_ms() - start;
    let start = now_ms();
    store.regex_scan();
    out.first_regex_ms = now_ms() - start;
    for _ in 0..warm_up {
        store.point_reads();
        store.prefix_scans();
        store.regex_scan();
    }
    for _ in 0..rounds {
        out.point.time(now_ms, || store.point_reads());
        out.prefix.time(now_ms, || store.prefix_scans());
        out.regex.time(now_ms, || store.regex_scan());
    }
    out
}

/// The wasm exports: [`read_rounds`] by the host's clock, and
/// [`WarmReads`] as the class `CoreReads` for a caller that times the
/// phases itself.
#[cfg(target_arch = "wasm32")]
mod js {
    use wasm_bindgen::prelude::wasm_bindgen;

    use super::WarmReads;

    /// [`super::read_rounds`] timed by the global `performance.now()`;
    /// answers its figures as JSON text.
    #[wasm_bindgen]
    #[must_use]
    pub fn read_rounds(rows: u32, warm_up: u32, rounds: u32) -> String {
        super::read_rounds(
            rows as usize,
            warm_up as usize,
            rounds as usize,
            &crate::host_clock(),
        )
        .to_json()
    }

    /// The core's store of the goals' reads, read from JavaScript.
    #[wasm_bindgen]
    pub struct CoreReads(WarmReads);

    #[wasm_bindgen]
    impl CoreReads {
        /// The data set of about `rows` rows and the empty table.
        #[wasm_bindgen(constructor)]
        #[must_use]
        pub fn new(rows: u32) -> CoreReads {
            CoreReads(WarmReads::new(rows as usize))
        }
        /// Rows in the data set.
        #[must_use]
        pub fn rows(&self) -> u32 {
            self.0.rows() as u32
        }
        /// Cells in the data set.
        #[must_use]
        pub fn cells(&self) -> u32 {
            self.0.cells() as u32
        }
        /// Writes the data set; answers the failed row writes.
        pub fn load(&mut self) -> u32 {
            self.0.load() as u32
        }
        /// Compacts the table.
        pub fn compact(&mut self) {
            self.0.compact();
        }
        /// The 1000 point reads; answers the rows found.
        pub fn point_reads(&mut self) -> u32 {
            self.0.point_reads() as u32
        }
        /// The 1000 prefix scans; answers the rows returned.
        pub fn prefix_scans(&mut self) -> u32 {
            self.0.prefix_scans() as u32
        }
        /// The value-regex full scan; answers the rows returned.
        pub fn regex_scan(&mut self) -> u32 {
            self.0.regex_scan() as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// Rows whose os_build value the goals' regex accepts, counted from the
    /// generated data rather than through the engine.
    fn rows_matching_the_regex(data: &MobileData) -> u64 {
        data.rows
            .iter()
            .filter(|r| {
                data.row_cells(r)
                    .iter()
                    .any(|c| c.qual == 2 && data.value(c).starts_with(b"PQ2A.19040"))
            })
            .count() as u64
    }

    #[test]
    fn rounds_count_the_rows_of_each_read_phase() {
        // A clock that moves one millisecond per reading: each timed
        // phase reads it exactly twice, and the warm-up never.
        let ticks = Cell::new(0.0);
        let clock = || {
            ticks.set(ticks.get() + 1.0);
            ticks.get()
        };
        let out = read_rounds(2_000, 2, 3, &clock);
        let expected_regex = rows_matching_the_regex(&MobileData::generate(2_000));
        assert_eq!(out.rows, 2_000);
        assert_eq!(out.load_errors, 0);
        assert!(expected_regex > 0 && expected_regex < 2_000);
        assert_eq!(out.point.rows, vec![1_000; 3]);
        assert_eq!(out.prefix.rows, vec![10_000; 3]);
        assert_eq!(out.regex.rows, vec![expected_regex; 3]);
        for phase in [&out.point, &out.prefix, &out.regex] {
            assert_eq!(phase.ms, vec![1.0; 3]);
        }
        // Load, compaction, the first scan and 3 x 3 timed phases.
        assert_eq!(ticks.get(), 2.0 * 12.0);
    }

    #[test]
    fn the_store_reads_the_same_rows_before_and_after_its_compaction() {
        let mut store = WarmReads::new(1_000);
        assert_eq!(store.load(), 0);
        let before = (
            store.point_reads(),
            store.prefix_scans(),
            store.regex_scan(),
        );
        store.compact();
        let after = (
            store.point_reads(),
            store.prefix_scans(),
            store.regex_scan(),
        );
        assert_eq!(before, after);
        assert_eq!(before.0, 1_000);
    }

    #[test]
    fn the_json_lists_every_round() {
        let out = Rounds {
            rows: 10,
            cells: 77,
            warm_up: 5,
            load_ms: 1.5,
            compact_ms: f64::NAN,
            point: PhaseRounds {
                ms: vec![0.25, 2.0],
                rows: vec![3, 3],
            },
            ..Rounds::default()
        };
        let json: serde_json::Value = serde_json::from_str(&out.to_json()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "rows": 10, "cells": 77, "warm_up": 5, "load_errors": 0,
                "load_ms": 1.5, "compact_ms": null, "first_regex_ms": 0.0,
                "point": { "ms": [0.25, 2.0], "rows": [3, 3] },
                "prefix": { "ms": [], "rows": [] },
                "regex": { "ms": [], "rows": [] },
            })
        );
    }
}
