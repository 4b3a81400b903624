//! The rows panel's display data: rows as the core returned them (byte
//! order of keys), every cell version with its timestamp, values escaped,
//! aggregate values decoded, GC-eligible versions marked.
//!
//! Every line of the panel has a fixed height (the style sheet uses the
//! same numbers), so the height of a row follows from its cells and the
//! panel can tell which rows fit before drawing them. In a narrow panel
//! (a phone, or the middle column beside a big Key Visualizer) each cell
//! takes two lines, its column above its value and timestamp, so neither
//! is cut off.

use std::collections::BTreeMap;

use tabletop_core::{Aggregator, OwnedRow, ValueType, escape_bytes, hll_unique_count};

use super::format::format_timestamp;
use super::keys::DisplayKey;

/// Height of a row's key line, in CSS pixels.
pub const KEY_LINE_PX: u32 = 24;
/// Height of one cell line.
pub const CELL_LINE_PX: u32 = 20;
/// Padding and border of a row.
pub const ROW_PAD_PX: u32 = 7;
/// Cells shown for a row that is not expanded.
pub const CELLS_SHOWN: usize = 8;
/// Longest value shown before it is cut (the full value is in the title).
pub const VALUE_CHARS: usize = 120;
/// Panels narrower than this, in CSS pixels, draw each cell on two lines
/// (on one line, the column, timestamp and a short value need about this
/// much).
pub const STACK_BELOW_PX: u32 = 600;

/// Whether a rows panel `width_px` wide draws cells on two lines (a width
/// not known yet counts as wide).
pub fn stacked_at(width_px: u32) -> bool {
    width_px > 0 && width_px < STACK_BELOW_PX
}

/// One row, ready to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowLine {
    /// The key's raw bytes (for expanding and for keys of list items).
    pub key_bytes: Vec<u8>,
    /// The key, escaped and cut into segments.
    pub key: DisplayKey,
    /// The cells drawn: by family, then qualifier, then newest first.
    pub cells: Vec<CellLine>,
    /// All cells of the row.
    pub total_cells: usize,
    /// Whether all cells are drawn because a person asked.
    pub expanded: bool,
    /// Whether each cell takes two lines (column; value and timestamp).
    pub stacked: bool,
}

impl RowLine {
    /// Whether the row has more cells than a collapsed row shows.
    pub fn can_expand(&self) -> bool {
        self.total_cells > CELLS_SHOWN
    }

    /// The drawn height in CSS pixels: key line, cell lines (two per cell
    /// when stacked) and, for long rows, the line that expands or
    /// collapses them.
    pub fn height_px(&self) -> u32 {
        let toggle = u32::from(self.can_expand());
        let cells = u32::try_from(self.cells.len()).unwrap_or(u32::MAX);
        let per_cell = if self.stacked { 2 } else { 1 };
        ROW_PAD_PX
            + KEY_LINE_PX
            + CELL_LINE_PX.saturating_mul(cells.saturating_mul(per_cell).saturating_add(toggle))
    }

    /// The same row drawn stacked or not.
    #[must_use]
    pub fn with_stacked(mut self, stacked: bool) -> RowLine {
        self.stacked = stacked;
        self
    }
}

/// One cell version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellLine {
    /// Column family.
    pub family: String,
    /// Qualifier, escaped.
    pub qualifier: String,
    /// Whether this is the newest version of its column (older versions
    /// are drawn without repeating the column).
    pub first_version: bool,
    /// Microseconds since the epoch.
    pub timestamp_micros: i64,
    /// The timestamp in UTC, with its unit.
    pub time: String,
    /// The value, escaped, cut at [`VALUE_CHARS`].
    pub value: String,
    /// The whole escaped value, when `value` was cut.
    pub full_value: Option<String>,
    /// For aggregate families: the value as a number (`42`, `~1,204
    /// distinct`).
    pub decoded: Option<String>,
    /// The GC rule allows collecting this version; it is still readable
    /// until a compaction runs.
    pub gc_eligible: bool,
}

/// The value types of a table's families, to decode aggregate cells.
pub type FamilyTypes = BTreeMap<String, ValueType>;

