//! The Tablets bar's data: a table's key space as its tablets, in key
//! order, each as wide as its share of the bytes, with the split points
//! labelled, and SampleRowKeys' answer beside it.
//!
//! The bar itself is generic ([`BarSegment`]), so the simulation can draw
//! the same bar coloured by node later.

use tabletop_core::{Instance, human_bytes};

use super::keys::DisplayKey;

/// One tablet of the bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TabletLine {
    /// The tablet id (unique within the table).
    pub id: u64,
    /// Inclusive start key (empty for the first tablet).
    pub start: DisplayKey,
    /// The start key's bytes.
    pub start_bytes: Vec<u8>,
    /// Exclusive end key (`None` for the last tablet).
    pub end: Option<DisplayKey>,
    /// Logical bytes stored.
    pub bytes: u64,
    /// Cells in the memtable.
    pub memtable_cells: u64,
    /// Sorted runs.
    pub runs: usize,
    /// Cells in the runs (deleted ones included, until compaction).
    pub run_cells: u64,
}

/// One answer of SampleRowKeys: a row key and the bytes before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The key (empty: the end of the table).
    pub key: DisplayKey,
    /// Approximate bytes stored before the key.
    pub offset: u64,
}

/// A table's tablets and samples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TabletsView {
    /// The table.
    pub table: String,
    /// The tablets, in key order.
    pub tablets: Vec<TabletLine>,
    /// SampleRowKeys' answer.
    pub samples: Vec<Sample>,
    /// Logical bytes of the whole table.
    pub total_bytes: u64,
    /// A tablet past this many bytes is split (the playground's
    /// scaled-down threshold; 0: never).
    pub split_bytes: u64,
}

/// A print of which SampleRowKeys list `view` is: its table and its keys
/// (not their offsets, which grow with every write). Equal prints are the
/// same list; the Tablets panel keeps the list unfolded only as long as it
/// stays the same.
pub fn samples_print(view: &TabletsView) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    view.table.hash(&mut hasher);
    for sample in &view.samples {
        sample.key.text.hash(&mut hasher);
    }
    hasher.finish()
}

/// When tablets split: one short line, and the longer story for its
/// hover text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitNote {
    /// The line.
    pub text: String,
    /// The detail.
    pub detail: String,
}

/// The scale of the playground's tablets: they split far sooner than
/// Bigtable's, so that small tables show splits.
pub fn split_note(split_bytes: u64) -> SplitNote {
    let real = "Bigtable splits tablets itself, by size and load, at hundreds of MiB or more.";
    if split_bytes == 0 {
        return SplitNote {
            text: "Tablets here never split by size.".into(),
            detail: format!("The playground does not split tablets by size. {real}"),
        };
    }
    let size = human_bytes(split_bytes as f64);
    SplitNote {
        text: format!("Scaled down: splits past {size} here, hundreds of MiB in Bigtable."),
        detail: format!(
            "The playground splits a tablet past {size} so that small tables show splits. {real}"
        ),
    }
}

/// Reads the tablets and samples of `table` from the core.
pub fn tablets_view(instance: &Instance, table: &str) -> Result<TabletsView, String> {
    let tablets = instance.tablets(table).map_err(|e| e.to_string())?;
    let samples = instance.sample_row_keys(table).map_err(|e| e.to_string())?;
    Ok(TabletsView {
        table: table.to_string(),
        split_bytes: instance.config().engine.split_bytes,
        total_bytes: tablets.iter().map(|t| t.bytes).sum(),
        tablets: tablets
            .iter()
            .map(|t| TabletLine {
                id: t.id,
                start: DisplayKey::new(&t.start_key),
                start_bytes: t.start_key.clone(),
                end: t.end_key.as_deref().map(DisplayKey::new),
                bytes: t.bytes,
                memtable_cells: t.memtable_cells,
                runs: t.runs.len(),
                run_cells: t.runs.iter().map(|r| r.cells).sum(),
            })
            .collect(),
        samples: samples
            .iter()
            .map(|(key, offset)| Sample {
                key: DisplayKey::new(key),
                offset: *offset,
            })
            .collect(),
    })
}

/// One piece of a key-space bar: how wide it is and how to draw it.
#[derive(Clone, Debug, PartialEq)]
pub struct BarSegment {
    /// Where it starts, in percent of the bar.
    pub left: f64,
    /// Its width, in percent of the bar.
    pub width: f64,
}

/// Lays tablets out along a bar of 100%: each as wide as its share of the
/// bytes, plus a small floor so empty tablets stay visible.
pub fn bar_layout(tablets: &[TabletLine]) -> Vec<BarSegment> {
    if tablets.is_empty() {
        return Vec::new();
    }
    let total: u64 = tablets.iter().map(|t| t.bytes).sum();
    let n = tablets.len() as u64;
    // Every tablet gets at least a tenth of an equal share.
    let floor = (total / (n * 10)).max(1);
    let weights: Vec<u64> = tablets.iter().map(|t| t.bytes + floor).collect();
    // Display arithmetic; precision loss on huge sums does not matter.
    #[allow(clippy::cast_precision_loss)]
    let sum = weights.iter().sum::<u64>() as f64;
    let mut left = 0.0;
    weights
        .iter()
        .map(|&w| {
            #[allow(clippy::cast_precision_loss)]
            let width = w as f64 / sum * 100.0;
            let segment = BarSegment { left, width };
            left += width;
            segment
        })
        .collect()
}

