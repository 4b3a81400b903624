//! Real rows for the UI: a bounded, deterministic sample of the scenario's
//! rows written into an [`Instance`] through its public API, so the Rows
//! panel and `cbt read` show keys of the simulated design.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Simulation;
use super::sample::{SampleMoment, SampleSpec};
use tabletop_sql::Instance;
use tabletop_store::Result;
use tabletop_store::{ColumnFamily, GcRule, TableSchema};

/// Most rows [`Simulation::materialize`] writes.
pub const MAX_MATERIALIZED_ROWS: usize = 50_000;

/// What [`Simulation::materialize`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaterializeSummary {
    /// The table created.
    pub table_id: String,
    /// Distinct rows written.
    pub rows: usize,
    /// Split keys the table was created with (the simulated tablets'
    /// boundaries, at most 100).
    pub initial_splits: usize,
}

impl Simulation {
    /// The scenario's table schema (families and GC rules) as the core's
    /// [`TableSchema`].
    #[must_use]
    pub fn table_schema(&self) -> TableSchema {
        let mut schema = TableSchema::default();
        let fams = &self.scenario.table.families;
        if fams.is_empty() {
            schema
                .families
                .insert("cf".into(), ColumnFamily::with_gc(None));
        }
        for (name, f) in fams {
            let mut rules = Vec::new();
            if let Some(v) = f.max_versions {
                rules.push(GcRule::MaxNumVersions(i32::try_from(v).unwrap_or(i32::MAX)));
            }
            if let Some(age) = f.max_age
                && let Ok(d) = Duration::try_from_secs_f64(age.0)
            {
                rules.push(GcRule::MaxAge(d.max(Duration::from_millis(1))));
            }
            let rule = match rules.len() {
                0 => None,
                1 => rules.pop(),
                _ => Some(GcRule::Union(rules)),
            };
            schema
                .families
                .insert(name.clone(), ColumnFamily::with_gc(rule));
        }
        schema
    }

    /// Creates the scenario's table in `db` (split at the simulated
    /// tablets' boundaries) and writes up to `max_rows` (at most
    /// [`MAX_MATERIALIZED_ROWS`]) rows drawn like the simulated data: keys
    /// of random entities at times across the table's history and the run
    /// so far, one small cell per family. Deterministic for a seed. Fails
    /// if the table exists. All in one call: hosts that must stay
    /// responsive write a [`SampleRows`](super::SampleRows) stream in
    /// slices instead.
    pub fn materialize(&self, db: &mut Instance, max_rows: usize) -> Result<MaterializeSummary> {
        let table_id = self.scenario.table.id.clone();
        let request = self.table_request(&table_id);
        let initial_splits = request.initial_splits.len();
        db.create_table(request)?;
        let mut rows = self.sample_rows(SampleSpec {
            rows: max_rows.min(MAX_MATERIALIZED_ROWS) as u64,
            seed: 0,
            moment: SampleMoment::Now,
        });
        while rows.write_batch(db, &table_id, WRITE_BATCH_ROWS)? > 0 {}
        Ok(MaterializeSummary {
            table_id,
            rows: rows.rows() as usize,
            initial_splits,
        })
    }
}

/// Rows per MutateRows call while materialising.
const WRITE_BATCH_ROWS: usize = 1000;

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::sim::fixtures::MOBILE_WRITES;
    use tabletop_store::CountRows;
    use tabletop_store::ReadRowsRequest;

    #[test]
    fn writes_a_bounded_sample() {
        let mut sim = Simulation::from_toml(MOBILE_WRITES).unwrap();
        sim.run_to_end();
        let mut db = Instance::default();
        let m = sim.materialize(&mut db, 300).unwrap();
        assert!(m.rows > 250 && m.rows <= 300, "{m:?}");
        let mut count = CountRows::default();
        db.read_rows("mobile", &ReadRowsRequest::default(), &mut count)
            .unwrap();
        assert_eq!(count.rows as usize, m.rows);
        assert!(!db.tablets("mobile").unwrap().is_empty());
        // A second time: the table exists.
        assert!(sim.materialize(&mut db, 10).is_err());
        assert_eq!(sim.table_schema().families.len(), 2);
    }
}
