//! The table admin methods of `google.bigtable.admin.v2.BigtableTableAdmin`
//! (createTable, getTable, listTables, deleteTable, modifyColumnFamilies,
//! dropRowRange) and the admin messages they carry: `Table`,
//! `ColumnFamily`, `GcRule` and the aggregate `Type`s of `types.proto`.

use serde_json::{Map, Value};

use super::names::{TableName, instance_name, table_name};
use super::paging::Paging;
use super::proto_json::{At, Fields, MAX_DEPTH, Out, format_duration};
use tabletop_sql::Instance;
use tabletop_store::{Aggregator, ColumnFamily, FamilyChange, GcRule, TableSchema, ValueType};
use tabletop_store::{ChangeStreamConfig, CreateTableRequest, DropTarget, TableInfo};
use tabletop_store::{Fidelity, Result, Traces};

/// `google.bigtable.admin.v2.Table.View`.
const VIEWS: &[(&str, i32)] = &[
    ("VIEW_UNSPECIFIED", 0),
    ("NAME_ONLY", 1),
    ("SCHEMA_VIEW", 2),
    ("REPLICATION_VIEW", 3),
    ("FULL", 4),
    ("ENCRYPTION_VIEW", 5),
];

/// `google.bigtable.admin.v2.Table.TimestampGranularity`.
const GRANULARITIES: &[(&str, i32)] = &[("TIMESTAMP_GRANULARITY_UNSPECIFIED", 0), ("MILLIS", 1)];

/// How much of a table to describe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum View {
    /// Only `name`.
    NameOnly,
    /// `name`, `columnFamilies` and `granularity`.
    Schema,
}

fn read_view(at: Option<At<'_>>, default: View) -> Result<View> {
    let Some(at) = at else { return Ok(default) };
    Ok(match at.enumeration("Table.View", VIEWS)? {
        "VIEW_UNSPECIFIED" => default,
        "NAME_ONLY" | "REPLICATION_VIEW" | "ENCRYPTION_VIEW" => View::NameOnly,
        _ => View::Schema,
    })
}

// ---------------------------------------------------------------- GC rules

/// Reads a `GcRule`. An empty rule (`{}`) at the top of a family means "no
/// rule"; nested inside a union or intersection it is an error. Checked as
/// `fidelity` takes rules (the emulator also takes rules that keep nothing).
pub(crate) fn gc_rule_from_json(
    at: &At<'_>,
    depth: usize,
    fidelity: Fidelity,
) -> Result<Option<GcRule>> {
    if depth > MAX_DEPTH {
        return Err(at.invalid(format!("GC rules nest more than {MAX_DEPTH} levels deep")));
    }
    let mut f = at.object("GcRule")?;
    let rule = match f.oneof(
        "rule",
        &["maxNumVersions", "maxAge", "intersection", "union"],
    )? {
        None => None,
        Some(("maxNumVersions", v)) => Some(GcRule::MaxNumVersions(v.int32()?)),
        Some(("maxAge", v)) => {
            let (negative, d) = v.duration()?;
            if negative {
                return Err(v.invalid("max_age must not be negative"));
            }
            Some(GcRule::MaxAge(d))
        }
        Some((name, v)) => {
            let mut g = v.object(if name == "union" {
                "GcRule.Union"
            } else {
                "GcRule.Intersection"
            })?;
            let mut rules = Vec::new();
            if let Some(list) = g.get("rules")? {
                for item in list.array()? {
                    match gc_rule_from_json(&item, depth + 1, fidelity)? {
                        Some(r) => rules.push(r),
                        None => {
                            return Err(item.invalid(
                                "a nested GC rule must set maxNumVersions, maxAge, intersection or union",
                            ));
                        }
                    }
                }
            }
            g.finish()?;
            Some(if name == "union" {
                GcRule::Union(rules)
            } else {
                GcRule::Intersection(rules)
            })
        }
    };
    f.finish()?;
    if let Some(r) = &rule {
        r.validate_for(fidelity).map_err(|e| at.context(e))?;
    }
    Ok(rule)
}

