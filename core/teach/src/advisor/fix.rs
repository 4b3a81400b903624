//! Fixes: structured edits of a design that the web app applies with one
//! click, with a preview of the keys they produce and of the rules they
//! resolve or set off.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::design::{Design, FamilyDesign, TableDesign};
use super::rule::RuleId;
use super::{Finding, lint_bare};
use tabletop_design::keydesign::{KeyTemplate, Segment, SegmentKind};
use tabletop_design::scenario::ColumnSpec;
use tabletop_design::sim::{Scenario, Seconds};
use tabletop_sql::Instance;
use tabletop_store::CollectRows;
use tabletop_store::{AggregateInput, Mutation};
use tabletop_store::{ColumnFamily, FamilyChange, TableSchema};
use tabletop_store::{CreateTableRequest, ReadRowsRequest};
use tabletop_store::{Error, Result};

/// One change to a design. Segment edits apply to the main table's key;
/// `table` fields name the table a family edit applies to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Edit {
    /// Move a key segment so that it ends up at position `to`.
    MoveSegment {
        /// The segment.
        segment: String,
        /// Its new position (0 = first; clamped to the last).
        to: usize,
    },
    /// Reverse a segment: an integer's digits, a timestamp (newest
    /// first), a domain's labels.
    ReverseSegment {
        /// The segment.
        segment: String,
    },
    /// Zero-pad an integer segment.
    PadSegment {
        /// The segment.
        segment: String,
        /// Digits.
        width: u8,
    },
    /// Remove a key segment.
    RemoveSegment {
        /// The segment.
        segment: String,
    },
    /// Insert a key segment at position `at` (clamped to the end).
    InsertSegment {
        /// Position.
        at: usize,
        /// The new segment.
        segment: Segment,
    },
    /// Replace a key segment (access patterns follow a rename).
    ReplaceSegment {
        /// The segment replaced.
        segment: String,
        /// What takes its place.
        with: Segment,
    },
    /// Set a family's GC rule (`None` parts are not bounded).
    SetGc {
        /// Table id.
        table: String,
        /// Family.
        family: String,
        /// Versions kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_versions: Option<u32>,
        /// Oldest cells kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_age: Option<Seconds>,
    },
    /// Add a family.
    AddFamily {
        /// Table id.
        table: String,
        /// Family.
        family: String,
        /// Versions kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_versions: Option<u32>,
        /// Oldest cells kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_age: Option<Seconds>,
    },
    /// Rename a family (in an instance: copy its cells and drop it).
    RenameFamily {
        /// Table id.
        table: String,
        /// Family.
        family: String,
        /// New name.
        to: String,
    },
    /// Move declared columns of the main table to another family.
    MoveColumns {
        /// Their family now.
        family: String,
        /// Their qualifiers.
        qualifiers: Vec<String>,
        /// The family they move to.
        to: String,
    },
    /// Merge families into one (in an instance: copy cells, drop the rest).
    MergeFamilies {
        /// Table id.
        table: String,
        /// The families merged.
        families: Vec<String>,
        /// The family that remains.
        into: String,
    },
    /// Replace declared columns by one serialized column.
    SerializeColumns {
        /// Family.
        family: String,
        /// Columns replaced.
        qualifiers: Vec<String>,
        /// The new column's qualifier.
        into: String,
    },
    /// Change a declared column.
    UpdateColumn {
        /// Family.
        family: String,
        /// Qualifier.
        qualifier: String,
        /// New qualifier.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        new_qualifier: Option<String>,
        /// New `per_row`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        per_row: Option<u64>,
        /// New `writes_per_day`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        writes_per_day: Option<f64>,
    },
    /// Merge tables of the same shape into one, telling their rows apart
    /// by the part of the table id that differs (`variants`, in table
    /// order): as a key prefix (`tenant_prefix`) or a key suffix.
    MergeTables {
        /// The tables.
        tables: Vec<String>,
        /// The table that remains.
        into: String,
        /// What told the tables apart (customer names, years).
        variants: Vec<String>,
        /// Prefix the keys with the variant (customers) rather than
        /// append it (years).
        tenant_prefix: bool,
    },
}

