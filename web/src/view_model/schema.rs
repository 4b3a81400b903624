//! The schema panel's data: tables with their families, and the forms that
//! edit them. Every check uses the core's own validation (or a dry run on
//! a scratch instance), so the messages are the core's messages; the edits
//! themselves become Bigtable admin requests in proto3 JSON (the JSON tab
//! of the console shows them).

use std::time::Duration;

use serde_json::{Value, json};
use tabletop_core::{
    Aggregator, ColumnFamily, CreateTableRequest, FamilyChange, GcRule, Instance, TableSchema,
    ValueType, api, validate_family_name, validate_row_key, validate_table_id,
};

use super::keys::{DisplayKey, parse_key_text};

/// One table of the instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSummary {
    /// The table id.
    pub name: String,
    /// Its column families, by name.
    pub families: Vec<FamilySummary>,
    /// How many tablets it is split into now.
    pub tablet_count: usize,
    /// Logical bytes stored.
    pub bytes: u64,
    /// The split keys given at creation.
    pub initial_splits: Vec<DisplayKey>,
}

/// One column family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilySummary {
    /// The family name.
    pub name: String,
    /// The GC rule, if any.
    pub gc_rule: Option<GcRule>,
    /// The rule as `cbt ls TABLE` prints it (`versions() > 1`), or `never`.
    pub gc_text: String,
    /// Plain bytes or an aggregate.
    pub value_type: ValueType,
}

/// The tables of the instance, sorted by id.
pub fn tables(instance: &Instance) -> Vec<TableSummary> {
    instance
        .list_tables()
        .into_iter()
        .map(|info| TableSummary {
            name: info.id,
            tablet_count: info.tablet_count,
            bytes: info.bytes,
            initial_splits: info
                .initial_splits
                .iter()
                .map(|k| DisplayKey::new(k))
                .collect(),
            families: info
                .schema
                .families
                .iter()
                .map(|(name, family)| FamilySummary {
                    name: name.clone(),
                    gc_text: gc_text(family.gc_rule.as_ref()),
                    gc_rule: family.gc_rule.clone(),
                    value_type: family.value_type,
                })
                .collect(),
        })
        .collect()
}

/// A GC rule as `cbt ls` prints it, or `never` (keep every version).
pub fn gc_text(rule: Option<&GcRule>) -> String {
    rule.map_or_else(|| "never".to_string(), ToString::to_string)
}

/// A value type for people: `bytes`, `sum (int64)`, `HLL++ count`.
pub fn value_type_text(value_type: ValueType) -> &'static str {
    match value_type {
        ValueType::Bytes => "bytes",
        ValueType::Aggregate(Aggregator::Sum) => "sum (int64)",
        ValueType::Aggregate(Aggregator::Min) => "min (int64)",
        ValueType::Aggregate(Aggregator::Max) => "max (int64)",
        ValueType::Aggregate(Aggregator::HllppUniqueCount) => "HLL++ count",
    }
}

/// The value types a new family can have, with their labels.
pub const VALUE_TYPES: [(ValueType, &str); 5] = [
    (ValueType::Bytes, "bytes"),
    (ValueType::Aggregate(Aggregator::Sum), "sum"),
    (ValueType::Aggregate(Aggregator::Min), "min"),
    (ValueType::Aggregate(Aggregator::Max), "max"),
    (ValueType::Aggregate(Aggregator::HllppUniqueCount), "hll"),
];

/// Units a person can give a maximum age in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AgeUnit {
    /// Milliseconds.
    Milliseconds,
    /// Seconds.
    Seconds,
    /// Minutes.
    Minutes,
    /// Hours.
    Hours,
    /// Days.
    #[default]
    Days,
}

impl AgeUnit {
    /// Every unit, shortest first.
    pub const ALL: [AgeUnit; 5] = [
        AgeUnit::Milliseconds,
        AgeUnit::Seconds,
        AgeUnit::Minutes,
        AgeUnit::Hours,
        AgeUnit::Days,
    ];

