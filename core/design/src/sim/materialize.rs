//! Real rows for the UI: a bounded, deterministic sample of the scenario's
//! rows written into an [`Instance`] through its public API, so the Rows
//! panel and `cbt read` show keys of the simulated design.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Simulation;
use crate::keydesign::KeyInput;
use crate::rng::Rng;
use tabletop_sql::Instance;
use tabletop_store::CreateTableRequest;
use tabletop_store::Mutation;
use tabletop_store::{ColumnFamily, GcRule, TableSchema};
use tabletop_store::{Error, Result};

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
    /// if the table exists.
    pub fn materialize(&self, db: &mut Instance, max_rows: usize) -> Result<MaterializeSummary> {
        let s = &self.scenario;
        let table_id = s.table.id.clone();
        let mut splits: Vec<Vec<u8>> = self
            .cluster
            .tablets
            .iter()
            .skip(1)
            .map(|t| self.axis.start(t.lo as usize).to_vec())
            .filter(|k| !k.is_empty())
            .collect();
        if splits.len() > 100 {
            let step = splits.len() as f64 / 100.0;
            splits = (0..100)
                .filter_map(|i| splits.get((i as f64 * step) as usize).cloned())
                .collect();
        }
        splits.dedup();
        let n_splits = splits.len();
        db.create_table(CreateTableRequest {
            table_id: table_id.clone(),
            schema: self.table_schema(),
            initial_splits: splits,
        })?;
        let schema = self.table_schema();
        let families: Vec<&String> = schema.families.keys().collect();
        let max_rows = max_rows.min(MAX_MATERIALIZED_ROWS);
        let mut renderer = self.renderer.clone();
        let mut rng = Rng::new(s.seed, 7);
        let population = (self.next_entity as u64).max(s.table.entities);
        let span_back = self.history;
        let now = self.now_seconds();
        let mut key = Vec::new();
        let mut written = std::collections::BTreeSet::new();
        let mut value = Vec::new();
        for _ in 0..max_rows.saturating_mul(2) {
            if written.len() >= max_rows {
                break;
            }
            let entity = rng.below(population);
            let at = now - rng.next_f64() * (span_back + now);
            let time_micros = s.start.0 + (at * 1e6) as i64;
            renderer.render(
                &KeyInput {
                    entity,
                    time_micros,
                    op_seq: rng.below((self.op_seq as u64).max(1)),
                    op_random: rng.next_u64(),
                },
                &mut key,
            );
            if written.contains(&key) {
                continue;
            }
            value.clear();
            value.extend_from_slice(format!("entity {entity}").as_bytes());
            let want = (s.table.row_bytes as usize / families.len().max(1)).clamp(1, 64);
            while value.len() < want {
                value.push(b'.');
            }
            value.truncate(want);
            let ts = (time_micros / 1000).max(0) * 1000;
            let muts: Vec<Mutation<'_>> = families
                .iter()
                .map(|f| Mutation::set_cell(f, b"v", ts, &value))
                .collect();
            db.mutate_row(&table_id, &key, &muts).map_err(|e| {
                Error::new(e.code(), format!("materialising rows: {}", e.message()))
            })?;
            written.insert(key.clone());
        }
        Ok(MaterializeSummary {
            table_id,
            rows: written.len(),
            initial_splits: n_splits,
        })
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use tabletop_store::CountRows;
    use tabletop_store::ReadRowsRequest;

    #[test]
    fn writes_a_bounded_sample() {
        let mut sim = Simulation::from_toml(
            r##"
name = "m"
duration = "5m"
[table]
id = "mobile"
rows = 100000
entities = 500
families = { stats = { max_versions = 1 }, detail = {} }
[key]
segments = [
  { name = "type", kind = "enum", values = ["phone", "tablet"] },
  { name = "id", kind = "hex", width = 8 },
  { name = "day", kind = "date" },
]
[[workload]]
op = "write"
rate = 100
[keyviz]
time_buckets = 10
fine_buckets = 32
"##,
        )
        .unwrap();
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
