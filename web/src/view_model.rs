//! Display data computed from what the core returns: plain, comparable
//! structs the components render as they are. No browser types here.

use tabletop_core::{CollectRows, Instance, ReadRowsRequest, escape_bytes};

/// How many rows the rows panel shows at most.
pub const ROWS_PER_PAGE: usize = 100;

/// One table in the tables panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSummary {
    /// The table id.
    pub name: String,
    /// Its column families, by name.
    pub families: Vec<FamilySummary>,
    /// How many tablets the table is split into now.
    pub tablet_count: usize,
    /// Logical bytes stored.
    pub bytes: u64,
}

/// One column family and its GC rule, as `cbt ls TABLE` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilySummary {
    /// The family name.
    pub name: String,
    /// The GC rule (`versions() > 1`), or `never` when there is none.
    pub gc_rule: String,
}

/// The tables of the instance, sorted by id.
pub fn tables(instance: &Instance) -> Vec<TableSummary> {
    let mut tables: Vec<TableSummary> = instance
        .list_tables()
        .into_iter()
        .map(|info| TableSummary {
            name: info.id,
            tablet_count: info.tablet_count,
            bytes: info.bytes,
            families: info
                .schema
                .families
                .iter()
                .map(|(name, family)| FamilySummary {
                    name: name.clone(),
                    gc_rule: family
                        .gc_rule
                        .as_ref()
                        .map_or_else(|| "never".to_string(), ToString::to_string),
                })
                .collect(),
        })
        .collect();
    tables.sort_by(|a, b| a.name.cmp(&b.name));
    tables
}

/// A read of one table, ready to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowsPage {
    /// The table read.
    pub table: String,
    /// The rows, in the order the core returned them (byte order of keys).
    pub rows: Vec<RowLine>,
    /// True when the table has more rows than the page shows.
    pub truncated: bool,
    /// Rows the read returned.
    pub rows_returned: u64,
    /// Cells the read returned.
    pub cells_returned: u64,
    /// Bytes (keys, names, timestamps and values) the read returned.
    pub bytes_returned: u64,
}

/// One row: its key and cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowLine {
    /// The key, with unprintable bytes escaped.
    pub key: String,
    /// The key cut at `#`, for tinting each segment.
    pub segments: Vec<KeySegment>,
    /// The cells: by family, then qualifier, then newest first.
    pub cells: Vec<CellLine>,
}

/// A piece of a row key: a segment or the `#` between segments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeySegment {
    /// The n-th segment (from 0) and its text.
    Part(usize, String),
    /// A separator.
    Separator,
}

/// One cell: `family:qualifier @ time = value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellLine {
    /// `family:qualifier`, qualifier escaped.
    pub column: String,
    /// The timestamp in microseconds since the epoch.
    pub timestamp_micros: i64,
    /// The timestamp as a UTC date and time.
    pub time: String,
    /// The value, escaped.
    pub value: String,
    /// The family's GC rule allows collecting this version already; it is
    /// still visible because GC only runs at compaction.
    pub gc_eligible: bool,
}

/// Reads up to `limit` rows of `table` through the core's ReadRows (one
/// more, to know whether there are more). Errors come back as the core's
/// message.
pub fn read_rows_page(
    instance: &mut Instance,
    table: &str,
    limit: usize,
) -> Result<RowsPage, String> {
    let mut sink = CollectRows::default();
    let request = ReadRowsRequest {
        rows_limit: i64::try_from(limit).map_or(0, |limit| limit.saturating_add(1)),
        ..ReadRowsRequest::default()
    };
    let stats = instance
        .read_rows(table, &request, &mut sink)
        .map_err(|e| e.to_string())?;
    let truncated = sink.rows.len() > limit;
    let rows = sink
        .rows
        .iter()
        .take(limit)
        .map(|row| {
            let key = escape_bytes(&row.key);
            RowLine {
                segments: key_segments(&key),
                key,
                cells: row
                    .cells
                    .iter()
                    .map(|cell| CellLine {
                        column: format!("{}:{}", cell.family, escape_bytes(&cell.qualifier)),
                        timestamp_micros: cell.timestamp_micros,
                        time: format_timestamp(cell.timestamp_micros),
                        value: escape_bytes(&cell.value),
                        gc_eligible: cell.gc_eligible,
                    })
                    .collect(),
            }
        })
        .collect();
    Ok(RowsPage {
        table: table.to_string(),
        rows,
        truncated,
        rows_returned: stats.rows_returned,
        cells_returned: stats.cells_returned,
        bytes_returned: stats.bytes_returned,
    })
}

/// A byte count for people: `612 B`, `1.5 KiB`, `3.0 MiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    // Display only: the f64 rounding of huge counts does not matter.
    #[allow(clippy::cast_precision_loss)]
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Cuts a key at each `#`, the separator Bigtable's guide recommends.
pub fn key_segments(key: &str) -> Vec<KeySegment> {
    let mut out = Vec::new();
    for (i, part) in key.split('#').enumerate() {
        if i > 0 {
            out.push(KeySegment::Separator);
        }
        if !part.is_empty() {
            out.push(KeySegment::Part(i, part.to_string()));
        }
    }
    out
}