/// What a fix would do to the design.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Preview {
    /// The new row-key pattern.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_pattern: Option<String>,
    /// New example keys.
    pub example_keys: Vec<String>,
    /// Whether the finding goes away.
    pub resolves: bool,
    /// Rules the changed design newly breaks.
    pub introduces: Vec<RuleId>,
    /// The families afterwards, `table:family` with their rule.
    pub families: Vec<String>,
    /// An error if the fix cannot be applied to this design.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A way to resolve a finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fix {
    /// What it does, in one line.
    pub title: String,
    /// The edits, applied in order.
    pub edits: Vec<Edit>,
    /// Filled in by the advisor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<Preview>,
}

impl Fix {
    pub(crate) fn new(title: String, edits: Vec<Edit>) -> Fix {
        Fix {
            title,
            edits,
            preview: None,
        }
    }
}

fn seg_pos(key: &KeyTemplate, name: &str) -> Result<usize> {
    key.segment_index(name)
        .ok_or_else(|| Error::invalid(format!("the key has no segment \"{name}\"")))
}

fn apply_key(
    key: &mut KeyTemplate,
    edit: &Edit,
    renames: &mut Vec<(String, String)>,
) -> Result<()> {
    let mut k = key.clone();
    match edit {
        Edit::MoveSegment { segment, to } => {
            let i = seg_pos(&k, segment)?;
            let s = k.segments.remove(i);
            let to = (*to).min(k.segments.len());
            k.segments.insert(to, s);
        }
        Edit::ReverseSegment { segment } => {
            let i = seg_pos(&k, segment)?;
            match k.segments.get_mut(i).map(|s| &mut s.kind) {
                Some(
                    SegmentKind::Int { reversed, .. }
                    | SegmentKind::Timestamp { reversed, .. }
                    | SegmentKind::Domain { reversed, .. },
                ) => *reversed = !*reversed,
                _ => {
                    return Err(Error::invalid(format!(
                        "segment \"{segment}\" cannot be reversed (only int, timestamp and domain segments can)"
                    )));
                }
            }
        }
        Edit::PadSegment { segment, width } => {
            let i = seg_pos(&k, segment)?;
            match k.segments.get_mut(i).map(|s| &mut s.kind) {
                Some(SegmentKind::Int { width: w, .. }) => *w = Some(*width),
                _ => {
                    return Err(Error::invalid(format!(
                        "segment \"{segment}\" is not an int segment"
                    )));
                }
            }
        }
        Edit::RemoveSegment { segment } => {
            let i = seg_pos(&k, segment)?;
            k.segments.remove(i);
        }
        Edit::InsertSegment { at, segment } => {
            let at = (*at).min(k.segments.len());
            k.segments.insert(at, segment.clone());
        }
        Edit::ReplaceSegment { segment, with } => {
            let i = seg_pos(&k, segment)?;
            if let Some(s) = k.segments.get_mut(i) {
                *s = with.clone();
            }
            if with.name != *segment {
                for s in &mut k.segments {
                    match &mut s.kind {
                        SegmentKind::Hash { of, .. } if of == segment => *of = with.name.clone(),
                        SegmentKind::Salt { of: Some(of), .. } if of == segment => {
                            *of = with.name.clone()
                        }
                        _ => {}
                    }
                }
                renames.push((segment.clone(), with.name.clone()));
            }
        }
        _ => return Ok(()),
    }
    k.validate()?;
    *key = k;
    Ok(())
}

fn table_mut<'a>(d: &'a mut Design, id: &str) -> Result<&'a mut TableDesign> {
    d.tables
        .iter_mut()
        .find(|t| t.id == id)
        .ok_or_else(|| Error::not_found(format!("the design has no table \"{id}\"")))
}

fn check_family_name(name: &str) -> Result<()> {
    tabletop_store::validate_family_name(name)
}

/// A GC rule from an edit: at least one version, an age of at least a
/// millisecond and at most 100 years.
fn check_gc(max_versions: Option<u32>, max_age: Option<Seconds>) -> Result<()> {
    if max_versions == Some(0) {
        return Err(Error::invalid("max_versions must be at least 1"));
    }
    if max_age
        .is_some_and(|a| !(a.0.is_finite() && (0.001..=100.0 * 365.0 * 86_400.0).contains(&a.0)))
    {
        return Err(Error::invalid("max_age must be from 1 ms to 100 years"));
    }
    Ok(())
}

/// Applies edits to a design (all or nothing).
pub fn apply_to_design(design: &mut Design, edits: &[Edit]) -> Result<()> {
    let mut d = design.clone();
    for e in edits {
        apply_one(&mut d, e)?;
    }
    *design = d;
    Ok(())
}

