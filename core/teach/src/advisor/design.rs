//! [`Design`]: what the advisor checks, gathered from a scenario (table,
//! key, columns, access patterns, workloads) and/or a live instance
//! (tables and their families).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use tabletop_design::keydesign::KeyTemplate;
use tabletop_design::scenario::{AccessSpec, ColumnSpec, OtherTable};
use tabletop_design::sim::{FamilySpec, Scenario, Seconds, Workload};
use tabletop_sql::Instance;
use tabletop_store::{ColumnFamily, GcRule, ValueType};

/// A column family as the advisor sees it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FamilyDesign {
    /// The GC rule keeps at most this many versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_versions: Option<u32>,
    /// The GC rule deletes cells older than this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age: Option<Seconds>,
    /// Whether the family has any GC rule (an intersection rule bounds
    /// neither versions nor age on its own but is still a rule).
    pub gc: bool,
    /// Whether it is an aggregate family (its cells merge into one).
    #[serde(default)]
    pub aggregate: bool,
}

impl FamilyDesign {
    /// From a scenario family.
    #[must_use]
    pub fn from_spec(spec: &FamilySpec) -> FamilyDesign {
        FamilyDesign {
            max_versions: spec.max_versions,
            max_age: spec.max_age,
            gc: spec.max_versions.is_some() || spec.max_age.is_some(),
            aggregate: false,
        }
    }

    /// From an instance family.
    #[must_use]
    pub fn from_family(cf: &ColumnFamily) -> FamilyDesign {
        let mut f = FamilyDesign {
            gc: cf.gc_rule.is_some(),
            aggregate: !matches!(cf.value_type, ValueType::Bytes),
            ..FamilyDesign::default()
        };
        if let Some(rule) = &cf.gc_rule {
            bounds(rule, &mut f);
        }
        f
    }

    /// Back to a scenario family.
    #[must_use]
    pub fn to_spec(&self) -> FamilySpec {
        FamilySpec {
            max_versions: self.max_versions,
            max_age: self.max_age,
        }
    }

    /// The GC rule this family describes, if it bounds anything.
    #[must_use]
    pub fn gc_rule(&self) -> Option<GcRule> {
        let mut rules = Vec::new();
        if let Some(v) = self.max_versions {
            rules.push(GcRule::MaxNumVersions(i32::try_from(v).unwrap_or(i32::MAX)));
        }
        if let Some(a) = self.max_age
            && let Ok(d) = std::time::Duration::try_from_secs_f64(a.0)
        {
            rules.push(GcRule::MaxAge(d.max(std::time::Duration::from_millis(1))));
        }
        match rules.len() {
            0 => None,
            1 => rules.pop(),
            _ => Some(GcRule::Union(rules)),
        }
    }

    /// `versions <= 2, age <= 30d`, or `no GC rule`.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(v) = self.max_versions {
            parts.push(format!(
                "keeps {v} version{}",
                if v == 1 { "" } else { "s" }
            ));
        }
        if let Some(a) = self.max_age {
            parts.push(format!("deletes cells older than {a}"));
        }
        if parts.is_empty() {
            if self.gc {
                "has a combined GC rule".to_string()
            } else {
                "has no GC rule: keeps every version forever".to_string()
            }
        } else {
            parts.join(" and ")
        }
    }
}

/// What a union rule guarantees: the smallest version cap and the
/// shortest age of its parts. An intersection guarantees nothing alone.
fn bounds(rule: &GcRule, f: &mut FamilyDesign) {
    match rule {
        GcRule::MaxNumVersions(n) => {
            let n = u32::try_from(*n).unwrap_or(1);
            f.max_versions = Some(f.max_versions.map_or(n, |m| m.min(n)));
        }
        GcRule::MaxAge(d) => {
            let s = d.as_secs_f64();
            f.max_age = Some(Seconds(f.max_age.map_or(s, |m| m.0.min(s))));
        }
        GcRule::Union(rules) => {
            for r in rules {
                bounds(r, f);
            }
        }
        GcRule::Intersection(_) => {}
    }
}

/// A table of the design.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TableDesign {
    /// Table id.
    pub id: String,
    /// Families by name.
    pub families: BTreeMap<String, FamilyDesign>,
    /// Whether the table exists in the instance (so fixes to it change
    /// data), rather than only in the scenario.
    #[serde(default)]
    pub in_instance: bool,
}