/// Adjacent tablets drawn as one block of a bar that has too many to draw
/// one by one.
#[derive(Clone, Debug, PartialEq)]
pub struct BarBlock {
    /// The first tablet in it (an index into the tablets).
    pub first: usize,
    /// One past its last tablet.
    pub end: usize,
    /// Where it lies on the bar.
    pub segment: BarSegment,
}

/// Groups adjacent tablets of `layout` into blocks at least `min_width`
/// percent of the bar wide, so a bar of thousands of tablets, each under
/// a pixel wide, is drawn with at most about `2 * 100 / min_width`
/// elements. A tablet as wide as `min_width` is a block of its own (the
/// block before it, and the last, may be narrower).
pub fn bar_blocks(layout: &[BarSegment], min_width: f64) -> Vec<BarBlock> {
    let mut blocks: Vec<BarBlock> = Vec::new();
    let mut open = false;
    for (i, seg) in layout.iter().enumerate() {
        match blocks.last_mut() {
            Some(block) if open && seg.width < min_width => {
                block.end = i + 1;
                block.segment.width = seg.left + seg.width - block.segment.left;
            }
            _ => blocks.push(BarBlock {
                first: i,
                end: i + 1,
                segment: seg.clone(),
            }),
        }
        open = blocks.last().is_some_and(|b| b.segment.width < min_width);
    }
    blocks
}

/// Which split points (start keys of tablets after the first) get a label:
/// greedily from the left, at least `min_gap` percent apart and not closer
/// than half that to the bar's ends.
pub fn labelled_splits(layout: &[BarSegment], min_gap: f64) -> Vec<usize> {
    let mut chosen = Vec::new();
    let mut last = f64::NEG_INFINITY;
    for (i, segment) in layout.iter().enumerate().skip(1) {
        let at = segment.left;
        if at - last >= min_gap && at >= min_gap / 2.0 && at <= 100.0 - min_gap / 2.0 {
            chosen.push(i);
            last = at;
        }
    }
    chosen
}

/// The index of the tablet holding `key`.
pub fn tablet_of_key(tablets: &[TabletLine], key: &[u8]) -> Option<usize> {
    if tablets.is_empty() {
        return None;
    }
    Some(
        tablets
            .partition_point(|t| t.start_bytes.as_slice() <= key)
            .saturating_sub(1),
    )
}

#[cfg(test)]
mod tests {
    use tabletop_core::{ColumnFamily, CreateTableRequest, Mutation, TableSchema};

    use super::*;

    #[test]
    fn a_samples_print_changes_with_the_table_or_its_keys_not_with_the_offsets() {
        let view = |table: &str, keys: &[(&[u8], u64)]| TabletsView {
            table: table.into(),
            tablets: Vec::new(),
            samples: keys
                .iter()
                .map(|(k, offset)| Sample {
                    key: DisplayKey::new(k),
                    offset: *offset,
                })
                .collect(),
            total_bytes: 0,
            split_bytes: 0,
        };
        let first = samples_print(&view("a", &[(b"k1", 10), (b"", 20)]));
        // The same keys further on in a load: more bytes before each.
        assert_eq!(first, samples_print(&view("a", &[(b"k1", 40), (b"", 90)])));
        // A split (a new key), another table, or a key moved: another list.
        for other in [
            view("a", &[(b"k1", 10), (b"k5", 15), (b"", 20)]),
            view("b", &[(b"k1", 10), (b"", 20)]),
            view("a", &[(b"k2", 10), (b"", 20)]),
        ] {
            assert_ne!(first, samples_print(&other), "{other:?}");
        }
    }