fn apply_one(d: &mut Design, e: &Edit) -> Result<()> {
    let main = d.tables.first().map(|t| t.id.clone()).unwrap_or_default();
    match e {
        Edit::MoveSegment { .. }
        | Edit::ReverseSegment { .. }
        | Edit::PadSegment { .. }
        | Edit::RemoveSegment { .. }
        | Edit::InsertSegment { .. }
        | Edit::ReplaceSegment { .. } => {
            let key = d
                .key
                .as_mut()
                .ok_or_else(|| Error::failed_precondition("the design has no row-key template"))?;
            let mut renames = Vec::new();
            apply_key(key, e, &mut renames)?;
            let n = key.segments.len() as u32;
            for w in &mut d.workloads {
                if let Some(p) = w.prefix_segments {
                    w.prefix_segments = Some(p.min(n));
                }
            }
            for (old, new) in renames {
                for a in &mut d.access {
                    for f in a.fixed.iter_mut().chain(a.range.iter_mut()) {
                        let (seg, site) = tabletop_design::scenario::field_segment(f);
                        if seg == old {
                            *f = if site {
                                format!("{new}:site")
                            } else {
                                new.clone()
                            };
                        }
                    }
                }
            }
        }
        Edit::SetGc {
            table,
            family,
            max_versions,
            max_age,
        } => {
            check_gc(*max_versions, *max_age)?;
            let t = table_mut(d, table)?;
            let f = t.families.get_mut(family).ok_or_else(|| {
                Error::not_found(format!("table \"{table}\" has no family \"{family}\""))
            })?;
            f.max_versions = *max_versions;
            f.max_age = *max_age;
            f.gc = max_versions.is_some() || max_age.is_some();
        }
        Edit::AddFamily {
            table,
            family,
            max_versions,
            max_age,
        } => {
            check_family_name(family)?;
            check_gc(*max_versions, *max_age)?;
            let t = table_mut(d, table)?;
            if t.families.contains_key(family) {
                return Err(Error::already_exists(format!("family \"{family}\" exists")));
            }
            t.families.insert(
                family.clone(),
                FamilyDesign {
                    max_versions: *max_versions,
                    max_age: *max_age,
                    gc: max_versions.is_some() || max_age.is_some(),
                    aggregate: false,
                },
            );
        }
        Edit::RenameFamily { table, family, to } => {
            check_family_name(to)?;
            let t = table_mut(d, table)?;
            if t.families.contains_key(to) {
                return Err(Error::already_exists(format!("family \"{to}\" exists")));
            }
            let f = t.families.remove(family).ok_or_else(|| {
                Error::not_found(format!("table \"{table}\" has no family \"{family}\""))
            })?;
            t.families.insert(to.clone(), f);
            if *table == main {
                rename_family_refs(d, family, to);
            }
        }
        Edit::MoveColumns {
            family,
            qualifiers,
            to,
        } => {
            if !d
                .tables
                .first()
                .is_some_and(|t| t.families.contains_key(to))
            {
                return Err(Error::not_found(format!(
                    "the main table has no family \"{to}\""
                )));
            }
            for c in &mut d.columns {
                if &c.family == family && qualifiers.contains(&c.qualifier) {
                    c.family = to.clone();
                }
            }
        }
        Edit::MergeFamilies {
            table,
            families,
            into,
        } => {
            check_family_name(into)?;
            let t = table_mut(d, table)?;
            let mut kept: Option<FamilyDesign> = None;
            for f in families {
                let fam = t.families.remove(f).ok_or_else(|| {
                    Error::not_found(format!("table \"{table}\" has no family \"{f}\""))
                })?;
                kept.get_or_insert(fam);
            }
            if t.families.contains_key(into) {
                return Err(Error::already_exists(format!("family \"{into}\" exists")));
            }
            t.families.insert(into.clone(), kept.unwrap_or_default());
            if *table == main {
                for f in families {
                    rename_family_refs(d, f, into);
                }
            }
        }
        Edit::SerializeColumns {
            family,
            qualifiers,
            into,
        } => {
            let cols: Vec<ColumnSpec> = d
                .columns
                .iter()
                .filter(|c| &c.family == family && qualifiers.contains(&c.qualifier))
                .cloned()
                .collect();
            if cols.is_empty() {
                return Err(Error::not_found(format!(
                    "no declared columns of family \"{family}\" to serialize"
                )));
            }
            let bytes: u64 = cols.iter().map(|c| c.bytes.saturating_mul(c.per_row)).sum();
            let merged = ColumnSpec {
                family: family.clone(),
                qualifier: into.clone(),
                bytes: bytes.clamp(1, tabletop_store::MAX_VALUE_BYTES as u64),
                per_row: 1,
                keep_versions: cols.iter().filter_map(|c| c.keep_versions).max(),
                keep_for: cols
                    .iter()
                    .filter_map(|c| c.keep_for)
                    .fold(None, |a: Option<Seconds>, b| {
                        Some(a.map_or(b, |a| if b.0 > a.0 { b } else { a }))
                    }),
                writes_per_day: cols.iter().map(|c| c.writes_per_day).fold(0.0, f64::max),
            };
            let first = d
                .columns
                .iter()
                .position(|c| &c.family == family && qualifiers.contains(&c.qualifier))
                .unwrap_or(0);
            d.columns
                .retain(|c| !(&c.family == family && qualifiers.contains(&c.qualifier)));
            let at = first.min(d.columns.len());
            d.columns.insert(at, merged);
        }
        Edit::UpdateColumn {
            family,
            qualifier,
            new_qualifier,
            per_row,
            writes_per_day,
        } => {
            let c = d
                .columns
                .iter_mut()
                .find(|c| &c.family == family && &c.qualifier == qualifier)
                .ok_or_else(|| {
                    Error::not_found(format!("no declared column {family}:{qualifier}"))
                })?;
            if let Some(q) = new_qualifier {
                c.qualifier = q.clone();
            }
            if let Some(p) = per_row {
                c.per_row = (*p).max(1);
            }
            if let Some(w) = writes_per_day {
                c.writes_per_day = w.max(0.0);
            }
        }
        Edit::MergeTables {
            tables,
            into,
            variants,
            tenant_prefix,
        } => {
            tabletop_store::validate_table_id(into)?;
            let mut families: BTreeMap<String, FamilyDesign> = BTreeMap::new();
            let mut first_pos = None;
            for id in tables {
                let pos =
                    d.tables.iter().position(|t| &t.id == id).ok_or_else(|| {
                        Error::not_found(format!("the design has no table \"{id}\""))
                    })?;
                first_pos = Some(first_pos.map_or(pos, |p: usize| p.min(pos)));
                if let Some(t) = d.tables.get(pos) {
                    for (n, f) in &t.families {
                        families.entry(n.clone()).or_insert_with(|| f.clone());
                    }
                }
            }
            let was_main = first_pos == Some(0);
            let in_instance = d
                .tables
                .iter()
                .any(|t| tables.contains(&t.id) && t.in_instance);
            d.tables.retain(|t| !tables.contains(&t.id));
            if d.tables.iter().any(|t| &t.id == into) {
                return Err(Error::already_exists(format!("table \"{into}\" exists")));
            }
            let merged = TableDesign {
                id: into.clone(),
                families,
                in_instance,
            };
            let at = first_pos.unwrap_or(0).min(d.tables.len());
            d.tables.insert(at, merged);
            if was_main && let Some(key) = d.key.as_mut() {
                let mut values: Vec<String> = variants.clone();
                values.sort();
                values.dedup();
                let has_time = key.segments.iter().any(|s| s.kind.is_time());
                if *tenant_prefix || !has_time {
                    let name = super::text::fresh_name(
                        if *tenant_prefix { "tenant" } else { "year" },
                        |n| key.segment_index(n).is_some(),
                    );
                    let seg = Segment {
                        name,
                        kind: SegmentKind::Enum {
                            values,
                            weights: Vec::new(),
                            per: tabletop_design::keydesign::Per::Entity,
                        },
                    };
                    let at = if *tenant_prefix {
                        0
                    } else {
                        key.segments.len()
                    };
                    let mut k = key.clone();
                    k.segments.insert(at, seg);
                    k.validate()?;
                    *key = k;
                }
            }
        }
    }
    Ok(())
}

