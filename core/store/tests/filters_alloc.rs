#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Filters allocate per read, not per row or cell: a counting global
// allocator (native only) shows that a filtered read of 20 times more rows
// costs about the same number of allocations. In wasm the reads still run,
// without counting.

use tabletop_store::*;

#[cfg(not(target_arch = "wasm32"))]
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    struct Counting;

    thread_local! {
        /// Per thread, so tests running in parallel do not count each other.
        static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    }

    // SAFETY: every call is forwarded unchanged to the system allocator;
    // the wrapper only counts.
    #[allow(unsafe_code)]
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            ALLOCATIONS.with(|c| c.set(c.get() + 1));
            // SAFETY: same contract as the caller's.
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: same contract as the caller's.
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            ALLOCATIONS.with(|c| c.set(c.get() + 1));
            // SAFETY: same contract as the caller's.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    pub(super) fn allocations() -> u64 {
        ALLOCATIONS.with(Cell::get)
    }
}

#[cfg(target_arch = "wasm32")]
mod counting {
    pub(super) fn allocations() -> u64 {
        0
    }
}

fn table(rows: usize) -> Instance {
    let mut db = Instance::default();
    db.set_now(1_588_291_200_000_000);
    db.create_table(CreateTableRequest::with_families(
        "t",
        [
            ("a", ColumnFamily::with_gc(None)),
            ("b", ColumnFamily::with_gc(None)),
        ],
    ))
    .expect("create");
    for i in 0..rows {
        let key = format!("row{i:06}");
        let v = format!("value{}", i % 100);
        let muts = [
            Mutation::set_cell("a", b"x", 1000, v.as_bytes()),
            Mutation::set_cell("a", b"x", 2000, v.as_bytes()),
            Mutation::set_cell("a", b"y", 1000, b"1"),
            Mutation::set_cell("b", b"x", 1000, v.as_bytes()),
        ];
        db.mutate_row("t", key.as_bytes(), &muts).expect("write");
    }
    db
}

/// Allocations of one read with `filter`, and the cells it returned.
fn read(db: &mut Instance, filter: &RowFilter) -> (u64, u64) {
    let req = ReadRowsRequest {
        filter: Some(filter.clone()),
        ..ReadRowsRequest::default()
    };
    let mut sink = CountRows::default();
    // Warm up once: the table sorts its memtables on the first read.
    db.read_rows("t", &req, &mut sink).expect("read");
    let mut sink = CountRows::default();
    let before = counting::allocations();
    db.read_rows("t", &req, &mut sink).expect("read");
    (counting::allocations() - before, sink.cells)
}

#[test]
fn filtered_reads_allocate_per_read_not_per_row() {
    let flat = RowFilter::Chain(vec![
        RowFilter::FamilyNameRegex("a".into()),
        RowFilter::ValueRegex(b"value[1-3]\\d?".to_vec()),
        RowFilter::StripValue,
        RowFilter::ApplyLabel("hit".into()),
    ]);
    let tree = RowFilter::Chain(vec![
        RowFilter::Interleave(vec![
            RowFilter::Chain(vec![
                RowFilter::ColumnQualifierRegex(b"y".to_vec()),
                RowFilter::ApplyLabel("sunk".into()),
                RowFilter::Sink,
            ]),
            RowFilter::CellsPerColumnLimit(1),
            RowFilter::ValueRange {
                start: KeyBound::Closed(b"value5".to_vec()),
                end: KeyBound::Unbounded,
            },
        ]),
        RowFilter::Condition {
            predicate: Box::new(RowFilter::ValueRegex(b"value1.*".to_vec())),
            true_filter: Some(Box::new(RowFilter::StripValue)),
            false_filter: Some(Box::new(RowFilter::CellsPerRowOffset(1))),
        },
    ]);
    let mut small = table(1_000);
    let mut big = table(20_000);
    for filter in [&flat, &tree] {
        let (a_small, cells_small) = read(&mut small, filter);
        let (a_big, cells_big) = read(&mut big, filter);
        assert!(cells_big > 15 * cells_small, "{cells_small} vs {cells_big}");
        // Buffers grow geometrically: a few more doublings, nothing per row.
        assert!(
            a_big <= a_small + 24,
            "{a_small} allocations for 1,000 rows, {a_big} for 20,000 ({filter:?})"
        );
    }
}
