//! Fixtures the live Key Visualizer's tests share.

use tabletop_sql::Instance;
use tabletop_store::{ColumnFamily, CreateTableRequest, InstanceConfig};

/// An empty instance on a simulated clock fixed at a known moment.
pub fn fixed_clock() -> Instance {
    let mut db = Instance::new(InstanceConfig {
        simulated_clock: true,
        ..InstanceConfig::default()
    });
    db.set_now(1_700_000_000_000_000);
    db
}

/// [`fixed_clock`] with table `t` (one family, `cf`) split at `splits`.
#[allow(dead_code)] // not every test file uses it
pub fn split_table(splits: &[&str]) -> Instance {
    let mut db = fixed_clock();
    db.create_table(
        CreateTableRequest::with_families("t", [("cf", ColumnFamily::default())])
            .split_at(splits.iter().copied()),
    )
    .unwrap();
    db
}
