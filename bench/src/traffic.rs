//! What recording traffic costs: the bulk load, point reads and prefix
//! scans of the main benchmark, each run with the instance's traffic
//! recording off and on, alternately, keeping the best time of each.

use tabletop_core::{
    ColumnFamily, CountRows, CreateTableRequest, EngineConfig, Instance, InstanceConfig, Mutation,
    ReadRowsRequest, RowRange, RowSet, TableSchema,
};

use crate::{DETAIL, MobileData, QUALIFIERS, Report, SUMMARY, phase};

/// Rounds per setting; the order alternates (off, on, on, off, ...).
const ROUNDS: usize = 2;
/// Times the 1000 reads are repeated per round, for a measurable time.
const READ_REPEATS: usize = 5;

/// Best times (ms) of one setting.
#[derive(Clone, Copy, Default)]
struct Best {
    load: f64,
    points: f64,
    scans: f64,
}

impl Best {
    fn keep(&mut self, other: Best) {
        let min = |a: f64, b: f64| if a == 0.0 { b } else { a.min(b) };
        self.load = min(self.load, other.load);
        self.points = min(self.points, other.points);
        self.scans = min(self.scans, other.scans);
    }
}

/// Adds the phases "traffic off/on: ..." to `report`.
pub(crate) fn run(
    data: &MobileData,
    keys: &[Vec<u8>],
    prefixes: &[Vec<u8>],
    report: &mut Report,
    now_ms: &dyn Fn() -> f64,
) {
    let (mut off, mut on) = (Best::default(), Best::default());
    for round in 0..2 * ROUNDS {
        let record = matches!(round % 4, 1 | 2);
        let times = one_round(data, keys, prefixes, record, now_ms);
        if record {
            on.keep(times);
        } else {
            off.keep(times);
        }
    }
    let reads = (keys.len() * READ_REPEATS) as u64;
    let scans = (prefixes.len() * READ_REPEATS) as u64;
    for (name, ms_off, ms_on, ops) in [
        ("bulk load", off.load, on.load, data.rows() as u64),
        ("point reads", off.points, on.points, reads),
        ("prefix scans", off.scans, on.scans, scans),
    ] {
        let cost = if ms_off > 0.0 {
            (ms_on / ms_off - 1.0) * 100.0
        } else {
            0.0
        };
        phase(
            report,
            "off",
            &format!("traffic: {name}"),
            ms_off,
            ops,
            String::new(),
        );
        phase(
            report,
            "on",
            &format!("traffic: {name}"),
            ms_on,
            ops,
            format!("{cost:+.1}% with the recorder (best of {ROUNDS})"),
        );
    }
}

/// Loads the data into a fresh instance and reads it back; returns the
/// times.
fn one_round(
    data: &MobileData,
    keys: &[Vec<u8>],
    prefixes: &[Vec<u8>],
    record: bool,
    now_ms: &dyn Fn() -> f64,
) -> Best {
    let mut db = Instance::new(InstanceConfig {
        engine: EngineConfig::bulk(),
        ..InstanceConfig::default()
    });
    db.set_traffic_recording(record);
    let mut schema = TableSchema::default();
    for f in [SUMMARY, DETAIL] {
        schema.families.insert(f.into(), ColumnFamily::default());
    }
    let _ = db.create_table(CreateTableRequest {
        table_id: "mobile".into(),
        schema,
        initial_splits: Vec::new(),
    });
    let now = data.rows.last().map_or(0, |r| r.ts);
    db.set_now(now);
    let start = now_ms();
    let mut mutations: Vec<Mutation<'_>> = Vec::with_capacity(9);
    for (i, r) in data.rows.iter().enumerate() {
        mutations.clear();
        for c in data.row_cells(r) {
            mutations.push(Mutation::set_cell(
                MobileData::family(c),
                QUALIFIERS[c.qual as usize],
                r.ts,
                data.value(c),
            ));
        }
        let _ = db.mutate_row("mobile", data.key(r), &mutations);
        if i % 100_000 == 99_999 {
            db.tick(now);
        }
    }
    db.tick(now);
    let load = now_ms() - start;
    let _ = db.compact(None);

    let mut sink = CountRows::default();
    let start = now_ms();
    for _ in 0..READ_REPEATS {
        for k in keys {
            let req = ReadRowsRequest::rows(RowSet::single(k.clone()));
            let _ = db.read_rows("mobile", &req, &mut sink);
        }
    }
    let points = now_ms() - start;
    let start = now_ms();
    for _ in 0..READ_REPEATS {
        for p in prefixes {
            let req = ReadRowsRequest::rows(RowSet::range(RowRange::prefix(p.clone())));
            let _ = db.read_rows("mobile", &req, &mut sink);
        }
    }
    let scans = now_ms() - start;
    Best {
        load,
        points,
        scans,
    }
}
