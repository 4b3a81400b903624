//! What recording traffic costs: the bulk load, point reads and prefix
//! scans of the main benchmark on two instances side by side, one with
//! the traffic recording off and one with it on. The work is interleaved
//! in small slices (2,000 rows, 100 reads), alternating which instance
//! goes first, and the cost is the median of the slices' ratios, so a
//! burst of other work on a shared machine does not decide it.

use tabletop_core::{
    ColumnFamily, CountRows, CreateTableRequest, EngineConfig, Instance, InstanceConfig, Mutation,
    ReadRowsRequest, RowRange, RowSet, TableSchema,
};

use crate::{DETAIL, MobileData, QUALIFIERS, Report, SUMMARY, phase};

/// Rows loaded into one instance before switching to the other.
const LOAD_SLICE: usize = 2_000;
/// Reads run on one instance before switching to the other.
const READ_SLICE: usize = 100;
/// Times the 1000 reads are repeated, for a measurable time.
const READ_REPEATS: usize = 5;

/// Adds the phases "traffic: ..." (off and on) to `report`.
pub(crate) fn run(
    data: &MobileData,
    keys: &[Vec<u8>],
    prefixes: &[Vec<u8>],
    report: &mut Report,
    now_ms: &dyn Fn() -> f64,
) {
    let mut dbs = [instance(data, false), instance(data, true)];
    let load = interleaved(
        &mut dbs,
        data.rows.chunks(LOAD_SLICE),
        now_ms,
        |db, rows| {
            load_rows(db, data, rows);
        },
    );
    for db in &mut dbs {
        let _ = db.compact(None);
    }
    let key_slices = (0..READ_REPEATS).flat_map(|_| keys.chunks(READ_SLICE));
    let points = interleaved(&mut dbs, key_slices, now_ms, |db, keys| {
        let mut sink = CountRows::default();
        for k in keys.iter() {
            let req = ReadRowsRequest::rows(RowSet::single(k.clone()));
            let _ = db.read_rows("mobile", &req, &mut sink);
        }
    });
    let prefix_slices = (0..READ_REPEATS).flat_map(|_| prefixes.chunks(READ_SLICE));
    let scans = interleaved(&mut dbs, prefix_slices, now_ms, |db, prefixes| {
        let mut sink = CountRows::default();
        for p in prefixes.iter() {
            let req = ReadRowsRequest::rows(RowSet::range(RowRange::prefix(p.clone())));
            let _ = db.read_rows("mobile", &req, &mut sink);
        }
    });
    let reads = (keys.len() * READ_REPEATS) as u64;
    let scan_ops = (prefixes.len() * READ_REPEATS) as u64;
    for (name, (ms_off, ms_on, ratio), ops) in [
        ("bulk load", load, data.rows() as u64),
        ("point reads", points, reads),
        ("prefix scans", scans, scan_ops),
    ] {
        let cost = (ratio - 1.0) * 100.0;
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
            format!("{cost:+.1}% with the recorder (median of the slices)"),
        );
    }
}

/// Runs `work` on every slice for both instances, alternating which goes
/// first; returns the total milliseconds with recording off and on, and
/// the median over the slices of on / off.
pub(crate) fn interleaved<T>(
    dbs: &mut [Instance; 2],
    slices: impl Iterator<Item = T>,
    now_ms: &dyn Fn() -> f64,
    mut work: impl FnMut(&mut Instance, &T),
) -> (f64, f64, f64) {
    let mut total = [0.0f64; 2];
    let mut ratios = Vec::new();
    for (i, slice) in slices.enumerate() {
        let mut ms = [0.0f64; 2];
        for k in [i % 2, 1 - i % 2] {
            let start = now_ms();
            work(&mut dbs[k], &slice);
            ms[k] = now_ms() - start;
            total[k] += ms[k];
        }
        if ms[0] > 0.0 {
            ratios.push(ms[1] / ms[0]);
        }
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios.get(ratios.len() / 2).copied().unwrap_or(1.0);
    (total[0], total[1], median)
}

/// An empty instance with the bench's table and clock.
pub(crate) fn instance(data: &MobileData, record: bool) -> Instance {
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
    db.set_now(data.rows.last().map_or(0, |r| r.ts));
    db
}

/// Loads `rows` as the main benchmark does, with a tick after them (the
/// background work a server would do meanwhile).
pub(crate) fn load_rows(db: &mut Instance, data: &MobileData, rows: &[crate::RowSpec]) {
    let now = db.now_micros();
    let mut mutations: Vec<Mutation<'_>> = Vec::with_capacity(9);
    for r in rows {
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
    }
    db.tick(now);
}
