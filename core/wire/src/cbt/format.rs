//! `cbt`'s text output: rows as `read` and `lookup` print them, the family
//! table of `ls TABLE`, value types as JSON, and `include-stats` summaries.
//!
//! A row prints as
//!
//! ```text
//! ----------------------------------------
//! <row key, raw bytes>
//!   <family>:<qualifier, raw, padded to 40 runes> @ 2020/09/13-12:26:40.000000
//!     "<value, Go %q-quoted>"
//! ```
//!
//! with families sorted by name, qualifiers in byte order and versions
//! newest first, followed by an empty line.

use super::gostr::{format_cell_time, push_padded};
use super::valuefmt::ValueFormatting;
use tabletop_store::{Aggregator, ValueType};
use tabletop_store::{CellView, ReadStats};

/// The line of 40 dashes that starts every row.
pub(crate) const ROW_RULE: &[u8] = b"----------------------------------------\n";

/// Appends one row the way `cbt`'s `printRow` prints it, plus the blank line
/// `fmt.Println` adds after it. `cells` may come in any order; they are
/// sorted by family, then qualifier, keeping version order. On a formatting
/// error nothing of the row is appended (cbt builds the row in a buffer and
/// exits before printing it).
pub(crate) fn print_row(
    out: &mut Vec<u8>,
    key: &[u8],
    cells: &[CellView<'_>],
    fmt: &ValueFormatting,
) -> Result<(), String> {
    let mut row = Vec::with_capacity(64 + cells.len() * 64);
    row.extend_from_slice(ROW_RULE);
    row.extend_from_slice(key);
    row.push(b'\n');
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&cells[a], &cells[b]);
        x.family
            .as_bytes()
            .cmp(y.family.as_bytes())
            .then_with(|| x.qualifier.cmp(y.qualifier))
    });
    let mut column = Vec::new();
    for i in order {
        let c = &cells[i];
        column.clear();
        column.extend_from_slice(c.family.as_bytes());
        column.push(b':');
        column.extend_from_slice(c.qualifier);
        row.extend_from_slice(b"  ");
        push_padded(&mut row, &column, 40);
        row.extend_from_slice(b" @ ");
        row.extend_from_slice(format_cell_time(c.timestamp_micros).as_bytes());
        row.push(b'\n');
        let formatted = fmt.format(c.family.as_bytes(), c.qualifier, c.value)?;
        indent_value(&mut row, formatted.as_bytes(), b"    ");
    }
    row.push(b'\n');
    out.extend_from_slice(&row);
    Ok(())
}

/// Appends a formatted value with `prefix` before each of its lines and a
/// final newline (`cbt`'s `prefix + TrimSuffix(Replace(s, "\n", "\n" +
/// prefix), prefix) + "\n"`).
fn indent_value(out: &mut Vec<u8>, s: &[u8], prefix: &[u8]) {
    let mut replaced = Vec::with_capacity(s.len() + prefix.len());
    for &b in s {
        replaced.push(b);
        if b == b'\n' {
            replaced.extend_from_slice(prefix);
        }
    }
    if replaced.ends_with(prefix) {
        replaced.truncate(replaced.len() - prefix.len());
    }
    out.extend_from_slice(prefix);
    out.extend_from_slice(&replaced);
    out.push(b'\n');
}

/// The "Value Type" column of `cbt ls TABLE`: the family's type as the Go
/// client's `MarshalJSON` prints it (with the space Go's protojson puts in
/// that binary's output).
pub(crate) fn value_type_json(t: ValueType) -> String {
    match t {
        ValueType::Bytes => "{}".to_string(),
        ValueType::Aggregate(agg) => {
            let name = match agg {
                Aggregator::Sum => "sum",
                Aggregator::Min => "min",
                Aggregator::Max => "max",
                Aggregator::HllppUniqueCount => "hllppUniqueCount",
            };
            format!(
                "{{\"aggregateType\":{{\"inputType\":{{\"int64Type\":{{\"encoding\":{{\"bigEndianBytes\":{{}}}}}}}}, \"{name}\":{{}}}}}}"
            )
        }
    }
}

/// The `include-stats=full` summary printed after the rows.
pub(crate) fn print_stats(out: &mut Vec<u8>, stats: &ReadStats) {
    let text = format!(
        "Summary Stats\n====================\nrows_seen_count: {}\nrows_returned_count: {}\ncells_seen_count: {}\ncells_returned_count: {}\nfrontend_server_latency: 0ms\n\n",
        stats.rows_seen, stats.rows_returned, stats.cells_seen, stats.cells_returned
    );
    out.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_print_like_cbt() {
        let cells = [
            CellView::plain("zz", b"a b", 6000, b"\x07"),
            CellView::plain("aa", b"", 5000, b""),
            CellView::plain("f1", &[b'q'; 45], 2000, b"long"),
        ];
        let mut out = Vec::new();
        print_row(&mut out, b"r1", &cells, &ValueFormatting::default()).unwrap();
        let expected = format!(
            "{}r1\n  aa:{} @ 1970/01/01-00:00:00.005000\n    \"\"\n  f1:{} @ 1970/01/01-00:00:00.002000\n    \"long\"\n  zz:a b{} @ 1970/01/01-00:00:00.006000\n    \"\\a\"\n\n",
            "-".repeat(40) + "\n",
            " ".repeat(37),
            "q".repeat(45),
            " ".repeat(34)
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn value_types_print_as_go_json() {
        assert_eq!(value_type_json(ValueType::Bytes), "{}");
        assert_eq!(
            value_type_json(ValueType::Aggregate(Aggregator::Sum)),
            "{\"aggregateType\":{\"inputType\":{\"int64Type\":{\"encoding\":{\"bigEndianBytes\":{}}}}, \"sum\":{}}}"
        );
    }
}
