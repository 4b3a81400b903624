//! The SQL Instance costs the store nothing when no view is there: writes
//! and reads through it allocate exactly what they allocate on the store's
//! own Instance (a trace is only made when a view follows the table or a
//! caller asks). Counted with a wrapping global allocator, natively.

#![cfg(not(target_arch = "wasm32"))]
// A global allocator needs unsafe; it only forwards to `System`.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use tabletop_store::{
    ColumnFamily, CountRows, CreateTableRequest, Mutation, ReadRowsRequest, Result, RowSet,
};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// wrapper only counts.
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

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

const ROWS: u32 = 5_000;

/// The same calls on either instance.
trait Db {
    fn create(&mut self, req: CreateTableRequest) -> Result<()>;
    fn write(&mut self, key: &[u8], m: &[Mutation<'_>]) -> Result<()>;
    fn read(&mut self, req: &ReadRowsRequest, sink: &mut CountRows) -> Result<()>;
}

impl Db for tabletop_store::Instance {
    fn create(&mut self, req: CreateTableRequest) -> Result<()> {
        self.create_table(req).map(|_| ())
    }
    fn write(&mut self, key: &[u8], m: &[Mutation<'_>]) -> Result<()> {
        self.mutate_row("t", key, m)
    }
    fn read(&mut self, req: &ReadRowsRequest, sink: &mut CountRows) -> Result<()> {
        self.read_rows("t", req, sink).map(|_| ())
    }
}

impl Db for tabletop_sql::Instance {
    fn create(&mut self, req: CreateTableRequest) -> Result<()> {
        self.create_table(req).map(|_| ())
    }
    fn write(&mut self, key: &[u8], m: &[Mutation<'_>]) -> Result<()> {
        self.mutate_row("t", key, m)
    }
    fn read(&mut self, req: &ReadRowsRequest, sink: &mut CountRows) -> Result<()> {
        self.read_rows("t", req, sink).map(|_| ())
    }
}

/// Allocations for writing the table, then for 1000 point reads.
fn run(db: &mut dyn Db) -> (u64, u64) {
    db.create(CreateTableRequest::with_families(
        "t",
        [("cf", ColumnFamily::default())],
    ))
    .unwrap();
    let keys: Vec<Vec<u8>> = (0..ROWS)
        .map(|i| format!("row#{:06}", i * 7919 % ROWS).into_bytes())
        .collect();
    let before = allocations();
    for key in &keys {
        db.write(key, &[Mutation::set_cell("cf", b"q", 1_000, b"value")])
            .unwrap();
    }
    let writes = allocations() - before;
    let requests: Vec<ReadRowsRequest> = keys
        .iter()
        .take(1000)
        .map(|k| ReadRowsRequest::rows(RowSet::single(k.clone())))
        .collect();
    let mut sink = CountRows::default();
    let before = allocations();
    for req in &requests {
        db.read(req, &mut sink).unwrap();
    }
    let reads = allocations() - before;
    assert_eq!(sink.rows, 1000);
    (writes, reads)
}

#[test]
fn without_views_the_sql_instance_allocates_what_the_store_does() {
    let store = run(&mut tabletop_store::Instance::default());
    let sql = run(&mut tabletop_sql::Instance::default());
    assert_eq!(sql, store, "(writes, reads) allocations: SQL vs store");
}