fn rename_family_refs(d: &mut Design, from: &str, to: &str) {
    for c in &mut d.columns {
        if c.family == from {
            c.family = to.to_string();
        }
    }
    for w in &mut d.workloads {
        if w.family.as_deref() == Some(from) {
            w.family = Some(to.to_string());
        }
    }
}

/// Applies edits to a scenario (all or nothing); the result is checked
/// like a scenario file.
pub fn apply_to_scenario(scenario: &mut Scenario, edits: &[Edit]) -> Result<()> {
    let mut d = Design::from_scenario(scenario);
    apply_to_design(&mut d, edits)?;
    let mut s = scenario.clone();
    d.write_back(&mut s);
    s.validate()?;
    *scenario = s;
    Ok(())
}

/// Applies the edits that concern tables of an instance: GC rules and new
/// families are set, renamed and merged families and merged tables are
/// copied cell by cell (timestamps kept) and the old ones dropped. Edits
/// of tables the instance does not have, and key or column edits, are
/// skipped. Stops at the first error (earlier edits stay applied).
pub fn apply_to_instance(db: &mut Instance, edits: &[Edit]) -> Result<()> {
    let exists = |db: &Instance, t: &str| db.get_table(t).is_ok();
    for e in edits {
        match e {
            Edit::SetGc {
                table,
                family,
                max_versions,
                max_age,
            } if exists(db, table) => {
                check_gc(*max_versions, *max_age)?;
                let f = FamilyDesign {
                    max_versions: *max_versions,
                    max_age: *max_age,
                    gc: true,
                    aggregate: false,
                };
                let info = db.get_table(table)?;
                let mut cf = info.schema.families.get(family).cloned().ok_or_else(|| {
                    Error::not_found(format!("table \"{table}\" has no family \"{family}\""))
                })?;
                cf.gc_rule = f.gc_rule();
                db.modify_column_families(table, &[FamilyChange::Update(family.clone(), cf)])?;
            }
            Edit::AddFamily {
                table,
                family,
                max_versions,
                max_age,
            } if exists(db, table) => {
                check_gc(*max_versions, *max_age)?;
                let f = FamilyDesign {
                    max_versions: *max_versions,
                    max_age: *max_age,
                    gc: true,
                    aggregate: false,
                };
                db.modify_column_families(
                    table,
                    &[FamilyChange::Create(
                        family.clone(),
                        ColumnFamily::with_gc(f.gc_rule()),
                    )],
                )?;
            }
            Edit::RenameFamily { table, family, to } if exists(db, table) => {
                merge_families_in(db, table, std::slice::from_ref(family), to)?;
            }
            Edit::MergeFamilies {
                table,
                families,
                into,
            } if exists(db, table) => {
                merge_families_in(db, table, families, into)?;
            }
            Edit::MergeTables {
                tables,
                into,
                variants,
                tenant_prefix,
            } if tables.iter().any(|t| exists(db, t)) => {
                merge_tables_in(db, tables, into, variants, *tenant_prefix)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn copy_cells(
    db: &mut Instance,
    from_table: &str,
    family_filter: Option<&[String]>,
    to_table: &str,
    rekey: impl Fn(&[u8]) -> Vec<u8>,
    refamily: impl Fn(&str) -> String,
) -> Result<()> {
    let mut rows = CollectRows::default();
    db.read_rows(from_table, &ReadRowsRequest::default(), &mut rows)?;
    let aggregate: BTreeMap<String, bool> = db
        .get_table(from_table)?
        .schema
        .families
        .iter()
        .map(|(n, f)| {
            (
                n.clone(),
                !matches!(f.value_type, tabletop_store::ValueType::Bytes),
            )
        })
        .collect();
    for row in rows.rows {
        let key = rekey(&row.key);
        let mut muts: Vec<Mutation<'_>> = Vec::new();
        let fams: Vec<String> = row.cells.iter().map(|c| refamily(&c.family)).collect();
        for (c, fam) in row.cells.iter().zip(&fams) {
            if family_filter.is_some_and(|f| !f.contains(&c.family)) {
                continue;
            }
            let ts = c.timestamp_micros.max(0) / 1000 * 1000;
            if aggregate.get(&c.family).copied().unwrap_or(false) {
                muts.push(Mutation::MergeToCell {
                    family_name: fam.as_str().into(),
                    column_qualifier: c.qualifier.as_slice().into(),
                    timestamp_micros: ts,
                    input: AggregateInput::Raw(c.value.as_slice().into()),
                });
            } else {
                muts.push(Mutation::set_cell(fam, &c.qualifier, ts, &c.value));
            }
        }
        if !muts.is_empty() {
            db.mutate_row(to_table, &key, &muts)?;
        }
    }
    Ok(())
}

fn merge_families_in(
    db: &mut Instance,
    table: &str,
    families: &[String],
    into: &str,
) -> Result<()> {
    let info = db.get_table(table)?;
    let first = families
        .first()
        .and_then(|f| info.schema.families.get(f))
        .cloned()
        .ok_or_else(|| {
            Error::not_found(format!(
                "table \"{table}\" has no family \"{}\"",
                families.first().map_or("", String::as_str)
            ))
        })?;
    if !info.schema.families.contains_key(into) {
        db.modify_column_families(table, &[FamilyChange::Create(into.to_string(), first)])?;
    }
    let into_owned = into.to_string();
    copy_cells(db, table, Some(families), table, <[u8]>::to_vec, |_| {
        into_owned.clone()
    })?;
    let drops: Vec<FamilyChange> = families
        .iter()
        .filter(|f| f.as_str() != into)
        .map(|f| FamilyChange::Drop(f.clone()))
        .collect();
    if !drops.is_empty() {
        db.modify_column_families(table, &drops)?;
    }
    Ok(())
}

fn merge_tables_in(
    db: &mut Instance,
    tables: &[String],
    into: &str,
    variants: &[String],
    tenant_prefix: bool,
) -> Result<()> {
    let mut schema = TableSchema::default();
    for t in tables {
        if let Ok(info) = db.get_table(t) {
            for (n, f) in info.schema.families {
                schema.families.entry(n).or_insert(f);
            }
        }
    }
    if db.get_table(into).is_err() {
        db.create_table(CreateTableRequest {
            table_id: into.to_string(),
            schema,
            initial_splits: Vec::new(),
        })?;
    } else {
        let have = db.get_table(into)?.schema.families;
        let add: Vec<FamilyChange> = schema
            .families
            .into_iter()
            .filter(|(n, _)| !have.contains_key(n))
            .map(|(n, f)| FamilyChange::Create(n, f))
            .collect();
        if !add.is_empty() {
            db.modify_column_families(into, &add)?;
        }
    }
    for (t, v) in tables.iter().zip(variants) {
        if t == into || db.get_table(t).is_err() {
            continue;
        }
        let v = v.clone();
        copy_cells(
            db,
            t,
            None,
            into,
            |k| {
                let mut out = Vec::with_capacity(k.len() + v.len() + 1);
                if tenant_prefix {
                    out.extend_from_slice(v.as_bytes());
                    out.push(b'#');
                    out.extend_from_slice(k);
                } else {
                    out.extend_from_slice(k);
                    out.push(b'#');
                    out.extend_from_slice(v.as_bytes());
                }
                out
            },
            str::to_string,
        )?;
        db.delete_table(t)?;
    }
    Ok(())
}

/// Fills in every fix's preview and puts the fixes that resolve the
/// finding and introduce the fewest new problems first.
pub(crate) fn preview_all(design: &Design, finding: &mut Finding) {
    let before = lint_bare(design);
    for fix in &mut finding.fixes {
        let mut d = design.clone();
        let mut p = Preview::default();
        match apply_to_design(&mut d, &fix.edits) {
            Ok(()) => {
                if let Some(k) = &d.key {
                    p.key_pattern = Some(k.pattern());
                    p.example_keys = k.examples(3);
                }
                p.families = d
                    .tables
                    .iter()
                    .flat_map(|t| {
                        t.families
                            .iter()
                            .map(move |(n, f)| format!("{}:{n} {}", t.id, f.describe()))
                    })
                    .collect();
                let after = lint_bare(&d);
                p.resolves = !after
                    .iter()
                    .any(|f| f.rule == finding.rule && same_target(&f.target, &finding.target));
                let mut intro: Vec<RuleId> = after
                    .iter()
                    .filter(|a| {
                        !before
                            .iter()
                            .any(|b| a.rule == b.rule && same_target(&a.target, &b.target))
                    })
                    .map(|a| a.rule)
                    .filter(|r| *r != finding.rule)
                    .collect();
                intro.sort();
                intro.dedup();
                p.introduces = intro;
            }
            Err(e) => p.error = Some(e.message().to_string()),
        }
        fix.preview = Some(p);
    }
    let rank = |f: &Fix| match &f.preview {
        Some(p) if p.error.is_none() => (u8::from(!p.resolves), p.introduces.len()),
        _ => (2, usize::MAX),
    };
    // Stable: equal ranks keep the rule's own order.
    finding.fixes.sort_by_key(rank);
}

/// Whether two targets are the same place, allowing for a segment that
/// moved (same name) or a family that kept its name.
fn same_target(a: &super::Target, b: &super::Target) -> bool {
    use super::Target;
    match (a, b) {
        (Target::Segment { name: x, .. }, Target::Segment { name: y, .. }) => x == y,
        _ => a == b,
    }
}