/// Formats microseconds since the Unix epoch as `YYYY-MM-DD hh:mm:ss.mmm UTC`
/// (sub-millisecond digits are shown only when present).
pub fn format_timestamp(micros: i64) -> String {
    let seconds = micros.div_euclid(1_000_000);
    let sub_micros = micros.rem_euclid(1_000_000);
    let days = seconds.div_euclid(86_400);
    let secs_of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let fraction = if sub_micros % 1000 == 0 {
        format!("{:03}", sub_micros / 1000)
    } else {
        format!("{sub_micros:06}")
    };
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{fraction} UTC",
        secs_of_day / 3600,
        secs_of_day % 3600 / 60,
        secs_of_day % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day), after
/// Howard Hinnant's `civil_from_days`.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_format_as_utc() {
        assert_eq!(format_timestamp(0), "1970-01-01 00:00:00.000 UTC");
        // 2020-05-01T00:00:00Z, the day in the sample row keys.
        assert_eq!(
            format_timestamp(1_588_291_200_000_000),
            "2020-05-01 00:00:00.000 UTC"
        );
        assert_eq!(
            format_timestamp(951_782_400_123_000),
            "2000-02-29 00:00:00.123 UTC"
        );
        assert_eq!(
            format_timestamp(1_700_000_000_000_001),
            "2023-11-14 22:13:20.000001 UTC"
        );
        assert_eq!(format_timestamp(-1_000), "1969-12-31 23:59:59.999 UTC");
    }

    #[test]
    fn byte_counts_carry_their_unit() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(3 * 1024 * 1024), "3.0 MiB");
        assert_eq!(format_bytes(u64::MAX), "16777216.0 TiB");
    }

    #[test]
    fn keys_split_into_tinted_segments() {
        use KeySegment::{Part, Separator};
        assert_eq!(
            key_segments("phone#4c410523#20200501"),
            vec![
                Part(0, "phone".into()),
                Separator,
                Part(1, "4c410523".into()),
                Separator,
                Part(2, "20200501".into()),
            ]
        );
        assert_eq!(key_segments("plain"), vec![Part(0, "plain".into())]);
        assert_eq!(
            key_segments("a##b"),
            vec![
                Part(0, "a".into()),
                Separator,
                Separator,
                Part(2, "b".into())
            ]
        );
    }

    #[test]
    fn rows_page_shows_what_the_core_returns() {
        let mut instance = Instance::new(tabletop_core::InstanceConfig::default());
        let mut log = Vec::new();
        assert!(crate::demo::load(
            &mut instance,
            1_588_291_200_000_000,
            &mut log
        ));
        let page = read_rows_page(&mut instance, crate::demo::TABLE_ID, ROWS_PER_PAGE)
            .expect("table exists");
        let keys: Vec<&str> = page.rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "phone#4c410523#20200501",
                "phone#4c410523#20200502",
                "phone#5c10102#20200501",
                "tablet#a0b81f74#20200501"
            ]
        );
        let first = &page.rows[0];
        let columns: Vec<&str> = first.cells.iter().map(|c| c.column.as_str()).collect();
        assert_eq!(
            columns,
            [
                "stats_detail:connected_cell",
                "stats_detail:connected_wifi",
                "stats_summary:os_build",
                "stats_summary:os_build"
            ]
        );
        let builds: Vec<(&str, &str)> = first.cells[2..]
            .iter()
            .map(|c| (c.time.as_str(), c.value.as_str()))
            .collect();
        assert_eq!(
            builds,
            [
                ("2020-05-01 00:00:00.000 UTC", "PQ2A.190405.004"),
                ("2020-04-30 23:00:00.000 UTC", "PQ2A.190405.003")
            ],
            "versions newest first"
        );
        let eligible: Vec<bool> = first.cells.iter().map(|c| c.gc_eligible).collect();
        assert_eq!(
            eligible,
            [false, false, false, true],
            "stats_summary keeps one version"
        );
        assert_eq!(page.rows_returned, 4);
        assert_eq!(page.cells_returned, 13);
        assert!(!page.truncated);

        let small = read_rows_page(&mut instance, crate::demo::TABLE_ID, 2).expect("table exists");
        assert_eq!(small.rows.len(), 2);
        assert!(small.truncated);
    }

    #[test]
    fn tables_list_families_with_their_gc_rules() {
        let mut instance = Instance::new(tabletop_core::InstanceConfig::default());
        assert!(tables(&instance).is_empty());
        crate::demo::load(&mut instance, 0, &mut Vec::new());
        let listed = tables(&instance);
        assert_eq!(listed.len(), 1);
        assert_eq!(
            listed[0].families,
            vec![
                FamilySummary {
                    name: "stats_detail".into(),
                    gc_rule: "versions() > 3".into()
                },
                FamilySummary {
                    name: "stats_summary".into(),
                    gc_rule: "versions() > 1".into()
                },
            ]
        );
    }
}