/// Writes a `GcRule`.
pub(crate) fn gc_rule_to_json(rule: &GcRule) -> Value {
    let nested = |rules: &[GcRule]| {
        Out::new()
            .list("rules", rules.iter().map(gc_rule_to_json).collect())
            .build()
    };
    match rule {
        GcRule::MaxNumVersions(n) => Out::new().set("maxNumVersions", Value::from(*n)),
        GcRule::MaxAge(d) => Out::new().set("maxAge", Value::String(format_duration(*d))),
        GcRule::Union(rules) => Out::new().set("union", nested(rules)),
        GcRule::Intersection(rules) => Out::new().set("intersection", nested(rules)),
    }
    .build()
}

// ------------------------------------------------------------------ types

/// Reads an `Int64` type: only the big-endian encoding (or none).
fn int64_type(at: &At<'_>) -> Result<()> {
    let mut f = at.object("Type.Int64")?;
    if let Some(enc) = f.get("encoding")? {
        let mut e = enc.object("Type.Int64.Encoding")?;
        match e.oneof("encoding", &["bigEndianBytes", "orderedCodeBytes"])? {
            Some(("bigEndianBytes", be)) => {
                let mut b = be.object("Type.Int64.Encoding.BigEndianBytes")?;
                if let Some(bytes) = b.get("bytesType")? {
                    bytes_type(&bytes)?;
                }
                b.finish()?;
            }
            Some((_, other)) => {
                return Err(other.unimplemented(
                    "only the big-endian int64 encoding is supported (aggregates store 8-byte big-endian integers)",
                ));
            }
            None => {}
        }
        e.finish()?;
    }
    f.finish()
}

/// Reads a `Bytes` type: only the raw encoding (or none).
fn bytes_type(at: &At<'_>) -> Result<()> {
    let mut f = at.object("Type.Bytes")?;
    if let Some(enc) = f.get("encoding")? {
        let mut e = enc.object("Type.Bytes.Encoding")?;
        if let Some((_, raw)) = e.oneof("encoding", &["raw"])? {
            raw.object("Type.Bytes.Encoding.Raw")?.finish()?;
        }
        e.finish()?;
    }
    f.finish()
}

/// The kinds of `google.bigtable.admin.v2.Type`.
const TYPE_KINDS: &[&str] = &[
    "bytesType",
    "stringType",
    "int64Type",
    "float32Type",
    "float64Type",
    "boolType",
    "timestampType",
    "dateType",
    "aggregateType",
    "structType",
    "arrayType",
    "mapType",
    "protoType",
    "enumType",
];

/// Reads the `valueType` of a column family.
pub(crate) fn value_type_from_json(at: &At<'_>) -> Result<ValueType> {
    let mut f = at.object("Type")?;
    let vt = match f.oneof("kind", TYPE_KINDS)? {
        None => ValueType::Bytes,
        Some(("bytesType", b)) => {
            bytes_type(&b)?;
            ValueType::Bytes
        }
        Some(("aggregateType", a)) => ValueType::Aggregate(aggregate_type(&a)?),
        Some((kind, other)) => {
            return Err(other.unimplemented(format!(
                "column families of type {kind} are not supported; use aggregateType (or leave valueType out for plain bytes)"
            )));
        }
    };
    f.finish()?;
    Ok(vt)
}