    /// Milliseconds in one unit.
    pub fn millis(self) -> u64 {
        match self {
            AgeUnit::Milliseconds => 1,
            AgeUnit::Seconds => 1_000,
            AgeUnit::Minutes => 60_000,
            AgeUnit::Hours => 3_600_000,
            AgeUnit::Days => 86_400_000,
        }
    }

    /// The unit's name in the form.
    pub fn label(self) -> &'static str {
        match self {
            AgeUnit::Milliseconds => "milliseconds",
            AgeUnit::Seconds => "seconds",
            AgeUnit::Minutes => "minutes",
            AgeUnit::Hours => "hours",
            AgeUnit::Days => "days",
        }
    }
}

/// A GC rule being edited: numbers are still the text a person typed.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum GcDraft {
    /// No rule: keep every version.
    #[default]
    None,
    /// Keep the newest N versions.
    MaxVersions(String),
    /// Delete versions older than this.
    MaxAge {
        /// The amount, as typed.
        amount: String,
        /// Its unit.
        unit: AgeUnit,
    },
    /// Delete what any nested rule deletes.
    Union(Vec<GcDraft>),
    /// Delete what every nested rule deletes.
    Intersection(Vec<GcDraft>),
}

/// The kinds a [`GcDraft`] can take, for the kind selector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcKind {
    /// [`GcDraft::None`].
    None,
    /// [`GcDraft::MaxVersions`].
    MaxVersions,
    /// [`GcDraft::MaxAge`].
    MaxAge,
    /// [`GcDraft::Union`].
    Union,
    /// [`GcDraft::Intersection`].
    Intersection,
}

impl GcKind {
    /// Every kind with its label.
    pub const ALL: [(GcKind, &'static str); 5] = [
        (GcKind::None, "none (keep all versions)"),
        (GcKind::MaxVersions, "max versions"),
        (GcKind::MaxAge, "max age"),
        (GcKind::Union, "union (any rule)"),
        (GcKind::Intersection, "intersection (every rule)"),
    ];

    /// The value used in the selector.
    pub fn value(self) -> &'static str {
        match self {
            GcKind::None => "none",
            GcKind::MaxVersions => "versions",
            GcKind::MaxAge => "age",
            GcKind::Union => "union",
            GcKind::Intersection => "intersection",
        }
    }

    /// The kind for a selector value.
    pub fn from_value(value: &str) -> GcKind {
        GcKind::ALL
            .iter()
            .map(|(k, _)| *k)
            .find(|k| k.value() == value)
            .unwrap_or(GcKind::None)
    }
}

impl GcDraft {
    /// The draft's kind.
    pub fn kind(&self) -> GcKind {
        match self {
            GcDraft::None => GcKind::None,
            GcDraft::MaxVersions(_) => GcKind::MaxVersions,
            GcDraft::MaxAge { .. } => GcKind::MaxAge,
            GcDraft::Union(_) => GcKind::Union,
            GcDraft::Intersection(_) => GcKind::Intersection,
        }
    }

    /// A draft of another kind, keeping nested rules when switching between
    /// union and intersection.
    #[must_use]
    pub fn with_kind(&self, kind: GcKind) -> GcDraft {
        let nested = match self {
            GcDraft::Union(rules) | GcDraft::Intersection(rules) => rules.clone(),
            _ => vec![
                GcDraft::MaxVersions("1".into()),
                GcDraft::MaxAge {
                    amount: "7".into(),
                    unit: AgeUnit::Days,
                },
            ],
        };
        match kind {
            GcKind::None => GcDraft::None,
            GcKind::MaxVersions => GcDraft::MaxVersions("1".into()),
            GcKind::MaxAge => GcDraft::MaxAge {
                amount: "7".into(),
                unit: AgeUnit::Days,
            },
            GcKind::Union => GcDraft::Union(nested),
            GcKind::Intersection => GcDraft::Intersection(nested),
        }
    }