/// Turns one row into its display line. `expanded` draws every cell.
pub fn row_line(row: &OwnedRow, types: &FamilyTypes, expanded: bool) -> RowLine {
    let shown = if expanded {
        row.cells.len()
    } else {
        row.cells.len().min(CELLS_SHOWN)
    };
    let mut previous: Option<(&str, &[u8])> = None;
    let mut cells = Vec::with_capacity(shown);
    for cell in &row.cells {
        let column = (cell.family.as_str(), cell.qualifier.as_slice());
        let first_version = previous != Some(column);
        previous = Some(column);
        if cells.len() == shown {
            break;
        }
        let escaped = escape_bytes(&cell.value);
        let (value, full_value) = if escaped.chars().count() > VALUE_CHARS {
            let cut: String = escaped.chars().take(VALUE_CHARS).collect();
            (format!("{cut}…"), Some(escaped))
        } else {
            (escaped, None)
        };
        cells.push(CellLine {
            family: cell.family.clone(),
            qualifier: escape_bytes(&cell.qualifier),
            first_version,
            timestamp_micros: cell.timestamp_micros,
            time: format_timestamp(cell.timestamp_micros),
            value,
            full_value,
            decoded: decode_value(types.get(&cell.family).copied(), &cell.value),
            gc_eligible: cell.gc_eligible,
        });
    }
    RowLine {
        key_bytes: row.key.clone(),
        key: DisplayKey::new(&row.key),
        cells,
        total_cells: row.cells.len(),
        expanded,
        stacked: false,
    }
}

/// What an aggregate cell holds, as a number; `None` for plain bytes.
pub fn decode_value(value_type: Option<ValueType>, value: &[u8]) -> Option<String> {
    let ValueType::Aggregate(aggregator) = value_type? else {
        return None;
    };
    match aggregator {
        Aggregator::Sum | Aggregator::Min | Aggregator::Max => {
            let bytes: [u8; 8] = value.try_into().ok()?;
            Some(format!("{} (int64)", i64::from_be_bytes(bytes)))
        }
        Aggregator::HllppUniqueCount => hll_unique_count(value)
            .ok()
            .map(|n| format!("≈{n} distinct (HLL)")),
    }
}

/// Keeps the rows that fit in `height_px` (plus the one cut off at the
/// bottom), returning them and the height they take.
pub fn fit_rows(lines: Vec<RowLine>, height_px: u32) -> (Vec<RowLine>, u32) {
    let mut used = 0u32;
    let mut kept = Vec::with_capacity(lines.len());
    for line in lines {
        if used >= height_px && !kept.is_empty() {
            break;
        }
        used = used.saturating_add(line.height_px());
        kept.push(line);
    }
    (kept, used)
}

/// How many rows at most can be visible in `height_px`: every row is at
/// least a key line and one cell line tall.
pub fn max_rows_visible(height_px: u32) -> u64 {
    u64::from(height_px.div_ceil(ROW_PAD_PX + KEY_LINE_PX + CELL_LINE_PX)) + 1
}

#[cfg(test)]
mod tests {
    use tabletop_core::OwnedCell;

    use super::*;

    fn cell(family: &str, qualifier: &[u8], ts: i64, value: &[u8]) -> OwnedCell {
        OwnedCell {
            family: family.into(),
            qualifier: qualifier.to_vec(),
            timestamp_micros: ts,
            value: value.to_vec(),
            ..OwnedCell::default()
        }
    }

    #[test]
    fn versions_after_the_first_do_not_repeat_the_column() {
        let row = OwnedRow {
            key: b"phone#1".to_vec(),
            cells: vec![
                cell("cf", b"a", 2000, b"new"),
                cell("cf", b"a", 1000, b"old"),
                cell("cf", b"b\x00", 1000, b"\xff"),
            ],
        };
        let line = row_line(&row, &FamilyTypes::new(), false);
        let firsts: Vec<bool> = line.cells.iter().map(|c| c.first_version).collect();
        assert_eq!(firsts, [true, false, true]);
        assert_eq!(line.cells[2].qualifier, "b\\x00");
        assert_eq!(line.cells[2].value, "\\xff");
        assert_eq!(line.cells[0].time, "1970-01-01 00:00:00.002 UTC");
        assert_eq!(
            line.height_px(),
            ROW_PAD_PX + KEY_LINE_PX + 3 * CELL_LINE_PX
        );
        assert!(!line.can_expand());
    }