fn aggregate_type(at: &At<'_>) -> Result<Aggregator> {
    let mut f = at.object("Type.Aggregate")?;
    let input = f.require("inputType")?;
    // Output only: what the server keeps as state; accepted and ignored
    // so a table read back with getTable can be sent to createTable.
    let _ = f.get("stateType")?;
    let agg = match f.oneof("aggregator", &["sum", "hllppUniqueCount", "max", "min"])? {
        Some((name, v)) => {
            v.object("Type.Aggregate aggregator")?.finish()?;
            match name {
                "sum" => Aggregator::Sum,
                "max" => Aggregator::Max,
                "min" => Aggregator::Min,
                _ => Aggregator::HllppUniqueCount,
            }
        }
        None => {
            return Err(
                f.invalid("an aggregate type must set one of sum, min, max, hllppUniqueCount")
            );
        }
    };
    let mut t = input.object("Type")?;
    match t.oneof("kind", TYPE_KINDS)? {
        Some(("int64Type", i)) => int64_type(&i)?,
        Some((kind, other)) if agg == Aggregator::HllppUniqueCount => {
            return Err(other.unimplemented(format!(
                "HyperLogLog++ over {kind} inputs is not supported; use int64Type"
            )));
        }
        Some((kind, other)) => {
            return Err(other.invalid(format!(
                "sum, min and max aggregate int64Type inputs, not {kind}"
            )));
        }
        None => return Err(input.invalid("the input type must be set, e.g. {\"int64Type\": {}}")),
    }
    t.finish()?;
    f.finish()?;
    Ok(agg)
}

/// Writes the `valueType` of a column family, `None` for plain bytes.
pub(crate) fn value_type_to_json(vt: ValueType) -> Option<Value> {
    let ValueType::Aggregate(agg) = vt else {
        return None;
    };
    let name = match agg {
        Aggregator::Sum => "sum",
        Aggregator::Min => "min",
        Aggregator::Max => "max",
        Aggregator::HllppUniqueCount => "hllppUniqueCount",
    };
    let input = Out::new()
        .set("int64Type", Value::Object(Map::new()))
        .build();
    let aggregate = Out::new()
        .set("inputType", input)
        .set(name, Value::Object(Map::new()))
        .build();
    Some(Out::new().set("aggregateType", aggregate).build())
}

// --------------------------------------------------------- families, tables

/// Reads a `ColumnFamily`; `value_type` is `None` when the field is absent
/// (for updates, which keep the family's type).
fn column_family(at: &At<'_>, fidelity: Fidelity) -> Result<(ColumnFamily, Option<ValueType>)> {
    let mut f = at.object("ColumnFamily")?;
    let gc_rule = match f.get("gcRule")? {
        Some(g) => gc_rule_from_json(&g, 0, fidelity)?,
        None => None,
    };
    let value_type = match f.get("valueType")? {
        Some(v) => Some(value_type_from_json(&v)?),
        None => None,
    };
    f.unsupported(
        "stats",
        "column family statistics are output only and not kept here",
    )?;
    f.finish()?;
    let cf = ColumnFamily {
        gc_rule,
        value_type: value_type.unwrap_or_default(),
    };
    Ok((cf, value_type))
}

/// Writes a `ColumnFamily`.
pub(crate) fn column_family_to_json(cf: &ColumnFamily) -> Value {
    let mut out = Out::new();
    if let Some(rule) = &cf.gc_rule {
        out = out.set("gcRule", gc_rule_to_json(rule));
    }
    if let Some(vt) = value_type_to_json(cf.value_type) {
        out = out.set("valueType", vt);
    }
    out.build()
}

