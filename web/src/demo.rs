//! The sample table the playground opens with: the phone and tablet
//! time-series example from Bigtable's schema-design guide.
//!
//! Its row keys put the device type first, then the device id, then the
//! day (`phone#4c410523#20200501`), so one device's days sit next to each
//! other in byte order. The rows are written out of order on purpose: the
//! read shows them sorted, as Bigtable stores them.

use std::collections::BTreeMap;

use tabletop_core::{ColumnFamily, CreateTableRequest, GcRule, Instance, Mutation, TableSchema};

use crate::state::ActivityEntry;

/// The sample table's id.
pub const TABLE_ID: &str = "mobile-time-series";

/// Daily summaries; only the newest version of each is kept.
pub const SUMMARY_FAMILY: &str = "stats_summary";
/// Connection details; the three newest versions are kept.
pub const DETAIL_FAMILY: &str = "stats_detail";

/// One cell to write: family, qualifier, value, and how many hours before
/// "now" its timestamp is.
type DemoCell = (&'static str, &'static str, &'static str, i64);

/// The rows, in the (unsorted) order they are written.
pub const ROWS: &[(&str, &[DemoCell])] = &[
    (
        "tablet#a0b81f74#20200501",
        &[
            (SUMMARY_FAMILY, "os_build", "PQ2A.190406.000", 0),
            (DETAIL_FAMILY, "connected_cell", "0", 0),
            (DETAIL_FAMILY, "connected_wifi", "1", 0),
        ],
    ),
    (
        "phone#5c10102#20200501",
        &[
            (SUMMARY_FAMILY, "os_build", "PQ2A.190401.002", 0),
            (DETAIL_FAMILY, "connected_cell", "1", 0),
            (DETAIL_FAMILY, "connected_wifi", "0", 0),
        ],
    ),
    (
        "phone#4c410523#20200502",
        &[
            (SUMMARY_FAMILY, "os_build", "PQ2A.190405.004", 0),
            (DETAIL_FAMILY, "connected_cell", "1", 0),
            (DETAIL_FAMILY, "connected_wifi", "1", 0),
        ],
    ),
    (
        "phone#4c410523#20200501",
        &[
            // An update an hour later: the family keeps one version, so the
            // older build stays readable only until garbage collection runs.
            (SUMMARY_FAMILY, "os_build", "PQ2A.190405.003", 1),
            (SUMMARY_FAMILY, "os_build", "PQ2A.190405.004", 0),
            (DETAIL_FAMILY, "connected_cell", "1", 0),
            (DETAIL_FAMILY, "connected_wifi", "1", 0),
        ],
    ),
];

const HOUR_MICROS: i64 = 3_600 * 1_000_000;

/// The sample table's schema.
pub fn schema() -> TableSchema {
    let families = BTreeMap::from([
        (
            SUMMARY_FAMILY.to_string(),
            ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))),
        ),
        (
            DETAIL_FAMILY.to_string(),
            ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(3))),
        ),
    ]);
    TableSchema { families }
}

/// Creates the sample table and writes its rows at `now_micros` (rounded
/// down to the millisecond), logging each call. Returns whether the table
/// was created; if it was not (it exists already), nothing is written.
pub fn load(instance: &mut Instance, now_micros: i64, log: &mut Vec<ActivityEntry>) -> bool {
    let now = now_micros - now_micros.rem_euclid(1000);
    let request = CreateTableRequest {
        table_id: TABLE_ID.to_string(),
        schema: schema(),
        initial_splits: Vec::new(),
    };
    let created = instance.create_table(request);
    log.push(ActivityEntry::from_result(
        format!("CreateTable {TABLE_ID}"),
        &created,
        |_| format!("created with families {SUMMARY_FAMILY}, {DETAIL_FAMILY}"),
    ));
    if created.is_err() {
        return false;
    }
    for (key, cells) in ROWS {
        let mutations: Vec<Mutation<'_>> = cells
            .iter()
            .map(|(family, qualifier, value, hours_ago)| {
                Mutation::set_cell(
                    family,
                    qualifier.as_bytes(),
                    now - hours_ago * HOUR_MICROS,
                    value.as_bytes(),
                )
            })
            .collect();
        let written = instance.mutate_row(TABLE_ID, key.as_bytes(), &mutations);
        log.push(ActivityEntry::from_result(
            format!("MutateRow {key}"),
            &written,
            |_| format!("{} cells written", mutations.len()),
        ));
    }
    true
}
