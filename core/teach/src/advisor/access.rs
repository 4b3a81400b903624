//! Access patterns under a key design: which row set a declared read
//! becomes (one key, one range, several ranges, or the whole table), and
//! the workloads a lesson simulates for reads that have a rate.

use serde::{Deserialize, Serialize};

use tabletop_design::compare::AccessCase;
use tabletop_design::keydesign::{KeyInput, KeyRenderer, KeyTemplate, SegmentKind};
use tabletop_design::rng::mix64;
use tabletop_design::scenario::{AccessSpec, field_segment};
use tabletop_design::sim::{KeyDist, OpKind, Scenario, Shape, Workload};
pub use tabletop_store::ReadShape;
use tabletop_store::escape_bytes;

/// Most values of one segment a read may enumerate (one range each).
const MAX_ENUMERATED: u64 = 64;
/// Most ranges a multi-range read may have before it counts as a scan.
const MAX_RANGES: u64 = 1024;

/// A declared read, classified under the current key design.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccessPlan {
    /// The access pattern's name.
    pub name: String,
    /// How the read reaches its rows.
    pub shape: ReadShape,
    /// Row keys or ranges the read sends (1 for a point read or a single
    /// range; 0 for a full scan).
    pub ranges: u64,
    /// Segments that form the exact prefix, in key order (enumerated ones
    /// included).
    pub prefix: Vec<String>,
    /// Segments whose every value the read must try (one range each).
    pub enumerated: Vec<String>,
    /// The segment read as a range, when the key lets it be one.
    pub range_segment: Option<String>,
    /// Fields the read must check row by row: key segments behind the
    /// prefix, and fields that are not in the key at all.
    pub filtered: Vec<String>,
    /// Fields of the read that are not segments of the key.
    pub missing: Vec<String>,
    /// The share of the table the read scans (1 for a full scan), when it
    /// can be estimated.
    pub scan_fraction: Option<f64>,
    /// Index of the first segment the read could not use (where the fixed
    /// fields would have to move to become a prefix).
    pub stop: usize,
    /// The row set, with example values.
    pub row_set: Vec<String>,
    /// One sentence saying why.
    pub explanation: String,
}

/// What the read knows of one segment.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Knows {
    Exact,
    Site,
    Range,
    Enumerate(u64),
    Nothing,
}

fn knows(key: &KeyTemplate, a: &AccessSpec, i: usize) -> Knows {
    let Some(seg) = key.segments.get(i) else {
        return Knows::Nothing;
    };
    let exact = |name: &str| a.fixed.iter().any(|f| f == name);
    if exact(&seg.name) {
        return Knows::Exact;
    }
    match &seg.kind {
        SegmentKind::Const { .. } => return Knows::Exact,
        SegmentKind::Hash { of, .. } | SegmentKind::Salt { of: Some(of), .. } if exact(of) => {
            return Knows::Exact;
        }
        _ => {}
    }
    if let SegmentKind::Domain { reversed: true, .. } = seg.kind
        && a.fixed
            .iter()
            .any(|f| field_segment(f) == (seg.name.as_str(), true))
    {
        return Knows::Site;
    }
    if a.range.as_deref() == Some(seg.name.as_str()) {
        return Knows::Range;
    }
    let card = match &seg.kind {
        SegmentKind::Enum { values, .. } => values.len() as u64,
        SegmentKind::Salt { buckets, .. } => u64::from(*buckets),
        SegmentKind::Tenant { tenants, .. } => u64::from(*tenants),
        _ => u64::MAX,
    };
    if card <= MAX_ENUMERATED {
        Knows::Enumerate(card.max(1))
    } else {
        Knows::Nothing
    }
}