/// Everything the advisor checks. The first table is the *main* table:
/// the key, columns, access patterns and workloads describe it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Design {
    /// A name for reports (the scenario's).
    pub name: String,
    /// The tables; the first is the main table.
    pub tables: Vec<TableDesign>,
    /// The main table's row-key design.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<KeyTemplate>,
    /// What the main table's rows hold.
    #[serde(default)]
    pub columns: Vec<ColumnSpec>,
    /// The application's reads of the main table.
    #[serde(default)]
    pub access: Vec<AccessSpec>,
    /// Entities keys are drawn from.
    pub entities: u64,
    /// Nodes of the cluster.
    pub nodes: u32,
    /// Writes one node serves per second.
    pub writes_per_node: f64,
    /// Traffic on the main table.
    #[serde(default)]
    pub workloads: Vec<Workload>,
}

impl Design {
    /// The design a scenario describes (its table first, then its
    /// `[[other_table]]`s).
    #[must_use]
    pub fn from_scenario(s: &Scenario) -> Design {
        let mut families: BTreeMap<String, FamilyDesign> = s
            .table
            .families
            .iter()
            .map(|(n, f)| (n.clone(), FamilyDesign::from_spec(f)))
            .collect();
        if families.is_empty() {
            families.insert("cf".into(), FamilyDesign::default());
        }
        let mut tables = vec![TableDesign {
            id: s.table.id.clone(),
            families,
            in_instance: false,
        }];
        tables.extend(s.other_tables.iter().map(|t| {
            TableDesign {
                id: t.id.clone(),
                families: t
                    .families
                    .iter()
                    .map(|(n, f)| (n.clone(), FamilyDesign::from_spec(f)))
                    .collect(),
                in_instance: false,
            }
        }));
        Design {
            name: s.name.clone(),
            tables,
            key: Some(s.key.clone()),
            columns: s.columns.clone(),
            access: s.access.clone(),
            entities: s.table.entities,
            nodes: s.cluster.nodes,
            writes_per_node: s.cluster.writes_per_second(),
            workloads: s.workloads.clone(),
        }
    }

    /// The tables of an instance (no key, no access patterns).
    #[must_use]
    pub fn from_instance(db: &Instance) -> Design {
        let mut d = Design {
            name: db.name(),
            entities: 10_000,
            nodes: 3,
            writes_per_node: 14_000.0,
            ..Design::default()
        };
        d.add_instance_tables(db);
        d
    }

    /// A scenario's design plus the instance's tables (a table with the
    /// scenario table's id is the scenario table's rows and is not added
    /// twice; it is marked as present in the instance).
    #[must_use]
    pub fn from_parts(scenario: Option<&Scenario>, db: Option<&Instance>) -> Design {
        let mut d = match scenario {
            Some(s) => Design::from_scenario(s),
            None => Design {
                entities: 10_000,
                nodes: 3,
                writes_per_node: 14_000.0,
                ..Design::default()
            },
        };
        if let Some(db) = db {
            if scenario.is_none() {
                d.name = db.name();
            }
            d.add_instance_tables(db);
        }
        d
    }

    fn add_instance_tables(&mut self, db: &Instance) {
        for info in db.list_tables() {
            if let Some(t) = self.tables.iter_mut().find(|t| t.id == info.id) {
                t.in_instance = true;
                continue;
            }
            self.tables.push(TableDesign {
                id: info.id.clone(),
                families: info
                    .schema
                    .families
                    .iter()
                    .map(|(n, f)| (n.clone(), FamilyDesign::from_family(f)))
                    .collect(),
                in_instance: true,
            });
        }
    }

    /// The main table, if any.
    #[must_use]
    pub fn main_table(&self) -> Option<&TableDesign> {
        self.tables.first()
    }

    /// Whether the design came with a scenario (so the main table has a
    /// key, workloads and so on).
    #[must_use]
    pub fn has_scenario(&self) -> bool {
        self.key.is_some()
    }

    /// Writes the scenario parts of the design back into `s` (table id,
    /// families, key, columns, access patterns, other tables, workloads).
    /// Tables that exist only in the instance are left out.
    pub fn write_back(&self, s: &mut Scenario) {
        if let Some(main) = self.tables.first() {
            s.table.id = main.id.clone();
            s.table.families = main
                .families
                .iter()
                .map(|(n, f)| (n.clone(), f.to_spec()))
                .collect();
            if s.table.families.len() == 1
                && s.table
                    .families
                    .get("cf")
                    .is_some_and(|f| f.max_versions.is_none() && f.max_age.is_none())
            {
                s.table.families.clear();
            }
        }
        s.other_tables = self
            .tables
            .iter()
            .skip(1)
            .filter(|t| !t.in_instance)
            .map(|t| OtherTable {
                id: t.id.clone(),
                families: t
                    .families
                    .iter()
                    .map(|(n, f)| (n.clone(), f.to_spec()))
                    .collect(),
            })
            .collect();
        if let Some(k) = &self.key {
            s.key = k.clone();
        }
        s.columns = self.columns.clone();
        s.access = self.access.clone();
        s.workloads = self.workloads.clone();
    }
}