    #[test]
    fn long_rows_show_a_few_cells_until_expanded() {
        let row = OwnedRow {
            key: b"k".to_vec(),
            cells: (0..20)
                .map(|i| cell("cf", format!("q{i:02}").as_bytes(), 1000, b"v"))
                .collect(),
        };
        let collapsed = row_line(&row, &FamilyTypes::new(), false);
        assert_eq!(collapsed.cells.len(), CELLS_SHOWN);
        assert!(collapsed.can_expand());
        assert_eq!(
            collapsed.height_px(),
            ROW_PAD_PX + KEY_LINE_PX + (CELLS_SHOWN as u32 + 1) * CELL_LINE_PX
        );
        let expanded = row_line(&row, &FamilyTypes::new(), true);
        assert_eq!(expanded.cells.len(), 20);
        // Stacked, each cell takes two lines; the expand line stays one.
        assert_eq!(
            collapsed.with_stacked(true).height_px(),
            ROW_PAD_PX + KEY_LINE_PX + (2 * CELLS_SHOWN as u32 + 1) * CELL_LINE_PX
        );
    }

    #[test]
    fn narrow_panels_stack_each_cell_on_two_lines() {
        assert!(stacked_at(360));
        assert!(stacked_at(STACK_BELOW_PX - 1));
        assert!(!stacked_at(STACK_BELOW_PX));
        assert!(!stacked_at(1200));
        assert!(!stacked_at(0), "a width not measured yet is not narrow");
        let row = OwnedRow {
            key: b"phone#1".to_vec(),
            cells: vec![cell("cf", b"a", 2000, b"v"), cell("cf", b"b", 2000, b"w")],
        };
        let line = row_line(&row, &FamilyTypes::new(), false);
        assert!(!line.stacked);
        let stacked = line.clone().with_stacked(true);
        assert_eq!(
            stacked.height_px(),
            ROW_PAD_PX + KEY_LINE_PX + 4 * CELL_LINE_PX
        );
        assert_eq!(stacked.with_stacked(false), line);
        // A stacked row is still at least as tall as the shortest row
        // `max_rows_visible` counts with.
        assert!(max_rows_visible(600) * u64::from(line.height_px()) >= 600);
    }

    #[test]
    fn long_values_are_cut_with_the_full_text_kept() {
        let long = vec![b'x'; 300];
        let row = OwnedRow {
            key: b"k".to_vec(),
            cells: vec![cell("cf", b"q", 1000, &long)],
        };
        let line = row_line(&row, &FamilyTypes::new(), false);
        assert_eq!(line.cells[0].value.chars().count(), VALUE_CHARS + 1);
        assert_eq!(line.cells[0].full_value.as_deref().map(str::len), Some(300));
    }

    #[test]
    fn aggregate_values_are_decoded() {
        let sum = Some(ValueType::Aggregate(Aggregator::Sum));
        assert_eq!(
            decode_value(sum, &42i64.to_be_bytes()).as_deref(),
            Some("42 (int64)")
        );
        assert_eq!(decode_value(sum, b"short"), None);
        assert_eq!(decode_value(Some(ValueType::Bytes), b"x"), None);
        assert_eq!(decode_value(None, b"x"), None);
        let hll = tabletop_core::hll_sketch([1, 2, 3, 2]);
        let text = decode_value(
            Some(ValueType::Aggregate(Aggregator::HllppUniqueCount)),
            &hll,
        );
        assert_eq!(text.as_deref(), Some("≈3 distinct (HLL)"));
    }

    #[test]
    fn rows_are_kept_while_they_fit() {
        let row = OwnedRow {
            key: b"k".to_vec(),
            cells: vec![cell("cf", b"q", 1000, b"v")],
        };
        let one = row_line(&row, &FamilyTypes::new(), false);
        let h = one.height_px();
        let (kept, used) = fit_rows(vec![one.clone(); 10], h * 3 + 1);
        assert_eq!(kept.len(), 4, "three whole rows and the one cut off");
        assert_eq!(used, 4 * h);
        let (kept, _) = fit_rows(vec![one; 2], 0);
        assert_eq!(kept.len(), 1, "at least one row");
        assert!(max_rows_visible(600) * u64::from(h) >= 600);
    }
}
