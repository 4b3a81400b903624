//! The table the change stream's and inspect's tests both split: table
//! `t` with one family `cf`, in an instance whose tablets split past
//! 2 KiB and flush their memtable at 1 KiB, so a few hundred rows make
//! several tablets.

use tabletop_store::*;

/// An instance at `now` holding the empty table `t`; its tablets merge
/// below `merge_bytes` (0: never).
pub fn splitting_table(now: i64, merge_bytes: u64) -> Instance {
    let mut config = InstanceConfig::default();
    config.engine.split_bytes = 2 * 1024;
    config.engine.memtable_flush_bytes = 1024;
    config.engine.merge_bytes = merge_bytes;
    let mut db = Instance::new(config);
    db.set_now(now);
    db.create_table(CreateTableRequest::with_families(
        "t",
        [("cf", ColumnFamily::default())],
    ))
    .expect("create the table");
    db
}
