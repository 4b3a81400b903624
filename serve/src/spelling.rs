//! How each client spelled its column families, echoed in the tables the
//! admin API answers, as Google's emulator echoes them.
//!
//! Two spellings mean the same family to the core, which keeps one form:
//! a GC rule sent as the empty message (what `cbt` sends for a family
//! without a policy) and no GC rule at all (what the Python client sends);
//! an aggregate's `int64Type` with its `bigEndianBytes` encoding spelled
//! out (`cbt`) or left to the default (`{}`). The JSON protocol answers
//! the core's form. Clients print the two differently (`cbt ls` shows no
//! rule as `<never>` and the empty one as nothing), so the server keeps
//! what each family was last given, by table name, and answers it back.
//! Only for as long as the server runs: after a restart on a state file
//! the core's form is answered.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::proto::google::bigtable::admin::v2::modify_column_families_request::modification::Mod;
use crate::proto::google::bigtable::admin::v2::{
    ColumnFamily, CreateTableRequest, GcRule, ModifyColumnFamiliesRequest, Table, Type,
};

/// What a family was given, where the core keeps another form.
#[derive(Clone, Debug, Default, PartialEq)]
struct Spelled {
    /// Its GC rule was the empty message.
    empty_gc_rule: bool,
    /// Its value type as sent, when it sent one.
    value_type: Option<Type>,
}

impl Spelled {
    fn of(family: &ColumnFamily) -> Spelled {
        Spelled {
            empty_gc_rule: family.gc_rule == Some(GcRule::default()),
            value_type: family.value_type.clone(),
        }
    }
}

/// Families by table name, then family name.
#[derive(Clone, Default)]
pub struct Spellings {
    tables: Arc<Mutex<HashMap<String, HashMap<String, Spelled>>>>,
}