/// Reads the `Table` of a createTable request: its families, and its
/// change stream config when it has one. With the emulator's fidelity the
/// config is taken with any retention and forgotten, as the emulator does.
fn table_for_create(at: &At<'_>, fidelity: Fidelity) -> Result<TableForCreate> {
    let emulator = fidelity.is_emulator();
    let mut f = at.object("Table")?;
    // Output only; AIP-203 says servers ignore it in requests.
    let _ = f.get("name")?;
    let mut schema = TableSchema::default();
    if let Some(fams) = f.get("columnFamilies")? {
        let Value::Object(map) = fams.value() else {
            return Err(fams.invalid("expected an object mapping family names to ColumnFamily"));
        };
        for (name, v) in map {
            let item = At::new(
                format!("{}[{}]", fams.path(), Value::String(name.clone())),
                v,
            );
            if v.is_null() {
                return Err(item.invalid("a column family may not be null; use {}"));
            }
            tabletop_store::validate_family_name(name).map_err(|e| item.context(e))?;
            let (cf, _) = column_family(&item, fidelity)?;
            schema.families.insert(name.clone(), cf);
        }
    }
    if let Some(g) = f.get("granularity")? {
        g.enumeration("Table.TimestampGranularity", GRANULARITIES)?;
    }
    let deletion_protection = match f.get("deletionProtection")? {
        Some(d) => d.bool()?,
        None => false,
    };
    for (name, why) in [
        ("clusterStates", "cluster states are output only"),
        (
            "restoreInfo",
            "backups and restores are not part of the playground",
        ),
        (
            "automatedBackupPolicy",
            "backups are not part of the playground",
        ),
        (
            "rowKeySchema",
            "structured row key schemas are not supported",
        ),
        ("stats", "table statistics are output only"),
        (
            "tieredStorageConfig",
            "tiered storage is not part of the playground",
        ),
    ] {
        f.unsupported(name, why)?;
    }
    let change_stream = match f.get("changeStreamConfig")? {
        Some(c) if emulator => {
            let mut cf = c.object("ChangeStreamConfig")?;
            cf.require("retentionPeriod")?.duration()?;
            cf.finish()?;
            None
        }
        Some(c) => Some(super::change_stream::config_from_json(&c)?),
        None => None,
    };
    f.finish()?;
    Ok(TableForCreate {
        schema,
        change_stream,
        deletion_protection,
    })
}

/// What a createTable request's `table` asks for.
#[derive(Default)]
struct TableForCreate {
    schema: TableSchema,
    change_stream: Option<ChangeStreamConfig>,
    deletion_protection: bool,
}

/// Writes a `Table`.
pub(crate) fn table_to_json(name: &str, info: &TableInfo, view: View) -> Value {
    let out = Out::new().string("name", name);
    if view == View::NameOnly {
        return out.build();
    }
    let families: Map<String, Value> = info
        .schema
        .families
        .iter()
        .map(|(n, cf)| (n.clone(), column_family_to_json(cf)))
        .collect();
    let out = if families.is_empty() {
        out
    } else {
        out.set("columnFamilies", Value::Object(families))
    };
    let out = match &info.change_stream {
        Some(c) => out.set(
            "changeStreamConfig",
            super::change_stream::config_to_json(c),
        ),
        None => out,
    };
    let out = if info.deletion_protection {
        out.bool("deletionProtection", true)
    } else {
        out
    };
    out.set("granularity", Value::String("MILLIS".into()))
        .build()
}

/// Reads the table `name` field that admin requests use.
fn required_table_name(f: &mut Fields<'_>) -> Result<TableName> {
    table_name(&f.require("name")?)
}

// ---------------------------------------------------------------- methods

/// createTable.
pub(crate) fn create_table(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    let mut f = req.object("CreateTableRequest")?;
    let parent = instance_name(&f.require("parent")?)?;
    let id_at = f.require("tableId")?;
    let table_id = id_at.string()?.to_string();
    // The id is checked here to name the field; the instance checks it
    // too (and, with the emulator's fidelity, takes any id).
    if !db.fidelity().is_emulator() {
        tabletop_store::validate_table_id(&table_id).map_err(|e| id_at.context(e))?;
    }
    let asked = match f.get("table")? {
        Some(t) => table_for_create(&t, db.fidelity())?,
        None => TableForCreate::default(),
    };
    let mut initial_splits = Vec::new();
    if let Some(list) = f.get("initialSplits")? {
        for item in list.array()? {
            let mut s = item.object("CreateTableRequest.Split")?;
            let key = match s.get("key")? {
                Some(k) => k.bytes()?,
                None => Vec::new(),
            };
            s.finish()?;
            if key.is_empty() && !db.fidelity().is_emulator() {
                return Err(item.invalid("a split key must not be empty"));
            }
            initial_splits.push(key);
        }
    }
    f.finish()?;
    let mut info = db.create_table(CreateTableRequest {
        table_id: table_id.clone(),
        schema: asked.schema,
        initial_splits,
    })?;
    // Checked while reading the request, and the table exists: these
    // cannot fail.
    if asked.change_stream.is_some() {
        info = db.set_change_stream(&table_id, asked.change_stream)?;
    }
    if asked.deletion_protection {
        info = db.set_deletion_protection(&table_id, true)?;
    }
    let name = format!("{}/tables/{table_id}", parent.name);
    Ok(table_to_json(&name, &info, View::Schema))
}

