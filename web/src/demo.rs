//! The sample table the playground opens with the first time: the phone
//! and tablet time-series example from Bigtable's schema-design guide.
//!
//! Its row keys put the device type first, then the device id, then the
//! day (`phone#4c410523#20200501`), so one device's days sit next to each
//! other in byte order. The rows are written out of order on purpose: the
//! rows panel shows them sorted, as Bigtable stores them.

use std::collections::BTreeMap;

use tabletop_core::{ColumnFamily, CreateTableRequest, GcRule, Instance, Mutation, TableSchema};

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
/// down to the millisecond). Fails with the core's message if the table
/// exists already; then nothing is written.
pub fn load(instance: &mut Instance, now_micros: i64) -> Result<(), String> {
    let now = now_micros - now_micros.rem_euclid(1000);
    instance
        .create_table(CreateTableRequest {
            table_id: TABLE_ID.to_string(),
            schema: schema(),
            initial_splits: Vec::new(),
        })
        .map_err(|e| e.to_string())?;
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
        instance
            .mutate_row(TABLE_ID, key.as_bytes(), &mutations)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use tabletop_core::{CollectRows, ReadRowsRequest};

    use super::*;

    #[test]
    fn the_sample_reads_back_in_key_order_with_a_version_awaiting_gc() {
        let mut db = Instance::default();
        load(&mut db, 1_588_291_200_000_123).unwrap();
        let mut rows = CollectRows::default();
        db.read_rows(TABLE_ID, &ReadRowsRequest::default(), &mut rows)
            .unwrap();
        let keys: Vec<&[u8]> = rows.rows.iter().map(|r| r.key.as_slice()).collect();
        assert_eq!(
            keys,
            [
                &b"phone#4c410523#20200501"[..],
                b"phone#4c410523#20200502",
                b"phone#5c10102#20200501",
                b"tablet#a0b81f74#20200501"
            ]
        );
        let eligible: Vec<bool> = rows.rows[0].cells.iter().map(|c| c.gc_eligible).collect();
        assert_eq!(eligible, [false, false, false, true]);
        assert!(load(&mut db, 0).unwrap_err().contains("already exists"));
    }
}