/// Classifies one access pattern under `key`, with `entities` entities.
#[must_use]
pub fn classify(key: &KeyTemplate, a: &AccessSpec, entities: u64) -> AccessPlan {
    let n = key.segments.len();
    let mut mult: u64 = 1;
    let mut anchor = 0usize;
    let mut anchor_mult: u64 = 1;
    let mut enumerated_since_anchor: Vec<usize> = Vec::new();
    let mut enumerated: Vec<usize> = Vec::new();
    let mut end = Knows::Nothing;
    let mut stop = n;
    for i in 0..n {
        match knows(key, a, i) {
            Knows::Exact => {
                anchor = i + 1;
                anchor_mult = mult;
                enumerated.append(&mut enumerated_since_anchor);
            }
            k @ (Knows::Site | Knows::Range) => {
                anchor = i + 1;
                anchor_mult = mult;
                enumerated.append(&mut enumerated_since_anchor);
                end = k;
                stop = i + 1;
                break;
            }
            Knows::Enumerate(c) if mult.saturating_mul(c) <= MAX_RANGES => {
                mult = mult.saturating_mul(c);
                enumerated_since_anchor.push(i);
            }
            _ => {
                stop = i;
                break;
            }
        }
    }
    let complete = anchor == n && end == Knows::Nothing;
    let shape = if anchor == 0 {
        ReadShape::FullScan
    } else if anchor_mult > 1 {
        ReadShape::MultiRange
    } else if complete {
        ReadShape::Point
    } else {
        ReadShape::SingleRange
    };
    let seg_index = |name: &str| key.segment_index(field_segment(name).0);
    let mut missing = Vec::new();
    let mut filtered = Vec::new();
    for f in a.fixed.iter().chain(a.range.iter()) {
        match seg_index(f) {
            None => {
                missing.push(f.clone());
                filtered.push(f.clone());
            }
            Some(i) => {
                let used = i < anchor
                    && !(field_segment(f).1
                        && matches!(
                            key.segments.get(i).map(|s| &s.kind),
                            Some(SegmentKind::Domain {
                                reversed: false,
                                ..
                            })
                        ));
                if !used {
                    filtered.push(f.clone());
                }
            }
        }
    }
    let names = |idx: &[usize]| -> Vec<String> {
        idx.iter()
            .filter_map(|&i| key.segments.get(i).map(|s| s.name.clone()))
            .collect()
    };
    let prefix: Vec<String> = key
        .segments
        .iter()
        .take(if end == Knows::Nothing {
            anchor
        } else {
            anchor.saturating_sub(1)
        })
        .map(|s| s.name.clone())
        .collect();
    let range_segment = match end {
        Knows::Range | Knows::Site => anchor
            .checked_sub(1)
            .and_then(|i| key.segments.get(i))
            .map(|s| s.name.clone()),
        _ => None,
    };
    let scan_fraction = match shape {
        ReadShape::FullScan => Some(1.0),
        ReadShape::Point => Some(0.0),
        _ => {
            let k = prefix.len();
            if k == 0 {
                None
            } else {
                key.prefix_cardinality(k, entities)
                    .map(|c| anchor_mult as f64 / c.max(1) as f64)
            }
        }
    };
    let ranges = match shape {
        ReadShape::FullScan => 0,
        _ => anchor_mult,
    };
    let row_set = row_set(key, shape, anchor, end, &enumerated, anchor_mult, &filtered);
    let explanation = explain(
        a,
        shape,
        &prefix,
        &range_segment,
        &filtered,
        &missing,
        &names(&enumerated),
        anchor_mult,
    );
    AccessPlan {
        name: a.name.clone(),
        shape,
        ranges,
        prefix,
        enumerated: names(&enumerated),
        range_segment,
        filtered,
        missing,
        scan_fraction,
        stop,
        row_set,
        explanation,
    }
}

