//! Rows as ReadRows streams them: cell chunks, each row ending with
//! `commit_row`. The row key is sent on a row's first chunk, the family on
//! each change of family, the qualifier on each change of column, as
//! Bigtable does and as every client's chunk merger expects.

use tabletop_core::{RowSink, RowView};

use crate::proto::google::bigtable::v2::ReadRowsResponse;
use crate::proto::google::bigtable::v2::read_rows_response::{CellChunk, cell_chunk::RowStatus};

/// About how many bytes one ReadRowsResponse carries before the next
/// starts (rows are never split across responses here).
pub const RESPONSE_BYTES: usize = 1 << 20;

/// Appends the chunks of one row to `out`; none for a row without cells.
pub fn push_row(row: &RowView<'_>, out: &mut Vec<CellChunk>) {
    let first = out.len();
    let mut previous: Option<(&str, &[u8])> = None;
    for cell in row.cells {
        let family_changed = previous.is_none_or(|(f, _)| f != cell.family);
        let column_changed = family_changed || previous.is_some_and(|(_, q)| q != cell.qualifier);
        previous = Some((cell.family, cell.qualifier));
        out.push(CellChunk {
            row_key: if out.len() == first {
                row.key.to_vec()
            } else {
                Vec::new()
            },
            family_name: family_changed.then(|| cell.family.to_string()),
            qualifier: column_changed.then(|| cell.qualifier.to_vec()),
            timestamp_micros: cell.timestamp_micros,
            labels: cell.label.map(str::to_string).into_iter().collect(),
            value: cell.value.to_vec(),
            value_size: 0,
            row_status: None,
        });
    }
    if out.len() > first
        && let Some(last) = out.last_mut()
    {
        last.row_status = Some(RowStatus::CommitRow(true));
    }
}

/// A sink that fills one ReadRowsResponse with the rows read, and asks
/// the read to stop once it holds about [`RESPONSE_BYTES`].
#[derive(Default)]
pub struct ResponseSink {
    /// The response so far.
    pub response: ReadRowsResponse,
    bytes: usize,
}

impl RowSink for ResponseSink {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        push_row(&row, &mut self.response.chunks);
        self.bytes += row.key.len()
            + row
                .cells
                .iter()
                .map(|c| c.value.len() + c.qualifier.len() + 16)
                .sum::<usize>();
        self.bytes < RESPONSE_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_core::CellView;

    #[test]
    fn a_row_is_key_then_family_and_column_changes_then_commit() {
        let cells = [
            CellView::plain("a", b"x", 2, b"new"),
            CellView::plain("a", b"x", 1, b"old"),
            CellView::plain("b", b"y", 5, b"1"),
            CellView::plain("b", b"z", 6, b"2"),
        ];
        let mut chunks = Vec::new();
        push_row(
            &RowView {
                key: b"r1",
                cells: &cells,
            },
            &mut chunks,
        );
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
        push_row(
            &RowView {
                key: b"empty",
                cells: &[],
            },
            &mut chunks,
        );
        assert_eq!(chunks.len(), 4);
    }

    #[test]
    fn a_response_asks_to_stop_once_full_and_rows_stay_whole() {
        let big = vec![0u8; RESPONSE_BYTES / 2];
        let cells = [CellView::plain("a", b"x", 1, &big)];
        let row = RowView {
            key: b"r",
            cells: &cells,
        };
        let mut sink = ResponseSink::default();
        assert!(sink.accept(row));
        assert!(!sink.accept(row));
        assert_eq!(sink.response.chunks.len(), 2);
        assert!(
            sink.response
                .chunks
                .iter()
                .all(|c| c.row_status.is_some() && c.row_key == b"r")
        );
    }
}