    /// A draft showing an existing rule.
    pub fn from_rule(rule: Option<&GcRule>) -> GcDraft {
        match rule {
            None => GcDraft::None,
            Some(GcRule::MaxNumVersions(n)) => GcDraft::MaxVersions(n.to_string()),
            Some(GcRule::MaxAge(age)) => {
                let millis = u64::try_from(age.as_millis()).unwrap_or(u64::MAX);
                let unit = AgeUnit::ALL
                    .iter()
                    .rev()
                    .copied()
                    .find(|u| millis > 0 && millis.is_multiple_of(u.millis()))
                    .unwrap_or(AgeUnit::Milliseconds);
                GcDraft::MaxAge {
                    amount: (millis / unit.millis()).to_string(),
                    unit,
                }
            }
            Some(GcRule::Union(rules)) => {
                GcDraft::Union(rules.iter().map(|r| GcDraft::from_rule(Some(r))).collect())
            }
            Some(GcRule::Intersection(rules)) => {
                GcDraft::Intersection(rules.iter().map(|r| GcDraft::from_rule(Some(r))).collect())
            }
        }
    }

    /// The rule the draft describes, checked by the core
    /// ([`GcRule::validate`]); errors are the core's message, or says which
    /// number could not be read.
    pub fn to_rule(&self) -> Result<Option<GcRule>, String> {
        let rule = match self.build()? {
            None => return Ok(None),
            Some(rule) => rule,
        };
        rule.validate().map_err(|e| e.message().to_string())?;
        Ok(Some(rule))
    }

    fn build(&self) -> Result<Option<GcRule>, String> {
        Ok(Some(match self {
            GcDraft::None => return Ok(None),
            GcDraft::MaxVersions(text) => {
                let n: i32 = text.trim().parse().map_err(|_| {
                    format!(
                        "max versions must be a whole number, not \"{}\"",
                        text.trim()
                    )
                })?;
                GcRule::MaxNumVersions(n)
            }
            GcDraft::MaxAge { amount, unit } => {
                let n: u64 = amount.trim().parse().map_err(|_| {
                    format!(
                        "max age must be a whole number of {}, not \"{}\"",
                        unit.label(),
                        amount.trim()
                    )
                })?;
                GcRule::MaxAge(Duration::from_millis(n.saturating_mul(unit.millis())))
            }
            GcDraft::Union(rules) => GcRule::Union(Self::build_all(rules)?),
            GcDraft::Intersection(rules) => GcRule::Intersection(Self::build_all(rules)?),
        }))
    }

    fn build_all(rules: &[GcDraft]) -> Result<Vec<GcRule>, String> {
        let mut out = Vec::with_capacity(rules.len());
        for rule in rules {
            // A "none" inside a combination adds nothing; leave it out.
            if let Some(r) = rule.build()? {
                out.push(r);
            }
        }
        Ok(out)
    }
}

/// Checks a new table id as you type: the core's id rules, then whether
/// it exists.
pub fn check_table_id(id: &str, existing: &[TableSummary]) -> Result<(), String> {
    validate_table_id(id).map_err(|e| e.message().to_string())?;
    if existing.iter().any(|t| t.name == id) {
        return Err(format!("table \"{id}\" already exists"));
    }
    Ok(())
}

/// Checks a family name as you type: the core's name rules, then whether
/// the family list already has it.
pub fn check_family_name(name: &str, taken: &[&str]) -> Result<(), String> {
    validate_family_name(name).map_err(|e| e.message().to_string())?;
    if taken.contains(&name) {
        return Err(format!("column family \"{name}\" is already in the list"));
    }
    Ok(())
}

/// Reads initial split keys: one per line or separated by commas, with
/// `\xNN` escapes; each checked as a row key by the core.
pub fn parse_splits(text: &str) -> Result<Vec<Vec<u8>>, String> {
    let mut keys = Vec::new();
    for piece in text.split([',', '\n']) {
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        let key = parse_key_text(piece)?;
        validate_row_key(&key).map_err(|e| format!("split \"{piece}\": {}", e.message()))?;
        keys.push(key);
    }
    Ok(keys)
}

/// A family in a form: its name, rule and type.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FamilyDraft {
    /// The name as typed.
    pub name: String,
    /// The GC rule.
    pub gc: GcDraft,
    /// Plain bytes or an aggregate.
    pub value_type: ValueType,
}