#[allow(clippy::too_many_arguments)]
fn explain(
    a: &AccessSpec,
    shape: ReadShape,
    prefix: &[String],
    range: &Option<String>,
    filtered: &[String],
    missing: &[String],
    enumerated: &[String],
    ranges: u64,
) -> String {
    let list = |v: &[String]| {
        v.iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = match shape {
        ReadShape::Point => format!(
            "\"{}\" knows every segment of the key, so it reads {}.",
            a.name,
            if ranges > 1 {
                format!("{ranges} row keys")
            } else {
                "one row key".to_string()
            }
        ),
        ReadShape::SingleRange => {
            let mut t = format!("\"{}\" reads one contiguous range", a.name);
            if !prefix.is_empty() {
                t.push_str(&format!(" under the prefix {}", list(prefix)));
            }
            if let Some(r) = range {
                t.push_str(&format!(", bounded by `{r}`"));
            }
            t.push('.');
            t
        }
        ReadShape::MultiRange => format!(
            "\"{}\" must read {ranges} ranges, one for every value of {}.",
            a.name,
            list(enumerated)
        ),
        ReadShape::FullScan => {
            if a.fixed.is_empty() && a.range.is_none() {
                format!("\"{}\" reads every row by its nature.", a.name)
            } else {
                format!(
                    "\"{}\" knows no leading segment of the key, so it has to scan the whole table.",
                    a.name
                )
            }
        }
    };
    if !missing.is_empty() {
        s.push_str(&format!(
            " {} {} not part of the row key.",
            list(missing),
            if missing.len() == 1 { "is" } else { "are" }
        ));
    }
    let behind: Vec<String> = filtered
        .iter()
        .filter(|f| !missing.contains(f))
        .cloned()
        .collect();
    if !behind.is_empty() {
        s.push_str(&format!(
            " {} sit{} behind a segment the read does not know, so every row scanned must be filtered on {}.",
            list(&behind),
            if behind.len() == 1 { "s" } else { "" },
            if behind.len() == 1 { "it" } else { "them" }
        ));
    }
    if a.newest_first && shape != ReadShape::FullScan {
        s.push_str(" Newest rows first: with a reversed timestamp they come first in key order; otherwise the read has to run in reverse.");
    }
    s
}

/// Example values of every segment, for one entity at one time.
fn example_parts(key: &KeyTemplate, entity: u64, time_micros: i64) -> Vec<String> {
    let Ok(mut r) = KeyRenderer::new(key) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    r.render(
        &KeyInput {
            entity,
            time_micros,
            op_seq: entity,
            op_random: mix64(entity ^ 0x51_7e),
        },
        &mut out,
    );
    key.split_key(&out)
        .iter()
        .map(|p| escape_bytes(out.get(p.range.clone()).unwrap_or_default()))
        .collect()
}

const EXAMPLE_TIME: i64 = 1_588_291_200_000_000 + 9 * 3_600_000_000;
const EXAMPLE_ENTITY: u64 = 7_919;

#[allow(clippy::too_many_arguments)]
fn row_set(
    key: &KeyTemplate,
    shape: ReadShape,
    anchor: usize,
    end: Knows,
    enumerated: &[usize],
    ranges: u64,
    filtered: &[String],
) -> Vec<String> {
    let parts = example_parts(key, EXAMPLE_ENTITY, EXAMPLE_TIME);
    let d = &key.delimiter;
    let join = |p: &[String]| p.join(d);
    let filter_note = if filtered.is_empty() {
        String::new()
    } else {
        format!(", filtering {}", filtered.join(", "))
    };
    match shape {
        ReadShape::FullScan => vec![format!("all rows{filter_note}")],
        ReadShape::Point => vec![format!(
            "key \"{}\"{}",
            join(&parts),
            if ranges > 1 {
                format!(" (and {} more keys)", ranges - 1)
            } else {
                String::new()
            }
        )],
        _ => {
            let head = parts.get(..anchor.min(parts.len())).unwrap_or_default();
            let mut text = match end {
                Knows::Range => {
                    let later =
                        example_parts(key, EXAMPLE_ENTITY, EXAMPLE_TIME + 7 * 86_400_000_000);
                    let start = join(head);
                    let mut end_parts = head.to_vec();
                    if let (Some(last), Some(v)) = (end_parts.last_mut(), later.get(anchor - 1)) {
                        *last = v.clone();
                    }
                    let end_key = join(&end_parts);
                    if end_key > start {
                        format!("range [\"{start}\", \"{end_key}\")")
                    } else {
                        format!("range from \"{start}\"")
                    }
                }
                Knows::Site => {
                    let mut p = head.to_vec();
                    if let Some(last) = p.last_mut() {
                        let cut: Vec<&str> = last.split('.').take(2).collect();
                        *last = format!("{}.", cut.join("."));
                    }
                    format!("prefix \"{}\"", join(&p))
                }
                _ => {
                    let mut t = join(head);
                    if anchor < key.segments.len() {
                        t.push_str(d);
                    }
                    format!("prefix \"{t}\"")
                }
            };
            if ranges > 1 {
                let names: Vec<&str> = enumerated
                    .iter()
                    .filter_map(|&i| key.segments.get(i).map(|s| s.name.as_str()))
                    .collect();
                text.push_str(&format!(
                    " and {} more like it, one per value of {}",
                    ranges - 1,
                    names.join(" and ")
                ));
            }
            text.push_str(&filter_note);
            vec![text]
        }
    }
}

/// Every access pattern of the scenario, classified.
#[must_use]
pub fn plans(s: &Scenario) -> Vec<AccessPlan> {
    s.access
        .iter()
        .map(|a| classify(&s.key, a, s.table.entities))
        .collect()
}

/// The workloads that simulate the scenario's access patterns that have
/// a `rate`, as they run under the current key: a point read, a prefix or
/// range scan, several scans, or a filtered full scan.
#[must_use]
pub fn access_workloads(s: &Scenario) -> Vec<Workload> {
    let mut out = Vec::new();
    for a in &s.access {
        if a.rate <= 0.0 {
            continue;
        }
        let plan = classify(&s.key, a, s.table.entities);
        out.push(workload_for(s, a, &plan, a.rate));
    }
    out
}

/// The workload that performs access pattern `a` (classified as `plan`)
/// `rate` times a second.
fn workload_for(s: &Scenario, a: &AccessSpec, plan: &AccessPlan, rate: f64) -> Workload {
    let mut w = Workload {
        name: format!("access: {}", a.name),
        op: OpKind::Read,
        rate,
        keys: KeyDist::Uniform,
        shape: Shape::Steady,
        value_bytes: None,
        family: None,
        prefix_segments: None,
        prefix_labels: None,
        rows: None,
        selectivity: None,
        hot_entity: None,
        age: a.age,
        from: None,
        until: None,
    };
    let k = plan.prefix.len() as u32;
    match plan.shape {
        ReadShape::Point => {
            w.rate = rate * plan.ranges.max(1) as f64;
        }
        ReadShape::SingleRange | ReadShape::MultiRange => {
            w.op = OpKind::Scan;
            let ranges = plan.ranges.max(1);
            w.rate = rate * ranges as f64;
            let site = plan.range_segment.as_ref().is_some_and(|r| {
                a.fixed
                    .iter()
                    .any(|f| field_segment(f) == (r.as_str(), true))
            });
            if site {
                w.prefix_segments = Some(k + 1);
                w.prefix_labels = Some(2);
            } else if plan.range_segment.is_some() || k == 0 {
                if k > 0 {
                    w.prefix_segments = Some(k);
                }
                w.rows = Some((a.rows.unwrap_or(100) / ranges).max(1));
            } else {
                w.prefix_segments = Some(k.max(1));
                if let Some(r) = a.rows {
                    w.rows = Some((r / ranges).max(1));
                }
            }
        }
        ReadShape::FullScan => {
            w.op = OpKind::FullScan;
            w.age = None;
            // The share of rows the filter keeps: one value of each
            // fixed segment (a domain site: one of its sites).
            let sel = if plan.missing.is_empty() {
                let mut card: f64 = 1.0;
                for f in &a.fixed {
                    let (name, site) = field_segment(f);
                    let Some(seg) = s
                        .key
                        .segment_index(name)
                        .and_then(|i| s.key.segments.get(i))
                    else {
                        continue;
                    };
                    match (&seg.kind, seg.cardinality(s.table.entities)) {
                        (SegmentKind::Domain { sites, .. }, _) if site => {
                            card *= f64::from((*sites).max(1));
                        }
                        (_, tabletop_design::keydesign::Cardinality::Finite(c)) => {
                            card *= c.max(1) as f64
                        }
                        _ => {}
                    }
                }
                1.0 / card
            } else {
                0.001
            };
            w.selectivity = Some(sel.clamp(1e-6, 1.0));
        }
    }
    w
}

/// Reads a second an A/B comparison simulates for an access pattern
/// declared without a `rate`: enough to measure it, too few to load the
/// cluster.
pub const PROBE_RATE: f64 = 0.01;

/// The scenario's access patterns as an A/B comparison runs them
/// ([`tabletop_design::compare`]): the workload of each under this key
/// (at its `rate`, or [`PROBE_RATE`] without one), with what a range scan
/// must filter counted as rows read but not returned, and the advisor's
/// sentence on how the read reaches its rows.
///
/// A range scan that filters on key segments behind a segment it does
/// not know (a device id behind a timestamp) keeps one row in the product
/// of those segments' cardinalities (at most one entity's worth). A full
/// scan bounded by a range (a time window) returns the pattern's `rows`
/// out of the rows the table holds half way through the run.
#[must_use]
pub fn access_cases(s: &Scenario) -> Vec<AccessCase> {
    s.access
        .iter()
        .map(|a| {
            let plan = classify(&s.key, a, s.table.entities);
            let rate = if a.rate > 0.0 { a.rate } else { PROBE_RATE };
            let mut w = workload_for(s, a, &plan, rate);
            match w.op {
                OpKind::Scan => {
                    let card = filter_cardinality(s, &plan);
                    if card > 1.0 {
                        w.selectivity = Some((1.0 / card).clamp(1e-9, 1.0));
                    }
                }
                OpKind::FullScan if a.range.is_some() => {
                    let rows = a.rows.unwrap_or(100) as f64;
                    let sel = (rows / mid_run_rows(s)).clamp(1e-9, 1.0);
                    w.selectivity = Some(w.selectivity.map_or(sel, |x| x.min(sel)));
                }
                _ => {}
            }
            AccessCase {
                name: a.name.clone(),
                workload: w,
                how: plan.explanation.clone(),
            }
        })
        .collect()
}

/// How many values of the key segments a scan must filter on it has:
/// the product of their cardinalities, at most the entities.
fn filter_cardinality(s: &Scenario, plan: &AccessPlan) -> f64 {
    let mut card = 1.0f64;
    for f in &plan.filtered {
        let Some(seg) = s
            .key
            .segment_index(field_segment(f).0)
            .and_then(|i| s.key.segments.get(i))
        else {
            continue;
        };
        if let tabletop_design::keydesign::Cardinality::Finite(c) =
            seg.cardinality(s.table.entities)
        {
            card *= c.max(1) as f64;
        }
    }
    card.min(s.table.entities.max(1) as f64)
}

/// Rows the table holds half way through the run: the rows at the start
/// plus half of what the writers send.
fn mid_run_rows(s: &Scenario) -> f64 {
    let writes: f64 = s
        .workloads
        .iter()
        .filter(|w| w.op == OpKind::Write)
        .map(|w| w.rate)
        .sum();
    (s.table.rows as f64 + writes * s.duration.0 / 2.0).max(1.0)
}

/// The scenario with its access patterns added as workloads (see
/// [`access_workloads`]), ready for the simulator. Keeps at most 32
/// workloads in all.
#[must_use]
pub fn with_access_workloads(s: &Scenario) -> Scenario {
    let mut out = s.clone();
    for w in access_workloads(s) {
        if out.workloads.len() >= 32 {
            break;
        }
        out.workloads.push(w);
    }
    out
}