/// getTable.
pub(crate) fn get_table(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    let mut f = req.object("GetTableRequest")?;
    let name = required_table_name(&mut f)?;
    let view = read_view(f.get("view")?, View::Schema)?;
    f.finish()?;
    let info = db.get_table(&name.table_id)?;
    let table = table_to_json(&name.full(), &info, view);
    if db.fidelity().is_emulator()
        && let Value::Object(mut fields) = table
    {
        // The emulator's GetTable leaves granularity out.
        fields.remove("granularity");
        return Ok(Value::Object(fields));
    }
    Ok(table)
}

/// listTables, with optional paging (`pageSize`, `pageToken`, where the
/// token is the id of the last table of the previous page).
pub(crate) fn list_tables(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    let mut f = req.object("ListTablesRequest")?;
    let parent = instance_name(&f.require("parent")?)?;
    let view = read_view(f.get("view")?, View::NameOnly)?;
    let paging = Paging::read(&mut f)?;
    f.finish()?;
    let tables = db.list_tables();
    let (page, next) = paging.page(tables.iter(), |t| t.id.as_str());
    let list = page
        .into_iter()
        .map(|t| table_to_json(&format!("{}/tables/{}", parent.name, t.id), t, view))
        .collect();
    Ok(Out::new()
        .list("tables", list)
        .string("nextPageToken", &next)
        .build())
}

/// deleteTable.
pub(crate) fn delete_table(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    let mut f = req.object("DeleteTableRequest")?;
    let name = required_table_name(&mut f)?;
    f.finish()?;
    db.delete_table(&name.table_id)?;
    Ok(Out::new().build())
}

/// What one modification's `updateMask` allows.
fn update_mask_keeps_only_gc_rule(at: &At<'_>) -> Result<()> {
    let s = at.string()?;
    for path in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if path != "gcRule" && path != "gc_rule" {
            return Err(at.invalid(format!(
                "\"{path}\" cannot be updated; only \"gcRule\" can (a family's value type is fixed)"
            )));
        }
    }
    Ok(())
}