impl FamilyDraft {
    /// The family, or the first problem with it.
    pub fn to_family(&self) -> Result<(String, ColumnFamily), String> {
        validate_family_name(&self.name).map_err(|e| e.message().to_string())?;
        let gc_rule = self
            .gc
            .to_rule()
            .map_err(|e| format!("family \"{}\": {e}", self.name))?;
        Ok((
            self.name.clone(),
            ColumnFamily {
                gc_rule,
                value_type: self.value_type,
            },
        ))
    }
}

/// Builds the CreateTable request of the new-table form, or says what is
/// wrong (the first problem, in the core's words).
pub fn table_request(
    id: &str,
    families: &[FamilyDraft],
    splits: &str,
    existing: &[TableSummary],
) -> Result<CreateTableRequest, String> {
    check_table_id(id, existing)?;
    let mut schema = TableSchema::default();
    for draft in families {
        let (name, family) = draft.to_family()?;
        if schema.families.insert(name.clone(), family).is_some() {
            return Err(format!("column family \"{name}\" is listed twice"));
        }
    }
    let request = CreateTableRequest {
        table_id: id.to_string(),
        schema,
        initial_splits: parse_splits(splits)?,
    };
    dry_run_create(existing, &request)?;
    Ok(request)
}

/// Runs `request` on a scratch instance holding empty tables with the
/// existing ids, so any remaining refusal is the core's own message.
pub fn dry_run_create(
    existing: &[TableSummary],
    request: &CreateTableRequest,
) -> Result<(), String> {
    let mut scratch = Instance::default();
    for table in existing {
        let _ = scratch.create_table(CreateTableRequest {
            table_id: table.name.clone(),
            ..CreateTableRequest::default()
        });
    }
    scratch
        .create_table(request.clone())
        .map(|_| ())
        .map_err(|e| e.message().to_string())
}

/// Runs `changes` on a scratch copy of `table`'s schema (no data), so the
/// messages are the core's.
pub fn dry_run_modify(table: &TableSummary, changes: &[FamilyChange]) -> Result<(), String> {
    let mut scratch = Instance::default();
    let schema = TableSchema {
        families: table
            .families
            .iter()
            .map(|f| {
                (
                    f.name.clone(),
                    ColumnFamily {
                        gc_rule: f.gc_rule.clone(),
                        value_type: f.value_type,
                    },
                )
            })
            .collect(),
    };
    scratch
        .create_table(CreateTableRequest {
            table_id: table.name.clone(),
            schema,
            initial_splits: Vec::new(),
        })
        .map_err(|e| e.message().to_string())?;
    scratch
        .modify_column_families(&table.name, changes)
        .map(|_| ())
        .map_err(|e| e.message().to_string())
}

/// The proto3 JSON of a column family (`gcRule`, `valueType`), as the
/// admin API takes it.
pub fn family_json(family: &ColumnFamily) -> Value {
    let mut out = serde_json::Map::new();
    if let Some(rule) = &family.gc_rule {
        out.insert("gcRule".into(), api::gc_rule_to_json(rule));
    }
    if let ValueType::Aggregate(aggregator) = family.value_type {
        let name = match aggregator {
            Aggregator::Sum => "sum",
            Aggregator::Min => "min",
            Aggregator::Max => "max",
            Aggregator::HllppUniqueCount => "hllppUniqueCount",
        };
        let mut aggregate = serde_json::Map::new();
        aggregate.insert("inputType".into(), json!({"int64Type": {}}));
        aggregate.insert(name.into(), json!({}));
        out.insert("valueType".into(), json!({ "aggregateType": aggregate }));
    }
    Value::Object(out)
}

/// The JSON protocol line of a CreateTable request.
pub fn create_table_line(parent: &str, request: &CreateTableRequest) -> String {
    let families: serde_json::Map<String, Value> = request
        .schema
        .families
        .iter()
        .map(|(name, family)| (name.clone(), family_json(family)))
        .collect();
    let mut body = json!({
        "parent": parent,
        "tableId": request.table_id,
        "table": { "columnFamilies": families },
    });
    if !request.initial_splits.is_empty() {
        body["initialSplits"] = request
            .initial_splits
            .iter()
            .map(|k| json!({ "key": api::encode_base64(k) }))
            .collect();
    }
    api::to_line(&json!({ "method": "createTable", "request": body }))
}

