//! Rows as ReadRows streams them: cell chunks, each row ending with
//! `commit_row`. The row key is sent on a row's first chunk, the family on
//! each change of family, the qualifier on each change of column, as
//! Bigtable does and as every client's chunk merger expects.

use crate::proto::google::bigtable::v2::read_rows_response::{CellChunk, cell_chunk::RowStatus};
use crate::proto::google::bigtable::v2::{ReadRowsResponse, Row};

/// How many bytes of cell values one ReadRowsResponse carries at most
/// before the next starts (rows are never split across responses here).
const RESPONSE_BYTES: usize = 1 << 20;

/// The chunks of one row; none for a row without cells.
pub fn row_chunks(row: Row) -> Vec<CellChunk> {
    let mut chunks = Vec::new();
    for family in row.families {
        let mut family_name = Some(family.name);
        for column in family.columns {
            let mut qualifier = Some(column.qualifier);
            for cell in column.cells {
                chunks.push(CellChunk {
                    row_key: if chunks.is_empty() {
                        row.key.clone()
                    } else {
                        Vec::new()
                    },
                    family_name: family_name.take(),
                    qualifier: qualifier.take(),
                    timestamp_micros: cell.timestamp_micros,
                    labels: cell.labels,
                    value: cell.value,
                    value_size: 0,
                    row_status: None,
                });
            }
        }
    }
    if let Some(last) = chunks.last_mut() {
        last.row_status = Some(RowStatus::CommitRow(true));
    }
    chunks
}

/// Groups rows into responses of about [`RESPONSE_BYTES`] each.
pub fn responses(rows: Vec<Row>) -> Vec<ReadRowsResponse> {
    let mut out = Vec::new();
    let mut current = ReadRowsResponse::default();
    let mut bytes = 0;
    for row in rows {
        let chunks = row_chunks(row);
        bytes += chunks.iter().map(|c| c.value.len()).sum::<usize>();
        current.chunks.extend(chunks);
        if bytes >= RESPONSE_BYTES {
            out.push(std::mem::take(&mut current));
            bytes = 0;
        }
    }
    if !current.chunks.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::google::bigtable::v2::{Cell, Column, Family};

    fn cell(ts: i64, value: &[u8]) -> Cell {
        Cell {
            timestamp_micros: ts,
            value: value.to_vec(),
            labels: vec![],
        }
    }

    fn row() -> Row {
        Row {
            key: b"r1".to_vec(),
            families: vec![
                Family {
                    name: "a".into(),
                    columns: vec![Column {
                        qualifier: b"x".to_vec(),
                        cells: vec![cell(2, b"new"), cell(1, b"old")],
                    }],
                },
                Family {
                    name: "b".into(),
                    columns: vec![
                        Column {
                            qualifier: b"y".to_vec(),
                            cells: vec![cell(5, b"1")],
                        },
                        Column {
                            qualifier: b"z".to_vec(),
                            cells: vec![cell(6, b"2")],
                        },
                    ],
                },
            ],
        }
    }

    #[test]
    fn a_row_is_key_then_family_and_column_changes_then_commit() {
        let chunks = row_chunks(row());
        let shape: Vec<_> = chunks
            .iter()
            .map(|c| {
                (
                    c.row_key.clone(),
                    c.family_name.clone(),
                    c.qualifier.clone(),
                    c.timestamp_micros,
                    c.row_status.is_some(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            vec![
                (
                    b"r1".to_vec(),
                    Some("a".into()),
                    Some(b"x".to_vec()),
                    2,
                    false
                ),
                (vec![], None, None, 1, false),
                (vec![], Some("b".into()), Some(b"y".to_vec()), 5, false),
                (vec![], None, Some(b"z".to_vec()), 6, true),
            ]
        );
        assert_eq!(chunks[3].row_status, Some(RowStatus::CommitRow(true)));
    }

    #[test]
    fn big_reads_span_several_responses_and_rows_stay_whole() {
        let mut rows = Vec::new();
        for i in 0..5u8 {
            let mut r = row();
            r.key = vec![i];
            r.families[0].columns[0].cells[0].value = vec![0; RESPONSE_BYTES / 2];
            rows.push(r);
        }
        let out = responses(rows);
        assert_eq!(out.len(), 3);
        let commits: usize = out
            .iter()
            .flat_map(|r| &r.chunks)
            .filter(|c| c.row_status.is_some())
            .count();
        assert_eq!(commits, 5);
        assert!(
            out.iter()
                .all(|r| r.chunks.last().is_some_and(|c| c.row_status.is_some()))
        );
        assert!(responses(vec![]).is_empty());
    }
}