/// modifyColumnFamilies.
pub(crate) fn modify_column_families(
    db: &mut Instance,
    req: &At<'_>,
    _traces: &mut Traces,
) -> Result<Value> {
    let mut f = req.object("ModifyColumnFamiliesRequest")?;
    let name = required_table_name(&mut f)?;
    let mods = f.require("modifications")?;
    // Tabletop gives no warnings to ignore.
    if let Some(w) = f.get("ignoreWarnings")? {
        w.bool()?;
    }
    f.finish()?;
    // (change, whether an update keeps the family's current value type)
    let mut changes: Vec<(FamilyChange, bool)> = Vec::new();
    for item in mods.array()? {
        let mut m = item.object("ModifyColumnFamiliesRequest.Modification")?;
        let id = m.require("id")?.string()?.to_string();
        let change = match m.oneof("mod", &["create", "update", "drop"])? {
            Some(("create", c)) => (
                FamilyChange::Create(id, column_family(&c, db.fidelity())?.0),
                false,
            ),
            Some(("update", u)) => {
                let (cf, given_type) = column_family(&u, db.fidelity())?;
                let masked = match m.get("updateMask")? {
                    Some(mask) => {
                        update_mask_keeps_only_gc_rule(&mask)?;
                        true
                    }
                    None => false,
                };
                // An update names the new GC rule; the value type stays what
                // it is unless the request spells it out.
                (FamilyChange::Update(id, cf), masked || given_type.is_none())
            }
            Some((_, d)) => {
                d.true_flag()?;
                (FamilyChange::Drop(id), false)
            }
            None => return Err(m.invalid("a modification must set one of create, update, drop")),
        };
        if !matches!(change.0, FamilyChange::Update(..)) {
            m.unsupported("updateMask", "an update mask applies only to update")?;
        }
        m.finish()?;
        changes.push(change);
    }
    if changes.is_empty() {
        return Err(mods.invalid("at least one modification is required"));
    }
    let current = db.get_table(&name.table_id)?;
    let changes: Vec<FamilyChange> = changes
        .into_iter()
        .map(|(mut change, keep_type)| {
            if let (FamilyChange::Update(id, cf), true) = (&mut change, keep_type)
                && let Some(existing) = current.schema.families.get(id.as_str())
            {
                cf.value_type = existing.value_type;
            }
            change
        })
        .collect();
    let mut info = db.modify_column_families(&name.table_id, &changes)?;
    // The emulator's answer here leaves deletion protection out (its
    // CreateTable and GetTable show it).
    info.deletion_protection &= !db.fidelity().is_emulator();
    Ok(table_to_json(&name.full(), &info, View::Schema))
}

