//! "Allocation-light" is measured, not claimed: a counting global allocator
//! shows that reading allocates nothing per scanned cell (only a few
//! buffers per read) and that writing allocates far less than once per
//! written cell (arenas grow geometrically).

#![cfg(not(target_arch = "wasm32"))]
// A global allocator needs unsafe; it only forwards to `System`.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use tabletop_store::*;

struct Counting;

thread_local! {
    /// Per thread, so tests running in parallel do not count each other.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    ALLOCATIONS.with(|c| c.set(c.get() + 1));
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// wrapper only counts.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

const ROWS: usize = 20_000;
const QUALIFIERS: [&[u8]; 8] = [
    b"connected_cell",
    b"connected_wifi",
    b"os_build",
    b"battery",
    b"cpu",
    b"memory",
    b"signal",
    b"temp",
];

/// Loads ROWS rows of 8 cells; returns allocations made by the engine.
fn load(db: &mut Instance) -> u64 {
    db.create_table(CreateTableRequest::with_families(
        "t",
        [
            ("stats_summary", ColumnFamily::default()),
            ("stats_detail", ColumnFamily::default()),
        ],
    ))
    .expect("create");
    // Keys are prepared up front so that only the engine is measured.
    let keys: Vec<String> = (0..ROWS)
        .map(|i| format!("phone#{:08x}#2020050{}", i * 7919 % 1_000_003, i % 9))
        .collect();
    let value = b"PQ2A.190405.003";
    let before = allocations();
    for key in &keys {
        let m: [Mutation<'_>; 8] = std::array::from_fn(|i| {
            let fam = if i < 3 {
                "stats_summary"
            } else {
                "stats_detail"
            };
            Mutation::set_cell(fam, QUALIFIERS[i], 1_000, &value[..i + 1])
        });
        db.mutate_row("t", key.as_bytes(), &m).expect("write");
    }
    allocations() - before
}

#[test]
fn writes_allocate_far_less_than_once_per_cell() {
    let mut db = Instance::new(InstanceConfig {
        engine: EngineConfig::bulk(),
        ..InstanceConfig::default()
    });
    let allocs = load(&mut db);
    let cells = (ROWS * 8) as u64;
    assert!(
        allocs * 20 < cells,
        "{allocs} allocations for {cells} written cells (want < 1 per 20 cells)"
    );
}

#[test]
fn scans_allocate_nothing_per_cell() {
    // Small thresholds: many tablets and runs, so merging is exercised.
    let mut db = Instance::new(InstanceConfig {
        engine: EngineConfig {
            memtable_flush_bytes: 64 * 1024,
            split_bytes: 512 * 1024,
            ..EngineConfig::default()
        },
        ..InstanceConfig::default()
    });
    load(&mut db);
    db.tick(1_000_000);
    // Leave a memtable and several runs per tablet in place.
    for i in 0..500 {
        let key = format!("phone#{i:08x}#late");
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[Mutation::set_cell("stats_summary", b"late", 1_000, b"1")],
        )
        .expect("write");
    }
    let tablets = db.tablets("t").expect("tablets").len();
    assert!(tablets > 4, "want several tablets, got {tablets}");

    let full = ReadRowsRequest::default();
    // Warm up once (memtable tails get sorted on the first read).
    db.read_rows("t", &full, &mut CountRows::default())
        .expect("read");
    let mut sink = CountRows::default();
    let before = allocations();
    let stats = db.read_rows("t", &full, &mut sink).expect("read");
    let allocs = allocations() - before;
    assert_eq!(sink.rows, (ROWS + 500) as u64);
    assert!(stats.cells_seen > 150_000);
    assert!(
        allocs < 20 + 2 * tablets as u64,
        "{allocs} allocations to scan {} cells in {tablets} tablets",
        stats.cells_seen
    );

    // Point reads: a constant handful per read, whatever the table size.
    let before = allocations();
    for i in 0..100 {
        let key = format!("phone#{:08x}#2020050{}", i * 7919 % 1_000_003, i % 9);
        let req = ReadRowsRequest::rows(RowSet::single(key));
        db.read_rows("t", &req, &mut sink).expect("read");
    }
    let per_read = (allocations() - before) / 100;
    // The request, its normalised ranges and a few read buffers: a
    // constant, whatever the size of the table.
    assert!(per_read <= 16, "{per_read} allocations per point read");
}