    #[test]
    fn blocks_cover_the_tablets_in_order_and_bound_the_elements() {
        let tablet = |bytes: u64| TabletLine {
            id: bytes,
            start: DisplayKey::new(b""),
            start_bytes: Vec::new(),
            end: None,
            bytes,
            memtable_cells: 0,
            runs: 0,
            run_cells: 0,
        };
        // 2,000 tablets of uneven sizes, one of them a tenth of the bytes.
        let mut tablets: Vec<TabletLine> = (0..2_000).map(|i| tablet(100 + i % 7 * 50)).collect();
        tablets[700].bytes = 30_000;
        let layout = bar_layout(&tablets);
        let blocks = bar_blocks(&layout, 0.5);
        assert!(blocks.len() <= 210, "{} blocks", blocks.len());
        assert!(blocks.len() > 100, "{} blocks", blocks.len());
        let mut next = 0;
        for (k, b) in blocks.iter().enumerate() {
            assert_eq!(b.first, next, "no tablet skipped or drawn twice");
            assert!(b.end > b.first);
            next = b.end;
            assert!((b.segment.left - layout[b.first].left).abs() < 1e-9);
            let right = layout[b.end - 1].left + layout[b.end - 1].width;
            assert!((b.segment.left + b.segment.width - right).abs() < 1e-9);
            let before_wide = blocks.get(k + 1).is_some_and(|n| n.end - n.first == 1);
            if k + 1 < blocks.len() && !before_wide {
                assert!(b.segment.width >= 0.5, "block {k} is {}", b.segment.width);
            }
        }
        assert_eq!(next, tablets.len());
        let big = blocks
            .iter()
            .find(|b| (b.first..b.end).contains(&700))
            .unwrap();
        assert_eq!(
            (big.first, big.end),
            (700, 701),
            "the big tablet is a block of its own"
        );
        // Wide tablets stay one block each.
        let few = bar_layout(&tablets[..5]);
        assert_eq!(bar_blocks(&few, 0.5).len(), 5);
        assert!(bar_blocks(&[], 0.5).is_empty());
    }

    fn instance() -> Instance {
        let mut db = Instance::default();
        let mut schema = TableSchema::default();
        schema.families.insert("cf".into(), ColumnFamily::default());
        db.create_table(CreateTableRequest {
            table_id: "t".into(),
            schema,
            initial_splits: vec![b"m".to_vec(), b"t".to_vec()],
        })
        .unwrap();
        for key in ["a", "b", "n"] {
            db.mutate_row(
                "t",
                key.as_bytes(),
                &[Mutation::set_cell("cf", b"q", 1000, b"v")],
            )
            .unwrap();
        }
        db
    }

    #[test]
    fn tablets_and_samples_come_from_the_core() {
        let view = tablets_view(&instance(), "t").unwrap();
        let starts: Vec<&str> = view.tablets.iter().map(|t| t.start.text.as_str()).collect();
        assert_eq!(starts, ["", "m", "t"]);
        assert_eq!(view.tablets[2].end, None);
        assert_eq!(view.tablets[0].end.as_ref().unwrap().text, "m");
        assert!(view.tablets[0].bytes > view.tablets[1].bytes);
        assert_eq!(view.tablets[2].bytes, 0);
        assert_eq!(
            view.total_bytes,
            view.tablets.iter().map(|t| t.bytes).sum::<u64>()
        );
        let keys: Vec<&str> = view.samples.iter().map(|s| s.key.text.as_str()).collect();
        assert_eq!(keys.last(), Some(&""), "samples end with the empty key");
        assert_eq!(view.samples.last().unwrap().offset, view.total_bytes);
        assert!(
            tablets_view(&instance(), "nope")
                .unwrap_err()
                .contains("nope")
        );
    }

    #[test]
    fn the_split_size_is_the_cores_and_said_to_be_scaled_down() {
        let view = tablets_view(&instance(), "t").unwrap();
        assert_eq!(
            view.split_bytes,
            tabletop_core::EngineConfig::default().split_bytes
        );
        let note = split_note(128 * 1024);
        assert_eq!(
            note.text,
            "Scaled down: splits past 128 KiB here, hundreds of MiB in Bigtable."
        );
        assert!(note.detail.contains("by size and load"), "{}", note.detail);
        assert_eq!(split_note(0).text, "Tablets here never split by size.");
    }

    #[test]
    fn bars_follow_bytes_and_keep_empty_tablets_visible() {
        let view = tablets_view(&instance(), "t").unwrap();
        let layout = bar_layout(&view.tablets);
        let total: f64 = layout.iter().map(|s| s.width).sum();
        assert!((total - 100.0).abs() < 1e-9);
        assert!(layout[0].width > layout[1].width);
        assert!(layout[2].width > 0.0);
        assert!((layout[1].left - layout[0].width).abs() < 1e-9);
        assert!(bar_layout(&[]).is_empty());
    }

    #[test]
    fn split_labels_keep_their_distance() {
        let layout: Vec<BarSegment> = (0..10)
            .map(|i| BarSegment {
                left: f64::from(i) * 10.0,
                width: 10.0,
            })
            .collect();
        assert_eq!(labelled_splits(&layout, 25.0), [2, 5, 8]);
        assert_eq!(labelled_splits(&layout, 10.0), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }

    #[test]
    fn keys_find_their_tablet() {
        let view = tablets_view(&instance(), "t").unwrap();
        assert_eq!(tablet_of_key(&view.tablets, b""), Some(0));
        assert_eq!(tablet_of_key(&view.tablets, b"l"), Some(0));
        assert_eq!(tablet_of_key(&view.tablets, b"m"), Some(1));
        assert_eq!(tablet_of_key(&view.tablets, b"zz"), Some(2));
        assert_eq!(tablet_of_key(&[], b"a"), None);
    }
}