impl Spellings {
    fn with<T>(&self, f: impl FnOnce(&mut HashMap<String, HashMap<String, Spelled>>) -> T) -> T {
        f(&mut self.tables.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Records the families of a table created by `request`.
    pub fn created(&self, request: &CreateTableRequest) {
        let name = format!("{}/tables/{}", request.parent, request.table_id);
        let families = request
            .table
            .iter()
            .flat_map(|t| &t.column_families)
            .map(|(id, family)| (id.clone(), Spelled::of(family)))
            .collect();
        self.with(|tables| tables.insert(name, families));
    }

    /// Records what `request`, which succeeded, created, updated or dropped.
    pub fn modified(&self, request: &ModifyColumnFamiliesRequest) {
        self.with(|tables| {
            let families = tables.entry(request.name.clone()).or_default();
            for m in &request.modifications {
                match &m.r#mod {
                    Some(Mod::Create(family)) => {
                        families.insert(m.id.clone(), Spelled::of(family));
                    }
                    Some(Mod::Update(family)) => {
                        // A family's value type cannot change; its rule can.
                        let spelled = families.entry(m.id.clone()).or_default();
                        spelled.empty_gc_rule = Spelled::of(family).empty_gc_rule;
                    }
                    Some(Mod::Drop(_)) => {
                        families.remove(&m.id);
                    }
                    None => {}
                }
            }
        });
    }

    /// Forgets a deleted table.
    pub fn deleted(&self, name: &str) {
        self.with(|tables| tables.remove(name));
    }

    /// `table` (an answer) with its families as they were spelled.
    pub fn echo(&self, mut table: Table) -> Table {
        self.with(|tables| {
            let Some(spelled) = tables.get(&table.name) else {
                return;
            };
            for (id, family) in &mut table.column_families {
                let Some(s) = spelled.get(id) else { continue };
                if s.empty_gc_rule && family.gc_rule.is_none() {
                    family.gc_rule = Some(GcRule::default());
                }
                if family.value_type.is_some() && s.value_type.is_some() {
                    family.value_type.clone_from(&s.value_type);
                }
            }
        });
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::google::bigtable::admin::v2::modify_column_families_request::Modification;
    use crate::proto::google::bigtable::admin::v2::{gc_rule, r#type};

    const TABLE: &str = "projects/p/instances/i/tables/t";

    fn int64_sum(encoded: bool) -> Type {
        let encoding = encoded.then(|| r#type::int64::Encoding {
            encoding: Some(r#type::int64::encoding::Encoding::BigEndianBytes(
                r#type::int64::encoding::BigEndianBytes::default(),
            )),
        });
        let input = Type {
            kind: Some(r#type::Kind::Int64Type(r#type::Int64 { encoding })),
        };
        Type {
            kind: Some(r#type::Kind::AggregateType(Box::new(r#type::Aggregate {
                input_type: Some(Box::new(input)),
                aggregator: Some(r#type::aggregate::Aggregator::Sum(
                    r#type::aggregate::Sum::default(),
                )),
                ..r#type::Aggregate::default()
            }))),
        }
    }

    fn family(gc_rule: Option<GcRule>, value_type: Option<Type>) -> ColumnFamily {
        ColumnFamily {
            gc_rule,
            value_type,
        }
    }

    /// The table as the core answers it: no empty rules, default encodings.
    fn core_answer() -> Table {
        Table {
            name: TABLE.into(),
            column_families: [
                ("plain".to_string(), family(None, None)),
                ("none".to_string(), family(None, None)),
                ("sum".to_string(), family(None, Some(int64_sum(false)))),
            ]
            .into(),
            ..Table::default()
        }
    }

    #[test]
    fn families_come_back_as_they_were_spelled() {
        let spellings = Spellings::default();
        spellings.created(&CreateTableRequest {
            parent: "projects/p/instances/i".into(),
            table_id: "t".into(),
            table: Some(Table {
                column_families: [
                    ("plain".to_string(), family(Some(GcRule::default()), None)),
                    ("none".to_string(), family(None, None)),
                    (
                        "sum".to_string(),
                        family(Some(GcRule::default()), Some(int64_sum(true))),
                    ),
                ]
                .into(),
                ..Table::default()
            }),
            ..CreateTableRequest::default()
        });
        let echoed = spellings.echo(core_answer());
        let families = &echoed.column_families;
        assert_eq!(families["plain"].gc_rule, Some(GcRule::default()));
        assert_eq!(families["none"].gc_rule, None);
        assert_eq!(families["sum"].value_type, Some(int64_sum(true)));
        // Another table, or one deleted, answers the core's form.
        spellings.deleted(TABLE);
        assert_eq!(spellings.echo(core_answer()), core_answer());
    }

    #[test]
    fn modifications_update_what_is_echoed() {
        let spellings = Spellings::default();
        let modify = |id: &str, m: Mod| ModifyColumnFamiliesRequest {
            name: TABLE.into(),
            modifications: vec![Modification {
                id: id.into(),
                r#mod: Some(m),
                ..Modification::default()
            }],
            ..ModifyColumnFamiliesRequest::default()
        };
        spellings.modified(&modify(
            "plain",
            Mod::Create(family(Some(GcRule::default()), None)),
        ));
        assert_eq!(
            spellings.echo(core_answer()).column_families["plain"].gc_rule,
            Some(GcRule::default())
        );
        let versions = GcRule {
            rule: Some(gc_rule::Rule::MaxNumVersions(1)),
        };
        spellings.modified(&modify("plain", Mod::Update(family(Some(versions), None))));
        assert_eq!(
            spellings.echo(core_answer()).column_families["plain"].gc_rule,
            None
        );
        spellings.modified(&modify(
            "plain",
            Mod::Create(family(Some(GcRule::default()), None)),
        ));
        spellings.modified(&modify("plain", Mod::Drop(true)));
        assert_eq!(spellings.echo(core_answer()), core_answer());
    }
}