/// dropRowRange.
pub(crate) fn drop_row_range(
    db: &mut Instance,
    req: &At<'_>,
    traces: &mut Traces,
) -> Result<Value> {
    let mut f = req.object("DropRowRangeRequest")?;
    let name = required_table_name(&mut f)?;
    let target = match f.oneof("target", &["rowKeyPrefix", "deleteAllDataFromTable"])? {
        Some(("rowKeyPrefix", p)) => {
            let prefix = p.bytes()?;
            // The emulator drops every row for an empty prefix (its
            // instance decides, see `Fidelity`); production refuses it.
            if prefix.is_empty() && !db.fidelity().is_emulator() {
                return Err(p.invalid(
                    "the prefix must not be empty; use deleteAllDataFromTable to drop every row",
                ));
            }
            DropTarget::Prefix(prefix)
        }
        Some((_, all)) => {
            all.true_flag()?;
            DropTarget::AllData
        }
        None => {
            return Err(f.invalid("set rowKeyPrefix or deleteAllDataFromTable"));
        }
    };
    f.finish()?;
    traces.record(|t| db.drop_row_range_traced(&name.table_id, &target, t))?;
    Ok(Out::new().build())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use tabletop_store::Code;

    fn families(v: &Value) -> BTreeMap<String, Value> {
        v.get("columnFamilies")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }

    fn rule(v: Value) -> Result<Option<GcRule>> {
        gc_rule_from_json(&At::new("request.gcRule", &v), 0, Fidelity::Production)
    }

    #[test]
    fn gc_rules_round_trip() {
        let v = json!({"union": {"rules": [
            {"maxNumVersions": 2},
            {"intersection": {"rules": [{"maxAge": "3600s"}, {"maxNumVersions": 1}]}}
        ]}});
        let r = rule(v.clone()).unwrap().unwrap();
        assert_eq!(
            r,
            GcRule::Union(vec![
                GcRule::MaxNumVersions(2),
                GcRule::Intersection(vec![
                    GcRule::MaxAge(Duration::from_secs(3600)),
                    GcRule::MaxNumVersions(1)
                ]),
            ])
        );
        assert_eq!(gc_rule_to_json(&r), v);
        assert_eq!(rule(json!({})).unwrap(), None);
        assert_eq!(
            rule(json!({"max_num_versions": "3"})).unwrap(),
            Some(GcRule::MaxNumVersions(3))
        );
    }

    #[test]
    fn bad_gc_rules_name_their_field() {
        let e = rule(json!({"maxAge": "1h"})).unwrap_err();
        assert!(e.message().starts_with("request.gcRule.maxAge: "), "{e}");
        let e = rule(json!({"maxNumVersions": 0})).unwrap_err();
        assert!(e.message().starts_with("request.gcRule: "), "{e}");
        let e = rule(json!({"union": {"rules": [{}]}})).unwrap_err();
        assert!(
            e.message().starts_with("request.gcRule.union.rules[0]: "),
            "{e}"
        );
        let e = rule(json!({"maxNumVersions": 1, "maxAge": "1s"})).unwrap_err();
        assert!(e.message().contains("set only one"), "{e}");
        let e = rule(json!({"maxAge": "-1s"})).unwrap_err();
        assert!(e.message().contains("negative"), "{e}");
        let mut deep = json!({"maxNumVersions": 1});
        for _ in 0..100 {
            deep = json!({"union": {"rules": [deep]}});
        }
        assert!(rule(deep).unwrap_err().message().contains("nest"));
    }

    #[test]
    fn aggregate_types_round_trip() {
        for (name, agg) in [
            ("sum", Aggregator::Sum),
            ("min", Aggregator::Min),
            ("max", Aggregator::Max),
            ("hllppUniqueCount", Aggregator::HllppUniqueCount),
        ] {
            let v = json!({"aggregateType": {"inputType": {"int64Type": {}}, name: {}}});
            let vt = value_type_from_json(&At::new("t", &v)).unwrap();
            assert_eq!(vt, ValueType::Aggregate(agg));
            assert_eq!(value_type_to_json(vt), Some(v));
        }
        let v = json!({"aggregateType": {
            "inputType": {"int64Type": {"encoding": {"bigEndianBytes": {"bytesType": {"encoding": {"raw": {}}}}}}},
            "stateType": {"int64Type": {}},
            "sum": {}
        }});
        assert_eq!(
            value_type_from_json(&At::new("t", &v)).unwrap(),
            ValueType::Aggregate(Aggregator::Sum)
        );
        assert_eq!(value_type_to_json(ValueType::Bytes), None);
    }

    #[test]
    fn unsupported_types_are_refused() {
        let t = |v: Value| value_type_from_json(&At::new("t", &v)).unwrap_err();
        assert_eq!(t(json!({"stringType": {}})).code(), Code::Unimplemented);
        assert_eq!(
            t(json!({"aggregateType": {"inputType": {"stringType": {}}, "sum": {}}})).code(),
            Code::InvalidArgument
        );
        assert_eq!(
            t(json!({"aggregateType": {"inputType": {"int64Type": {}}}})).code(),
            Code::InvalidArgument
        );
        assert_eq!(
            t(json!({"aggregateType": {"sum": {}}})).code(),
            Code::InvalidArgument
        );
        let e = t(
            json!({"aggregateType": {"inputType": {"int64Type": {"encoding": {"orderedCodeBytes": {}}}}, "sum": {}}}),
        );
        assert_eq!(e.code(), Code::Unimplemented);
    }

    #[test]
    fn tables_describe_families_by_view() {
        let mut db = Instance::default();
        let req = json!({
            "parent": "projects/p/instances/i",
            "tableId": "t",
            "table": {"columnFamilies": {"cf": {"gcRule": {"maxNumVersions": 1}}, "plain": {}}}
        });
        let v = create_table(&mut db, &At::new("request", &req), &mut Traces::off()).unwrap();
        assert_eq!(v["name"], "projects/p/instances/i/tables/t");
        assert_eq!(v["granularity"], "MILLIS");
        let fams = families(&v);
        assert_eq!(fams["cf"], json!({"gcRule": {"maxNumVersions": 1}}));
        assert_eq!(fams["plain"], json!({}));
        let get = json!({"name": "projects/p/instances/i/tables/t", "view": "NAME_ONLY"});
        assert_eq!(
            get_table(&mut db, &At::new("request", &get), &mut Traces::off()).unwrap(),
            json!({"name": "projects/p/instances/i/tables/t"})
        );
    }
}
