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
//! what each family was last given and answers it back. It keeps it in
//! the instance, as a note on the table ([`Instance::set_table_note`]),
//! noted in the same turn as the change, so it goes into the state file
//! with it and a server restarted on that file answers the same; the
//! note goes with the table.

use serde_json::{Map, Value};
use tabletop_core::Instance;
use tonic::Status;

use crate::proto::google::bigtable::admin::v2::modify_column_families_request::modification::Mod;
use crate::proto::google::bigtable::admin::v2::{
    ColumnFamily, CreateTableRequest, GcRule, ModifyColumnFamiliesRequest, Table, Type,
};
use crate::transcode::{from_json, to_json};

/// The table note that holds the spellings: an object by family name of
/// `{"emptyGcRule": true, "valueType": <the Type's proto3 JSON>}`, each
/// field there only when it differs from the core's form.
const NOTE: &str = "serve.familySpellings";

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

    fn to_note(&self) -> Result<Value, Status> {
        let mut out = Map::new();
        if self.empty_gc_rule {
            out.insert("emptyGcRule".into(), Value::Bool(true));
        }
        if let Some(t) = &self.value_type {
            out.insert("valueType".into(), to_json(t)?);
        }
        Ok(Value::Object(out))
    }

    /// A note's entry; one that does not read (a note edited by hand)
    /// spells nothing.
    fn from_note(note: &Value) -> Spelled {
        Spelled {
            empty_gc_rule: note.get("emptyGcRule") == Some(&Value::Bool(true)),
            value_type: note.get("valueType").and_then(|t| from_json(t).ok()),
        }
    }

    fn is_plain(&self) -> bool {
        *self == Spelled::default()
    }
}

/// The table id of a table's resource name.
fn table_id(name: &str) -> Option<&str> {
    name.rsplit_once("/tables/").map(|(_, id)| id)
}

/// Families by name, as noted for `table`.
fn noted(db: &Instance, table: &str) -> Map<String, Value> {
    match db.table_note(table, NOTE) {
        Some(Value::Object(families)) => families.clone(),
        _ => Map::new(),
    }
}

fn note(db: &mut Instance, table: &str, families: Map<String, Value>) -> Result<(), Status> {
    let value = (!families.is_empty()).then_some(Value::Object(families));
    db.set_table_note(table, NOTE, value)
        .map_err(|e| crate::instance::status(&e))
}

fn spell(families: &mut Map<String, Value>, id: &str, spelled: &Spelled) -> Result<(), Status> {
    if spelled.is_plain() {
        families.remove(id);
    } else {
        families.insert(id.to_string(), spelled.to_note()?);
    }
    Ok(())
}

/// Notes the families of the table `request` created (in `db`).
pub fn created(db: &mut Instance, request: &CreateTableRequest) -> Result<(), Status> {
    let mut families = Map::new();
    for (id, family) in request.table.iter().flat_map(|t| &t.column_families) {
        spell(&mut families, id, &Spelled::of(family))?;
    }
    note(db, &request.table_id, families)
}

/// Notes what `request`, which succeeded, created, updated or dropped.
pub fn modified(db: &mut Instance, request: &ModifyColumnFamiliesRequest) -> Result<(), Status> {
    let Some(table) = table_id(&request.name) else {
        return Ok(());
    };
    let mut families = noted(db, table);
    for m in &request.modifications {
        match &m.r#mod {
            Some(Mod::Create(family)) => spell(&mut families, &m.id, &Spelled::of(family))?,
            Some(Mod::Update(family)) => {
                // A family's value type cannot change; its rule can.
                let mut spelled = families
                    .get(&m.id)
                    .map(Spelled::from_note)
                    .unwrap_or_default();
                spelled.empty_gc_rule = Spelled::of(family).empty_gc_rule;
                spell(&mut families, &m.id, &spelled)?;
            }
            Some(Mod::Drop(_)) => {
                families.remove(&m.id);
            }
            None => {}
        }
    }
    note(db, table, families)
}