/// The JSON protocol line of a ModifyColumnFamilies request.
pub fn modify_families_line(table_name: &str, changes: &[FamilyChange]) -> String {
    let modifications: Vec<Value> = changes
        .iter()
        .map(|change| match change {
            FamilyChange::Create(id, family) => json!({ "id": id, "create": family_json(family) }),
            FamilyChange::Update(id, family) => json!({ "id": id, "update": family_json(family) }),
            FamilyChange::Drop(id) => json!({ "id": id, "drop": true }),
        })
        .collect();
    api::to_line(&json!({
        "method": "modifyColumnFamilies",
        "request": { "name": table_name, "modifications": modifications },
    }))
}

/// The JSON protocol line of a DeleteTable request.
pub fn delete_table_line(table_name: &str) -> String {
    api::to_line(&json!({ "method": "deleteTable", "request": { "name": table_name } }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(name: &str) -> TableSummary {
        TableSummary {
            name: name.into(),
            families: vec![FamilySummary {
                name: "cf".into(),
                gc_rule: None,
                gc_text: "never".into(),
                value_type: ValueType::Bytes,
            }],
            tablet_count: 1,
            bytes: 0,
            initial_splits: Vec::new(),
        }
    }

    #[test]
    fn table_ids_are_checked_with_the_cores_messages() {
        let existing = [summary("t")];
        assert_eq!(
            check_table_id("", &existing).unwrap_err(),
            "table id must not be empty"
        );
        assert_eq!(
            check_table_id("-x", &existing).unwrap_err(),
            "table id \"-x\" must match [_a-zA-Z0-9][-_.a-zA-Z0-9]*"
        );
        assert_eq!(
            check_table_id("t", &existing).unwrap_err(),
            "table \"t\" already exists"
        );
        assert!(check_table_id("mobile-time-series", &existing).is_ok());
    }

    #[test]
    fn gc_drafts_are_checked_by_the_core() {
        assert_eq!(GcDraft::None.to_rule(), Ok(None));
        assert_eq!(
            GcDraft::MaxVersions("2".into()).to_rule(),
            Ok(Some(GcRule::MaxNumVersions(2)))
        );
        assert_eq!(
            GcDraft::MaxVersions("0".into()).to_rule().unwrap_err(),
            "GC rule max_num_versions must be at least 1, got 0"
        );
        assert_eq!(
            GcDraft::MaxVersions("two".into()).to_rule().unwrap_err(),
            "max versions must be a whole number, not \"two\""
        );
        assert_eq!(
            GcDraft::MaxAge {
                amount: "0".into(),
                unit: AgeUnit::Hours
            }
            .to_rule()
            .unwrap_err(),
            "GC rule max_age must be at least one millisecond"
        );
        assert_eq!(
            GcDraft::Union(vec![]).to_rule().unwrap_err(),
            "GC rule union or intersection must contain at least one rule"
        );
        let nested = GcDraft::Intersection(vec![
            GcDraft::MaxVersions("3".into()),
            GcDraft::MaxAge {
                amount: "10".into(),
                unit: AgeUnit::Days,
            },
        ]);
        let rule = nested.to_rule().unwrap().unwrap();
        assert_eq!(rule.to_string(), "(versions() > 3) && (age() > 240h)");
        assert_eq!(GcDraft::from_rule(Some(&rule)), nested);
    }

    #[test]
    fn drafts_switch_kinds_and_read_back_rules() {
        let union = GcDraft::None.with_kind(GcKind::Union);
        assert_eq!(union.kind(), GcKind::Union);
        let inter = union.with_kind(GcKind::Intersection);
        let (GcDraft::Union(a), GcDraft::Intersection(b)) = (&union, &inter) else {
            panic!("{union:?} {inter:?}");
        };
        assert_eq!(a, b, "nested rules survive switching");
        assert_eq!(GcKind::from_value("age"), GcKind::MaxAge);
        assert_eq!(GcKind::from_value("??"), GcKind::None);
        let age = GcRule::MaxAge(Duration::from_secs(90 * 60));
        assert_eq!(
            GcDraft::from_rule(Some(&age)),
            GcDraft::MaxAge {
                amount: "90".into(),
                unit: AgeUnit::Minutes
            }
        );
    }

    #[test]
    fn table_requests_run_dry_on_a_scratch_instance() {
        let families = [FamilyDraft {
            name: "stats".into(),
            gc: GcDraft::MaxVersions("1".into()),
            value_type: ValueType::Bytes,
        }];
        let request = table_request("t2", &families, "b, a\nc", &[summary("t")]).unwrap();
        assert_eq!(
            request.initial_splits,
            [b"b".to_vec(), b"a".to_vec(), b"c".to_vec()]
        );
        assert_eq!(
            table_request("t2", &families, "a,\\x", &[]).unwrap_err(),
            "\\x at position 1 needs two hex digits, as in \\x00"
        );
        let twice = [families[0].clone(), families[0].clone()];
        assert_eq!(
            table_request("t2", &twice, "", &[]).unwrap_err(),
            "column family \"stats\" is listed twice"
        );
        let bad = [FamilyDraft {
            name: "bad name".into(),
            ..FamilyDraft::default()
        }];
        assert_eq!(
            table_request("t2", &bad, "", &[]).unwrap_err(),
            "column family name \"bad name\" must match [-_.a-zA-Z0-9]+"
        );
        let long_split = "k".repeat(5000);
        assert!(
            table_request("t2", &[], &long_split, &[])
                .unwrap_err()
                .starts_with("split \"kkk")
        );
    }

    #[test]
    fn family_changes_run_dry() {
        let table = summary("t");
        assert!(
            dry_run_modify(
                &table,
                &[FamilyChange::Create("new".into(), ColumnFamily::default())]
            )
            .is_ok()
        );
        let err = dry_run_modify(
            &table,
            &[FamilyChange::Create("cf".into(), ColumnFamily::default())],
        )
        .unwrap_err();
        assert!(err.contains("cf"), "{err}");
        let err = dry_run_modify(&table, &[FamilyChange::Drop("nope".into())]).unwrap_err();
        assert!(err.contains("nope"), "{err}");
    }

    #[test]
    fn requests_become_json_lines_the_core_accepts() {
        let mut schema = TableSchema::default();
        schema.families.insert(
            "n".into(),
            ColumnFamily {
                gc_rule: None,
                value_type: ValueType::Aggregate(Aggregator::HllppUniqueCount),
            },
        );
        schema.families.insert(
            "s".into(),
            ColumnFamily::with_gc(Some(GcRule::Union(vec![
                GcRule::MaxNumVersions(2),
                GcRule::MaxAge(Duration::from_secs(3600)),
            ]))),
        );
        let request = CreateTableRequest {
            table_id: "t".into(),
            schema: schema.clone(),
            initial_splits: vec![b"m\xff".to_vec()],
        };
        let mut db = Instance::default();
        let line = create_table_line("projects/p/instances/i", &request);
        let answer = api::handle(&mut db, &line);
        assert!(answer.starts_with(r#"{"response""#), "{answer}");
        let info = db.get_table("t").unwrap();
        assert_eq!(info.schema, schema);
        assert_eq!(info.initial_splits, [b"m\xff".to_vec()]);

        let changes = [
            FamilyChange::Update("s".into(), ColumnFamily::default()),
            FamilyChange::Drop("n".into()),
            FamilyChange::Create(
                "c".into(),
                ColumnFamily {
                    gc_rule: Some(GcRule::MaxNumVersions(1)),
                    value_type: ValueType::Aggregate(Aggregator::Sum),
                },
            ),
        ];
        let line = modify_families_line("projects/p/instances/i/tables/t", &changes);
        let answer = api::handle(&mut db, &line);
        assert!(answer.starts_with(r#"{"response""#), "{answer}");
        let names: Vec<String> = db
            .get_table("t")
            .unwrap()
            .schema
            .families
            .into_keys()
            .collect();
        assert_eq!(names, ["c", "s"]);
        let answer = api::handle(
            &mut db,
            &delete_table_line("projects/p/instances/i/tables/t"),
        );
        assert_eq!(answer, r#"{"response":{}}"#);
        assert!(db.list_tables().is_empty());
    }
}
