//! The baseline: the obvious in-memory store, one `BTreeMap` entry per cell
//! keyed by `(row, family, qualifier, Reverse(timestamp))`, each with its
//! own heap allocations. It answers the same reads as the engine.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::ops::Bound;

use crate::{
    MobileData, QUALIFIERS, Report, allocation_calls, live_bytes, peak_bytes, phase, reset_peak,
};

type Key = (Vec<u8>, String, Vec<u8>, Reverse<i64>);

/// A cell-per-entry ordered map.
#[derive(Default)]
pub struct Naive {
    cells: BTreeMap<Key, Vec<u8>>,
}

impl Naive {
    /// Writes one cell.
    pub fn set(&mut self, row: &[u8], family: &str, qualifier: &[u8], ts: i64, value: &[u8]) {
        self.cells.insert(
            (
                row.to_vec(),
                family.to_string(),
                qualifier.to_vec(),
                Reverse(ts),
            ),
            value.to_vec(),
        );
    }

    /// Visits the cells of rows in `[start, end)`; returns rows visited.
    pub fn scan(&self, start: &[u8], end: Option<&[u8]>, cells: &mut u64) -> u64 {
        let lo = (start.to_vec(), String::new(), Vec::new(), Reverse(i64::MAX));
        let mut rows = 0;
        let mut last: Option<&[u8]> = None;
        for ((row, ..), _) in self.cells.range((Bound::Included(lo), Bound::Unbounded)) {
            if end.is_some_and(|e| row.as_slice() >= e) {
                break;
            }
            *cells += 1;
            if last != Some(row.as_slice()) {
                rows += 1;
                last = Some(row);
            }
        }
        rows
    }
}

/// The naive store's filtered scans: the same filters as the engine's,
/// each written the obvious way over every cell.
fn filtered_scans(store: &Naive, report: &mut Report, now_ms: &dyn Fn() -> f64) {
    let anchored = |p: &str| regex::bytes::Regex::new(&format!("^(?s-u:{p})$"));
    let (Ok(value_re), Ok(qual_re)) = (
        anchored(crate::VALUE_REGEX),
        anchored(crate::QUALIFIER_REGEX),
    ) else {
        return;
    };
    type Keep<'a> = Box<dyn Fn(&Key, &[u8], usize) -> bool + 'a>;
    let scans: Vec<(&str, Keep<'_>)> = vec![
        (
            "full scan, value regex",
            Box::new(|_, v, _| value_re.is_match(v)),
        ),
        (
            "full scan, chain of 3 filters",
            Box::new(|k, v, _| {
                k.1 == crate::DETAIL
                    && qual_re.is_match(&k.2)
                    && v >= b"5".as_slice()
                    && v < b"9".as_slice()
            }),
        ),
        (
            "full scan, cells per column 1",
            Box::new(|_, _, version| version == 0),
        ),
    ];
    for (name, keep) in scans {
        let start = now_ms();
        let (mut rows, mut cells) = (0u64, 0u64);
        let mut last_row: Option<&[u8]> = None;
        let mut last_col: Option<(&str, &[u8])> = None;
        let mut version = 0;
        let mut row_counted = false;
        for (k, v) in &store.cells {
            if last_row != Some(k.0.as_slice()) {
                last_row = Some(&k.0);
                row_counted = false;
            }
            if last_col == Some((k.1.as_str(), k.2.as_slice())) {
                version += 1;
            } else {
                last_col = Some((&k.1, &k.2));
                version = 0;
            }
            if keep(k, v, version) {
                cells += 1;
                if !row_counted {
                    rows += 1;
                    row_counted = true;
                }
            }
        }
        let ms = now_ms() - start;
        phase(
            report,
            "naive",
            name,
            ms,
            rows,
            format!("{cells} cells returned"),
        );
    }
}

pub(crate) fn run(
    data: &MobileData,
    keys: &[Vec<u8>],
    prefixes: &[Vec<u8>],
    report: &mut Report,
    now_ms: &dyn Fn() -> f64,
) {
    let heap_before = live_bytes();
    reset_peak();
    let calls_before = allocation_calls();
    let mut store = Naive::default();
    let start = now_ms();
    for r in &data.rows {
        for c in data.row_cells(r) {
            store.set(
                data.key(r),
                MobileData::family(c),
                QUALIFIERS[c.qual as usize],
                r.ts,
                data.value(c),
            );
        }
    }
    let ms = now_ms() - start;
    let calls = allocation_calls() - calls_before;
    phase(
        report,
        "naive",
        "bulk load (insert per cell)",
        ms,
        data.rows() as u64,
        format!(
            "{:.2} M cells/s, {:.2} allocations per cell",
            data.cells() as f64 / ms / 1000.0,
            calls as f64 / data.cells() as f64
        ),
    );
    let heap = live_bytes() - heap_before;
    phase(
        report,
        "naive",
        "memory after load",
        0.0,
        0,
        format!(
            "{:.1} MB heap = {:.2}x raw; peak during load {:.1} MB",
            heap as f64 / 1e6,
            heap as f64 / report.raw_bytes as f64,
            (peak_bytes() - heap_before) as f64 / 1e6
        ),
    );
    let mut cells = 0;
    let start = now_ms();
    let mut found = 0;
    for k in keys {
        let mut end = k.clone();
        end.push(0);
        found += store.scan(k, Some(&end), &mut cells);
    }
    let ms = now_ms() - start;
    phase(
        report,
        "naive",
        "1000 point reads",
        ms,
        keys.len() as u64,
        format!("{found} rows found"),
    );
    let start = now_ms();
    let mut rows = 0;
    for p in prefixes {
        let end = tabletop_core::prefix_successor(p);
        rows += store.scan(p, end.as_deref(), &mut cells);
    }
    let ms = now_ms() - start;
    phase(
        report,
        "naive",
        "1000 prefix scans (10 rows each)",
        ms,
        prefixes.len() as u64,
        format!("{rows} rows returned"),
    );
    let mut cells = 0;
    let start = now_ms();
    let rows = store.scan(&[], None, &mut cells);
    let ms = now_ms() - start;
    phase(
        report,
        "naive",
        "full scan",
        ms,
        rows,
        format!("{:.1} M cells/s", cells as f64 / ms / 1000.0),
    );
    filtered_scans(&store, report, now_ms);
}