/// `table` (an answer from `db`) with its families as they were spelled.
pub fn echo(db: &Instance, mut table: Table) -> Table {
    let Some(id) = table_id(&table.name) else {
        return table;
    };
    let spelled = noted(db, id);
    for (family_id, family) in &mut table.column_families {
        let Some(s) = spelled.get(family_id).map(Spelled::from_note) else {
            continue;
        };
        if s.empty_gc_rule && family.gc_rule.is_none() {
            family.gc_rule = Some(GcRule::default());
        }
        if family.value_type.is_some() && s.value_type.is_some() {
            family.value_type = s.value_type;
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::google::bigtable::admin::v2::modify_column_families_request::Modification;
    use crate::proto::google::bigtable::admin::v2::{gc_rule, r#type};
    use serde_json::json;
    use tabletop_core::api;

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

    /// An instance holding table `t` with the three families.
    fn instance() -> Instance {
        let mut db = Instance::default();
        create_table(&mut db);
        db
    }

    /// Creates table `t` with the three families, through the core.
    fn create_table(db: &mut Instance) {
        let sum = json!({"aggregateType": {"inputType": {"int64Type": {}}, "sum": {}}});
        api::handle_value(
            db,
            "createTable",
            &json!({"parent": "projects/p/instances/i", "tableId": "t", "table": {
                "columnFamilies": {"plain": {}, "none": {}, "sum": {"valueType": sum}}}}),
        )
        .expect("created");
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

    fn create_request() -> CreateTableRequest {
        CreateTableRequest {
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
        }
    }

    #[test]
    fn families_come_back_as_they_were_spelled_also_after_a_restart() {
        let mut db = instance();
        created(&mut db, &create_request()).expect("noted");
        let check = |db: &Instance| {
            let echoed = echo(db, core_answer());
            let families = &echoed.column_families;
            assert_eq!(families["plain"].gc_rule, Some(GcRule::default()));
            assert_eq!(families["none"].gc_rule, None);
            assert_eq!(families["sum"].value_type, Some(int64_sum(true)));
        };
        check(&db);
        // The note is in the snapshot a state file keeps.
        let restored = Instance::restore(&db.snapshot()).expect("restores");
        check(&restored);
        // The note goes with the table: made again, it answers the core's form.
        api::handle_value(&mut db, "deleteTable", &json!({"name": TABLE})).expect("deleted");
        assert!(
            created(&mut db, &create_request()).is_err(),
            "no table, no note"
        );
        create_table(&mut db);
        assert_eq!(echo(&db, core_answer()), core_answer());
    }

    #[test]
    fn modifications_update_what_is_echoed() {
        let mut db = instance();
        let modify = |id: &str, m: Mod| ModifyColumnFamiliesRequest {
            name: TABLE.into(),
            modifications: vec![Modification {
                id: id.into(),
                r#mod: Some(m),
                ..Modification::default()
            }],
            ..ModifyColumnFamiliesRequest::default()
        };
        let plain_rule = |db: &Instance| {
            echo(db, core_answer()).column_families["plain"]
                .gc_rule
                .clone()
        };
        modified(
            &mut db,
            &modify("plain", Mod::Create(family(Some(GcRule::default()), None))),
        )
        .expect("noted");
        assert_eq!(plain_rule(&db), Some(GcRule::default()));
        let versions = GcRule {
            rule: Some(gc_rule::Rule::MaxNumVersions(1)),
        };
        modified(
            &mut db,
            &modify("plain", Mod::Update(family(Some(versions), None))),
        )
        .expect("noted");
        assert_eq!(plain_rule(&db), None);
        modified(
            &mut db,
            &modify("plain", Mod::Create(family(Some(GcRule::default()), None))),
        )
        .expect("noted");
        modified(&mut db, &modify("plain", Mod::Drop(true))).expect("noted");
        assert_eq!(echo(&db, core_answer()), core_answer());
        assert!(db.table_note("t", NOTE).is_none(), "nothing left to note");
    }
}
