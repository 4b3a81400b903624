//! The rules. Each looks at the [`Design`] (and the simulation report, if
//! any) and adds [`Finding`]s with their fixes (previews are added later,
//! by `fix::preview_all`).

use std::collections::{BTreeMap, BTreeSet};

use super::access::{AccessPlan, ReadShape, classify};
use super::design::{Design, FamilyDesign};
use super::fix::{Edit, Fix};
use super::rule::{RuleId, Severity};
use super::text::{abbreviate, digits, fresh_name, names_pii, per_second, words};
use super::{Finding, Target};
use tabletop_design::keydesign::{
    Cardinality, DateFormat, KeyTemplate, Per, Segment, SegmentKind, TimeUnit,
};
use tabletop_design::keyviz::{Diagnostic, Pattern};
use tabletop_design::scenario::ColumnSpec;
use tabletop_design::sim::{KeyDist, OpKind, Report, Seconds};
use tabletop_store::human_bytes;

/// Bigtable's hard limit on one row.
const ROW_LIMIT: f64 = 256.0 * 1024.0 * 1024.0;
/// Where a row counts as large ("several megabytes").
const LARGE_ROW: f64 = 10.0 * 1024.0 * 1024.0;
/// Keys longer than this (typical example) are flagged.
const LONG_KEY: usize = 100;
/// Longest family name that counts as short.
const LONG_FAMILY: usize = 16;
/// Segments with at most this many values do not spread writes.
const FEW_VALUES: u64 = 32;
/// How far ahead rows are projected when nothing bounds their life.
const HORIZON_DAYS: f64 = 365.0;

struct Cx<'a> {
    d: &'a Design,
    report: Option<&'a Report>,
    main: String,
    out: Vec<Finding>,
}

impl Cx<'_> {
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        rule: RuleId,
        severity: Severity,
        target: Target,
        title: String,
        why: &str,
        evidence: Vec<String>,
        fixes: Vec<Fix>,
    ) {
        let info = rule.info();
        self.out.push(Finding {
            rule,
            severity,
            target,
            title,
            why: why.to_string(),
            seed_topic: info.seed_topic.to_string(),
            evidence,
            fixes,
            lesson: info.lesson.to_string(),
        });
    }

    fn diag(&self, p: Pattern) -> Option<&Diagnostic> {
        self.report?.diagnostics.iter().find(|d| d.pattern == p)
    }

    fn seg_target(&self, key: &KeyTemplate, i: usize) -> Target {
        Target::Segment {
            table: self.main.clone(),
            index: i,
            name: key
                .segments
                .get(i)
                .map(|s| s.name.clone())
                .unwrap_or_default(),
        }
    }
}

/// Runs every rule; findings most severe first, then in rule order.
pub(crate) fn run(d: &Design, report: Option<&Report>) -> Vec<Finding> {
    let mut cx = Cx {
        d,
        report,
        main: d
            .main_table()
            .map_or_else(|| "table".to_string(), |t| t.id.clone()),
        out: Vec::new(),
    };
    if let Some(key) = &d.key {
        timestamp_first(&mut cx, key);
        sequential_id_first(&mut cx, key);
        hashed_key(&mut cx, key);
        unpadded_number(&mut cx, key);
        key_too_long(&mut cx, key);
        frequently_updated_row(&mut cx, key);
        domain_not_reversed(&mut cx, key);
        pii_segments(&mut cx, key);
        unqueryable_suffix(&mut cx, key);
        wide_row(&mut cx, key);
    }
    many_small_cells(&mut cx);
    pii_families(&mut cx);
    no_gc_rule(&mut cx);
    mixed_retention(&mut cx);
    too_many_families(&mut cx);
    long_family_name(&mut cx);
    table_per_tenant(&mut cx);
    let order = |r: RuleId| {
        RuleId::ALL
            .iter()
            .position(|x| *x == r)
            .unwrap_or(usize::MAX)
    };
    cx.out.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(order(a.rule).cmp(&order(b.rule)))
            .then(a.target.cmp(&b.target))
    });
    cx.out
}

// ---- key helpers ----

/// Where writes land first: the first segment with many values, skipping
/// constants and few-valued segments. `Err(i)`: a salt or hash at `i`
/// spreads writes before any such segment.
fn lead(key: &KeyTemplate, entities: u64) -> Option<Result<usize, usize>> {
    for (i, seg) in key.segments.iter().enumerate() {
        match &seg.kind {
            SegmentKind::Const { .. } => {}
            SegmentKind::Salt { buckets, .. } if *buckets >= 2 => return Some(Err(i)),
            SegmentKind::Salt { .. } => {}
            SegmentKind::Hash { .. } => return Some(Err(i)),
            SegmentKind::Enum { values, .. } if values.len() as u64 <= FEW_VALUES => {}
            SegmentKind::Tenant { tenants, .. } if u64::from(*tenants) <= FEW_VALUES => {}
            _ if seg.kind.is_time() => return Some(Ok(i)),
            _ => match seg.cardinality(entities) {
                Cardinality::Finite(c) if c <= FEW_VALUES => {}
                _ => return Some(Ok(i)),
            },
        }
    }
    None
}

/// A segment with many values that stays the same for an entity (a
/// device id, a user name): what should lead a key.
fn is_entity_spread(seg: &Segment, entities: u64) -> bool {
    if seg.kind.is_time() || seg.varies_per_op() {
        return false;
    }
    match &seg.kind {
        SegmentKind::Hash { .. } | SegmentKind::Salt { .. } | SegmentKind::Const { .. } => false,
        SegmentKind::Int {
            reversed: false, ..
        } => false,
        _ => matches!(seg.cardinality(entities), Cardinality::Finite(c) if c > FEW_VALUES),
    }
}

fn examples(key: &KeyTemplate) -> String {
    key.examples(3).join(", ")
}

fn write_rate(d: &Design) -> f64 {
    d.workloads
        .iter()
        .filter(|w| w.op == OpKind::Write)
        .map(|w| w.rate)
        .sum()
}

fn salt_segment(key: &KeyTemplate, d: &Design) -> Segment {
    let of = key
        .segments
        .iter()
        .find(|s| is_entity_spread(s, d.entities))
        .map(|s| s.name.clone());
    let buckets = (d.nodes.saturating_mul(4)).clamp(8, 100);
    Segment {
        name: fresh_name("salt", |n| key.segment_index(n).is_some()),
        kind: SegmentKind::Salt { buckets, of },
    }
}

// ---- row-key rules ----

const WHY_TIMESTAMP_FIRST: &str = "Rows are stored in key order, and time only moves forward: when the key begins with the time, every new row sorts right after the previous one. All inserts then hit the last tablet, served by one node, while the others idle. Put a value with many distinct values (a device or user id) in front of the time, or spread the writes with a salt.";

fn timestamp_first(cx: &mut Cx<'_>, key: &KeyTemplate) {
    let d = cx.d;
    let Some(Ok(t)) = lead(key, d.entities) else {
        return;
    };
    let Some(seg) = key.segments.get(t) else {
        return;
    };
    if !seg.kind.is_time() {
        return;
    }
    let mut evidence = vec![format!("keys look like {}", examples(key))];
    let rate = write_rate(d);
    if rate > 0.0 {
        evidence.push(format!(
            "{} go to the newest end of the key space; one node serves about {:.0} writes/s",
            per_second(rate, "write"),
            d.writes_per_node
        ));
    }
    if let Some(diag) = cx.diag(Pattern::SequentialWrites) {
        evidence.push(format!("simulation: {}", diag.evidence));
    }
    let mut fixes = Vec::new();
    let after: Vec<usize> = (t + 1..key.segments.len())
        .filter(|&i| {
            key.segments
                .get(i)
                .is_some_and(|s| is_entity_spread(s, d.entities))
        })
        .collect();
    if !after.is_empty() {
        // Move the time behind the entity segments: just before the first
        // per-operation segment that follows them, or to the end.
        let last_entity = after.last().copied().unwrap_or(t);
        let to = (last_entity + 1..key.segments.len())
            .find(|&i| {
                key.segments
                    .get(i)
                    .is_some_and(|s| s.varies_per_op() && !s.kind.is_time())
            })
            .map_or(key.segments.len() - 1, |i| i - 1);
        fixes.push(Fix::new(
            format!(
                "Move `{}` behind `{}`: each {} then appends to its own range",
                seg.name,
                key.segments
                    .get(last_entity)
                    .map_or("", |s| s.name.as_str()),
                key.segments
                    .get(after[0])
                    .map_or("entity", |s| s.name.as_str())
            ),
            vec![Edit::MoveSegment {
                segment: seg.name.clone(),
                to,
            }],
        ));
    }
    let salt = salt_segment(key, d);
    let buckets = match salt.kind {
        SegmentKind::Salt { buckets, .. } => buckets,
        _ => 8,
    };
    fixes.push(Fix::new(
        format!(
            "Put a {buckets}-bucket salt in front so writes advance in {buckets} places at once"
        ),
        vec![Edit::InsertSegment {
            at: 0,
            segment: salt,
        }],
    ));
    let title = format!("The key starts with the time segment `{}`", seg.name);
    cx.add(
        RuleId::TimestampFirst,
        Severity::Error,
        cx.seg_target(key, t),
        title,
        WHY_TIMESTAMP_FIRST,
        evidence,
        fixes,
    );
}

const WHY_SEQUENTIAL_ID: &str = "Numeric ids handed out in order put the newest users, orders or devices at the end of the key space, and the newest ones are usually the busiest. Their traffic lands on a few tablets of one node. Reversing the digits keeps ids readable and unique but scatters consecutive ids across the table.";

fn sequential_id_first(cx: &mut Cx<'_>, key: &KeyTemplate) {
    let d = cx.d;
    let Some(Ok(i)) = lead(key, d.entities) else {
        return;
    };
    let Some(seg) = key.segments.get(i) else {
        return;
    };
    let SegmentKind::Int {
        reversed: false,
        per,
        ..
    } = seg.kind
    else {
        return;
    };
    let sequential_writes = d
        .workloads
        .iter()
        .any(|w| w.op == OpKind::Write && w.keys == KeyDist::Sequential);
    // A plain numeric id counts only when nothing but constants precedes
    // it; behind a few-valued prefix (a product name, a region) it may be
    // any number, unless the writes show it is handed out in order.
    let literally_first = key.segments[..i]
        .iter()
        .all(|s| matches!(s.kind, SegmentKind::Const { .. }));
    let severity = if per == Per::Op || sequential_writes {
        Severity::Error
    } else if literally_first {
        Severity::Warning
    } else {
        return;
    };
    let mut evidence = vec![format!("keys look like {}", examples(key))];
    if sequential_writes {
        evidence.push("new rows are written in id order".into());
    }
    if per == Per::Op {
        evidence.push(format!("`{}` is a running sequence number", seg.name));
    }
    if let Some(diag) = cx.diag(Pattern::SequentialWrites) {
        evidence.push(format!("simulation: {}", diag.evidence));
    }
    let fixes = vec![
        Fix::new(
            format!("Reverse the digits of `{}`", seg.name),
            vec![Edit::ReverseSegment {
                segment: seg.name.clone(),
            }],
        ),
        Fix::new(
            "Put a salt derived from the id in front".to_string(),
            vec![Edit::InsertSegment {
                at: 0,
                segment: Segment {
                    name: fresh_name("salt", |n| key.segment_index(n).is_some()),
                    kind: SegmentKind::Salt {
                        buckets: d.nodes.saturating_mul(4).clamp(8, 100),
                        of: Some(seg.name.clone()),
                    },
                },
            }],
        ),
    ];
    cx.add(
        RuleId::SequentialIdFirst,
        severity,
        cx.seg_target(key, i),
        format!("The key starts with the sequential number `{}`", seg.name),
        WHY_SEQUENTIAL_ID,
        evidence,
        fixes,
    );
}

const WHY_HASHED: &str = "A hash in front of the key scatters rows, but it throws away the order Bigtable gives you for free: related rows are no longer next to each other, ranges of them can no longer be read with one scan, and the Key Visualizer shows only meaningless hex. Prefer readable values; if writes need spreading, a salt with a handful of buckets keeps ranges readable.";

fn hashed_key(cx: &mut Cx<'_>, key: &KeyTemplate) {
    for (i, seg) in key.segments.iter().enumerate() {
        let SegmentKind::Hash { of, width } = &seg.kind else {
            continue;
        };
        let Some(src) = key.segment_index(of) else {
            continue;
        };
        if src < i {
            continue;
        }
        let evidence = vec![
            format!("keys look like {}", examples(key)),
            format!(
                "`{}` has {} possible values, so a read that does not know `{of}` has to scan them all",
                seg.name,
                16u64.saturating_pow(u32::from(*width))
            ),
        ];
        let fixes = vec![
            Fix::new(
                format!("Drop `{}` and let `{of}` order the rows", seg.name),
                vec![Edit::RemoveSegment {
                    segment: seg.name.clone(),
                }],
            ),
            Fix::new(
                format!("Replace `{}` with an 8-bucket salt of `{of}`", seg.name),
                vec![Edit::ReplaceSegment {
                    segment: seg.name.clone(),
                    with: Segment {
                        name: seg.name.clone(),
                        kind: SegmentKind::Salt {
                            buckets: 8,
                            of: Some(of.clone()),
                        },
                    },
                }],
            ),
        ];
        cx.add(
            RuleId::HashedKey,
            Severity::Warning,
            cx.seg_target(key, i),
            format!("A hash of `{of}` (`{}`) decides the row order", seg.name),
            WHY_HASHED,
            evidence,
            fixes,
        );
    }
}

const WHY_UNPADDED: &str = "Keys compare as bytes, not as numbers: without leading zeros `3` sorts after `20`, and a range such as 100 to 199 also catches 1000 to 1999. Padding every number to the same width makes byte order and numeric order agree, which range reads over ids or times depend on.";

fn unpadded_number(cx: &mut Cx<'_>, key: &KeyTemplate) {
    let d = cx.d;
    for (i, seg) in key.segments.iter().enumerate() {
        let SegmentKind::Int {
            width: None, per, ..
        } = seg.kind
        else {
            continue;
        };
        let width = match per {
            Per::Op => 12,
            Per::Entity => (digits(d.entities) + 1).clamp(6, 20),
        } as u8;
        let evidence = vec![
            format!("keys look like {}", examples(key)),
            "in byte order: 1, 10, 100, 11, 2, 20, 3".to_string(),
        ];
        cx.add(
            RuleId::UnpaddedNumber,
            Severity::Warning,
            cx.seg_target(key, i),
            format!("The number `{}` is not zero-padded", seg.name),
            WHY_UNPADDED,
            evidence,
            vec![Fix::new(
                format!("Zero-pad `{}` to {width} digits", seg.name),
                vec![Edit::PadSegment {
                    segment: seg.name.clone(),
                    width,
                }],
            )],
        );
    }
}

const WHY_LONG_KEY: &str = "The row key is stored with every cell and sent with every response. Long keys cost memory, disk and network on every request and make the server slower to answer; Bigtable refuses keys over 4 KiB outright. Keep the identifying values and make each one as short as it can be while staying readable.";

fn key_too_long(cx: &mut Cx<'_>, key: &KeyTemplate) {
    let ex = key.examples(32);
    let longest = ex.iter().map(String::len).max().unwrap_or(0);
    if longest <= LONG_KEY {
        return;
    }
    // Bytes each segment contributes on average.
    let mut sizes = vec![0usize; key.segments.len()];
    for k in &ex {
        for p in key.split_key(k.as_bytes()) {
            if let Some(s) = sizes.get_mut(p.segment) {
                *s += p.range.len();
            }
        }
    }
    let mut order: Vec<usize> = (0..key.segments.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes.get(i).copied().unwrap_or(0)));
    let mut fixes = Vec::new();
    for i in order {
        let Some(seg) = key.segments.get(i) else {
            continue;
        };
        let with = match &seg.kind {
            SegmentKind::Const { value } if value.len() > 8 => SegmentKind::Const {
                value: abbreviate(value, 8),
            },
            SegmentKind::Enum {
                values,
                weights,
                per,
            } if values.iter().any(|v| v.len() > 6) => SegmentKind::Enum {
                values: short_values(values),
                weights: weights.clone(),
                per: *per,
            },
            SegmentKind::Uuid { per } => SegmentKind::Hex {
                width: 16,
                per: *per,
            },
            SegmentKind::Hash { of, width } if *width > 8 => SegmentKind::Hash {
                of: of.clone(),
                width: 8,
            },
            SegmentKind::Hex { width, per } if *width > 16 => SegmentKind::Hex {
                width: 16,
                per: *per,
            },
            _ => continue,
        };
        fixes.push(Fix::new(
            format!("Shorten `{}`", seg.name),
            vec![Edit::ReplaceSegment {
                segment: seg.name.clone(),
                with: Segment {
                    name: seg.name.clone(),
                    kind: with,
                },
            }],
        ));
    }
    // One fix that shortens everything that can be, then the two largest
    // parts on their own.
    if fixes.len() > 1 {
        let all: Vec<Edit> = fixes.iter().flat_map(|f| f.edits.clone()).collect();
        fixes.truncate(2);
        fixes.insert(
            0,
            Fix::new("Shorten every segment that can be shorter".to_string(), all),
        );
    }
    let severity = if longest > 1024 {
        Severity::Error
    } else {
        Severity::Warning
    };
    let evidence = vec![
        format!(
            "keys are up to {longest} bytes, e.g. {}",
            ex.first().cloned().unwrap_or_default()
        ),
        format!(
            "largest parts: {}",
            key.segments
                .iter()
                .zip(&sizes)
                .filter(|(_, s)| **s > 0)
                .map(|(seg, s)| format!("{} ~{} B", seg.name, s / ex.len().max(1)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ];
    cx.add(
        RuleId::KeyTooLong,
        severity,
        Target::Key {
            table: cx.main.clone(),
        },
        format!("Row keys are up to {longest} bytes long"),
        WHY_LONG_KEY,
        evidence,
        fixes,
    );
}

/// The shortest prefixes (at least 3 characters) that keep values apart.
fn short_values(values: &[String]) -> Vec<String> {
    for len in 3..=64 {
        let cut: Vec<String> = values
            .iter()
            .map(|v| v.chars().take(len).collect())
            .collect();
        let unique: BTreeSet<&String> = cut.iter().collect();
        if unique.len() == values.len() {
            return cut;
        }
    }
    values.to_vec()
}

/// Share of the writes the busiest entity gets.
fn top_share(dist: KeyDist, entities: u64) -> Option<f64> {
    let n = entities.max(1);
    match dist {
        KeyDist::Uniform => Some(1.0 / n as f64),
        KeyDist::HotKey => Some(1.0),
        KeyDist::Sequential => None,
        KeyDist::Zipf(s) => {
            let exact = n.min(100_000);
            let mut h = 0.0;
            for k in 1..=exact {
                h += tabletop_design::rng::det_pow(k as f64, -s);
            }
            if n > exact {
                let (a, b) = (exact as f64, n as f64);
                h += if (s - 1.0).abs() < 1e-9 {
                    tabletop_design::rng::det_ln(b / a)
                } else {
                    (tabletop_design::rng::det_pow(b, 1.0 - s)
                        - tabletop_design::rng::det_pow(a, 1.0 - s))
                        / (1.0 - s)
                };
            }
            Some(1.0 / h.max(1.0))
        }
    }
}

/// Whether every write creates a new row (a millisecond timestamp, a
/// per-operation id...).
fn unique_rows(key: &KeyTemplate, entities: u64) -> bool {
    key.segments
        .iter()
        .any(|s| s.cardinality(entities) == Cardinality::Unique)
}

/// Rows one entity writes to at the same time (per-op segments with a
/// few values).
fn rows_at_once(key: &KeyTemplate, entities: u64) -> f64 {
    key.segments
        .iter()
        .filter(|s| s.varies_per_op() && !s.kind.is_time())
        .map(|s| match s.cardinality(entities) {
            Cardinality::Finite(c) => c.max(1) as f64,
            _ => 1.0,
        })
        .product()
}

/// Writes per second the busiest row gets, and where they come from.
fn hottest_row(d: &Design, key: &KeyTemplate) -> Option<(f64, String)> {
    let mut best: Option<(f64, String)> = None;
    // A row that lives for one period (a second, a day) counts as updated
    // only if it gets several writes in that time.
    let life = key
        .row_period_seconds(d.entities)
        .filter(|p| *p > 0.0)
        .unwrap_or(f64::INFINITY);
    let mut consider = |rate: f64, what: String| {
        let rate = if rate * life < 10.0 { 0.0 } else { rate };
        if best.as_ref().is_none_or(|(b, _)| rate > *b) {
            best = Some((rate, what));
        }
    };
    if !unique_rows(key, d.entities) {
        let spread = rows_at_once(key, d.entities);
        for w in d.workloads.iter().filter(|w| w.op == OpKind::Write) {
            if let Some(share) = top_share(w.keys, d.entities) {
                let label = if w.name.is_empty() {
                    "a write workload".to_string()
                } else {
                    format!("workload \"{}\"", w.name)
                };
                consider(w.rate * share / spread, label);
            }
        }
        for c in d.columns.iter().filter(|c| !c.is_placeholder()) {
            consider(
                c.writes_per_day / 86_400.0,
                format!(
                    "column {}:{} ({} writes a day)",
                    c.family, c.qualifier, c.writes_per_day
                ),
            );
        }
    }
    best
}

const WHY_HOT_ROW: &str = "A row lives on exactly one tablet and cannot be split, so a row that is rewritten many times a second keeps one node busy no matter how many nodes the cluster has. Every update also adds a cell version that stays until garbage collection, so the row keeps growing. Write each new value as its own row (for example device#metric#timestamp); for a counter that changes constantly, keep it in the application or in an aggregate cell and write it out now and then.";

fn frequently_updated_row(cx: &mut Cx<'_>, key: &KeyTemplate) {
    let d = cx.d;
    let hottest = hottest_row(d, key);
    let diag = cx.diag(Pattern::HotRow).cloned();
    let rate = hottest.as_ref().map_or(0.0, |(r, _)| *r);
    if rate < 1.0 && diag.is_none() {
        return;
    }
    let severity = if rate >= 100.0
        || diag
            .as_ref()
            .is_some_and(|g| g.severity == tabletop_design::keyviz::Severity::Critical)
    {
        Severity::Error
    } else {
        Severity::Warning
    };
    let mut evidence = Vec::new();
    if let Some((r, what)) = &hottest
        && *r >= 1.0
    {
        evidence.push(format!(
            "the busiest row gets {} from {what}; keys look like {}",
            per_second(*r, "write"),
            examples(key)
        ));
    }
    if let Some(g) = &diag {
        evidence.push(format!("simulation: {}", g.evidence));
    }
    let name = fresh_name("ts", |n| key.segment_index(n).is_some());
    let fixes = vec![Fix::new(
        format!("Write every value as a new row: add a timestamp `{name}` at the end of the key"),
        vec![Edit::InsertSegment {
            at: key.segments.len(),
            segment: Segment {
                name,
                kind: SegmentKind::Timestamp {
                    unit: TimeUnit::Millis,
                    reversed: false,
                },
            },
        }],
    )];
    cx.add(
        RuleId::FrequentlyUpdatedRow,
        severity,
        Target::Key {
            table: cx.main.clone(),
        },
        "The same rows are rewritten many times a second".to_string(),
        WHY_HOT_ROW,
        evidence,
        fixes,
    );
}

const WHY_DOMAIN: &str = "Host names read from the most specific label to the most general one, so in byte order `maps.example.com` sits next to other sites' `maps.*`, not next to `www.example.com`. Reversed (`com.example.maps`) all hosts of a site are neighbours: a site becomes one prefix scan, and similar neighbouring rows compress better.";

fn domain_not_reversed(cx: &mut Cx<'_>, key: &KeyTemplate) {
    for (i, seg) in key.segments.iter().enumerate() {
        let SegmentKind::Domain {
            reversed: false, ..
        } = seg.kind
        else {
            continue;
        };
        cx.add(
            RuleId::DomainNotReversed,
            Severity::Warning,
            cx.seg_target(key, i),
            format!("The domain names in `{}` are not reversed", seg.name),
            WHY_DOMAIN,
            vec![format!("keys look like {}", examples(key))],
            vec![Fix::new(
                format!("Reverse the labels of `{}` (com.example.www)", seg.name),
                vec![Edit::ReverseSegment {
                    segment: seg.name.clone(),
                }],
            )],
        );
    }
}

const WHY_PII: &str = "Row keys and family names are not only your data: Bigtable also treats them as service data, and they turn up in logs, metrics, tools such as the Key Visualizer and error messages that people without access to the data may see. Identify people by an opaque id and keep names, e-mail addresses and the like in cell values.";

fn pii_segments(cx: &mut Cx<'_>, key: &KeyTemplate) {
    for (i, seg) in key.segments.iter().enumerate() {
        let by_kind = matches!(seg.kind, SegmentKind::Name { .. });
        if !(by_kind || names_pii(&seg.name)) {
            continue;
        }
        let per = match seg.kind {
            SegmentKind::Name { per }
            | SegmentKind::Uuid { per }
            | SegmentKind::Hex { per, .. }
            | SegmentKind::Int { per, .. }
            | SegmentKind::Enum { per, .. } => per,
            _ => Per::Entity,
        };
        let base = if by_kind
            || words(&seg.name)
                .iter()
                .any(|w| w.contains("mail") || w.contains("name") || w == "user")
        {
            "user_id".to_string()
        } else {
            format!(
                "{}_id",
                words(&seg.name)
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "entity".into())
            )
        };
        let new_name = fresh_name(&base, |n| key.segment_index(n).is_some());
        cx.add(
            RuleId::PiiInKey,
            Severity::Warning,
            cx.seg_target(key, i),
            format!("Key segment `{}` holds personal data", seg.name),
            WHY_PII,
            vec![format!("keys look like {}", examples(key))],
            vec![Fix::new(
                format!("Key by an opaque id `{new_name}` instead of `{}`", seg.name),
                vec![Edit::ReplaceSegment {
                    segment: seg.name.clone(),
                    with: Segment {
                        name: new_name,
                        kind: SegmentKind::Hex { width: 12, per },
                    },
                }],
            )],
        );
    }
}

fn pii_families(cx: &mut Cx<'_>) {
    let d = cx.d;
    for t in &d.tables {
        for name in t.families.keys() {
            if !names_pii(name) {
                continue;
            }
            let to = fresh_name("contact", |n| t.families.contains_key(n));
            cx.add(
                RuleId::PiiInKey,
                Severity::Warning,
                Target::Family {
                    table: t.id.clone(),
                    family: name.clone(),
                },
                format!("Family name `{name}` names personal data"),
                WHY_PII,
                vec![format!("table {} has a family `{name}`", t.id)],
                vec![Fix::new(
                    format!("Rename family `{name}` to `{to}`"),
                    vec![Edit::RenameFamily {
                        table: t.id.clone(),
                        family: name.clone(),
                        to,
                    }],
                )],
            );
        }
    }
}

const WHY_SUFFIX: &str = "Bigtable finds rows only through the row key, read from the left: a read can use a key prefix or a range between two keys, nothing else. A value in the middle or at the end of the key cannot narrow a read when the segments in front of it are unknown, so the read has to pass over every row and filter. Order the segments so that what your important reads know comes first.";

fn unqueryable_suffix(cx: &mut Cx<'_>, key: &KeyTemplate) {
    let d = cx.d;
    let plans: Vec<(usize, AccessPlan)> = d
        .access
        .iter()
        .enumerate()
        .map(|(i, a)| (i, classify(key, a, d.entities)))
        .collect();
    for (i, plan) in plans {
        let Some(a) = d.access.get(i) else {
            continue;
        };
        let has_fields = !a.fixed.is_empty() || a.range.is_some();
        // A range read that still filters key segments behind its prefix:
        // flagged when it covers at least 1% of the table, or when it is a
        // range on the very first segment (its share cannot be told).
        let behind: Vec<&String> = plan
            .filtered
            .iter()
            .filter(|f| !plan.missing.contains(f))
            .collect();
        let partial = plan.shape != ReadShape::FullScan
            && plan.shape != ReadShape::Point
            && !behind.is_empty()
            && plan.scan_fraction.is_none_or(|f| f >= 0.01);
        if !(has_fields && (plan.shape == ReadShape::FullScan || partial)) {
            continue;
        }
        let mut evidence = vec![format!(
            "{}: {}",
            plan.shape.describe(),
            plan.row_set.join("; ")
        )];
        match plan.scan_fraction {
            Some(f) if plan.shape != ReadShape::FullScan => evidence.push(format!(
                "it scans about {:.0}% of the table to return far fewer rows",
                f * 100.0
            )),
            None => evidence.push(format!(
                "the range on `{}` covers every {} in it",
                plan.range_segment.as_deref().unwrap_or("the first segment"),
                behind
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            )),
            _ => {}
        }
        if let Some(g) = cx.diag(Pattern::FullScans) {
            evidence.push(format!("simulation: {}", g.evidence));
        }
        // Move what the read knows to where the walk stopped: fixed fields
        // in the order given, the range last.
        let mut edits = Vec::new();
        let mut at = plan.stop;
        let mut template = key.clone();
        let mut wanted: Vec<(&String, bool)> = a.fixed.iter().map(|f| (f, false)).collect();
        if let Some(r) = &a.range {
            wanted.push((r, true));
        }
        for (field, _) in wanted {
            if !plan.filtered.contains(field) {
                continue;
            }
            let (seg, site) = tabletop_design::scenario::field_segment(field);
            if let Some(i) = template.segment_index(seg) {
                // A site is a prefix only of a reversed domain.
                if site
                    && let Some(SegmentKind::Domain { reversed, .. }) =
                        template.segments.get_mut(i).map(|s| &mut s.kind)
                    && !*reversed
                {
                    *reversed = true;
                    edits.push(Edit::ReverseSegment {
                        segment: seg.to_string(),
                    });
                }
                if i != at {
                    edits.push(Edit::MoveSegment {
                        segment: seg.to_string(),
                        to: at,
                    });
                    let s = template.segments.remove(i);
                    template.segments.insert(at.min(template.segments.len()), s);
                }
            } else {
                let s = guess_segment(seg, &template);
                edits.push(Edit::InsertSegment {
                    at,
                    segment: s.clone(),
                });
                template.segments.insert(at.min(template.segments.len()), s);
            }
            at += 1;
        }
        let fixes = if edits.is_empty() {
            Vec::new()
        } else {
            vec![Fix::new(
                format!(
                    "Bring {} forward in the key so \"{}\" reads a prefix",
                    plan.filtered
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    a.name
                ),
                edits,
            )]
        };
        cx.add(
            RuleId::UnqueryableSuffix,
            Severity::Warning,
            Target::Access {
                name: a.name.clone(),
            },
            format!(
                "\"{}\" must filter {} instead of reading a key range",
                a.name,
                plan.filtered
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            WHY_SUFFIX,
            evidence,
            fixes,
        );
    }
}

/// A segment for a field the key lacks, guessed from its name.
fn guess_segment(name: &str, key: &KeyTemplate) -> Segment {
    let w = words(name);
    let has = |x: &str| w.iter().any(|v| v == x);
    let kind = if has("month") {
        SegmentKind::Date {
            format: DateFormat::Month,
        }
    } else if has("hour") {
        SegmentKind::Date {
            format: DateFormat::Hour,
        }
    } else if has("day") || has("date") {
        SegmentKind::Date {
            format: DateFormat::Day,
        }
    } else if has("ts") || has("time") || has("timestamp") {
        SegmentKind::Timestamp {
            unit: TimeUnit::Millis,
            reversed: false,
        }
    } else if has("id") || has("uuid") {
        SegmentKind::Hex {
            width: 8,
            per: Per::Entity,
        }
    } else {
        let stem = w.first().cloned().unwrap_or_else(|| "value".into());
        SegmentKind::Enum {
            values: vec![format!("{stem}_a"), format!("{stem}_b")],
            weights: Vec::new(),
            per: Per::Entity,
        }
    };
    let probe = Segment {
        name: name.to_string(),
        kind: kind.clone(),
    };
    let name = if probe.validate().is_ok() {
        name.to_string()
    } else {
        "field".to_string()
    };
    Segment {
        name: fresh_name(&name, |n| key.segment_index(n).is_some()),
        kind,
    }
}

// ---- rows and cells ----

/// Days a row keeps receiving writes: its key's time period, or the
/// projection horizon when nothing in the key changes over time.
fn row_life_days(key: &KeyTemplate, entities: u64) -> f64 {
    match key.row_period_seconds(entities) {
        Some(p) if p > 0.0 => p / 86_400.0,
        Some(_) => 0.0,
        None => HORIZON_DAYS,
    }
}

fn family_of<'a>(d: &'a Design, name: &str) -> Option<&'a FamilyDesign> {
    d.main_table().and_then(|t| t.families.get(name))
}

struct RowSize {
    bytes: f64,
    /// Bytes that come from growth over time (new versions, new columns).
    growth: f64,
    /// Bytes of placeholder columns present at once.
    wide: f64,
    /// The largest contributor.
    top: String,
}

fn row_size(d: &Design, key: &KeyTemplate) -> RowSize {
    let life = row_life_days(key, d.entities);
    let mut size = RowSize {
        bytes: 0.0,
        growth: 0.0,
        wide: 0.0,
        top: String::new(),
    };
    let mut top = 0.0;
    for c in &d.columns {
        let fam = family_of(d, &c.family).cloned().unwrap_or_default();
        let days = fam.max_age.map_or(life, |a| life.min(a.0 / 86_400.0));
        let new_cells = c.writes_per_day * days;
        let cell = c.bytes as f64 + c.qualifier.len() as f64 + 8.0;
        let (now, grow) = if c.is_placeholder() {
            (c.per_row as f64, new_cells)
        } else {
            let versions = 1.0 + new_cells;
            let kept = fam
                .max_versions
                .map_or(versions, |v| versions.min(f64::from(v)));
            (c.per_row as f64, c.per_row as f64 * (kept - 1.0).max(0.0))
        };
        let bytes = (now + grow) * cell;
        size.bytes += bytes;
        size.growth += grow * cell;
        if c.is_placeholder() {
            size.wide += now * cell;
        }
        if bytes > top {
            top = bytes;
            size.top = format!("{}:{}", c.family, c.qualifier);
        }
    }
    // Updates by the write workloads add versions to reused rows.
    if !unique_rows(key, d.entities) {
        let spread = rows_at_once(key, d.entities);
        for w in d.workloads.iter().filter(|w| w.op == OpKind::Write) {
            let Some(share) = top_share(w.keys, d.entities) else {
                continue;
            };
            let fam_name = w
                .family
                .clone()
                .or_else(|| {
                    d.main_table()
                        .and_then(|t| t.families.keys().next().cloned())
                })
                .unwrap_or_default();
            let fam = family_of(d, &fam_name).cloned().unwrap_or_default();
            let days = fam.max_age.map_or(life, |a| life.min(a.0 / 86_400.0));
            let updates = w.rate * share / spread * days * 86_400.0;
            let kept = fam
                .max_versions
                .map_or(updates, |v| updates.min(f64::from(v)));
            let bytes = kept * w.value_bytes.unwrap_or(1024) as f64;
            size.bytes += bytes;
            size.growth += bytes;
            if bytes > top {
                top = bytes;
                size.top = if w.name.is_empty() {
                    "updates of a write workload".to_string()
                } else {
                    format!("updates of workload \"{}\"", w.name)
                };
            }
        }
    }
    size
}

const WHY_WIDE_ROW: &str = "Keeping everything about an entity in one row is good: a row is the unit Bigtable updates atomically. But a row is read and served as a whole by one node, values in a row should stay below about 100 MiB and a row can never pass 256 MiB. Once a row heads towards several megabytes, cap what it keeps with a garbage-collection rule or spread the data over more rows, for example one row per entity and day.";

fn wide_row(cx: &mut Cx<'_>, key: &KeyTemplate) {
    let d = cx.d;
    let size = row_size(d, key);
    let diag = cx.diag(Pattern::LargeRows).cloned();
    if size.bytes < LARGE_ROW && diag.is_none() {
        return;
    }
    let severity = if size.bytes >= ROW_LIMIT
        || diag
            .as_ref()
            .is_some_and(|g| g.severity == tabletop_design::keyviz::Severity::Critical)
    {
        Severity::Error
    } else {
        Severity::Warning
    };
    let life = row_life_days(key, d.entities);
    let mut evidence = Vec::new();
    if size.bytes >= LARGE_ROW {
        evidence.push(format!(
            "a row reaches about {} {}; most of it is {}",
            human_bytes(size.bytes),
            if life >= HORIZON_DAYS {
                "within a year".to_string()
            } else {
                format!("over its {life:.0} day(s)")
            },
            size.top
        ));
    }
    if let Some(g) = &diag {
        evidence.push(format!("simulation: {}", g.evidence));
    }
    let mut fixes = Vec::new();
    let has_time = key.segments.iter().any(|s| s.kind.is_time());
    if size.growth >= size.wide && !has_time {
        let name = fresh_name("day", |n| key.segment_index(n).is_some());
        fixes.push(Fix::new(
            format!("Start a new row every day: add `{name}` (yyyymmdd) at the end of the key"),
            vec![Edit::InsertSegment {
                at: key.segments.len(),
                segment: Segment {
                    name,
                    kind: SegmentKind::Date {
                        format: DateFormat::Day,
                    },
                },
            }],
        ));
    }
    if size.growth > 0.0 {
        // Cap versions where they pile up in a family without a cap.
        let mut edits = Vec::new();
        if let Some(t) = d.main_table() {
            for (name, fam) in &t.families {
                if fam.max_versions.is_some() || fam.aggregate {
                    continue;
                }
                let needed: Option<u32> = d
                    .columns
                    .iter()
                    .filter(|c| &c.family == name && !c.is_placeholder())
                    .filter_map(|c| c.keep_versions)
                    .max();
                let grows =
                    d.columns.iter().any(|c| {
                        &c.family == name && !c.is_placeholder() && c.writes_per_day > 0.0
                    }) || d.workloads.iter().any(|w| {
                        w.op == OpKind::Write
                            && w.family.as_deref().unwrap_or_else(|| {
                                t.families.keys().next().map_or("", String::as_str)
                            }) == name
                    });
                if grows {
                    edits.push(Edit::SetGc {
                        table: t.id.clone(),
                        family: name.clone(),
                        max_versions: Some(needed.unwrap_or(1)),
                        max_age: fam.max_age,
                    });
                }
            }
        }
        if !edits.is_empty() {
            fixes.push(Fix::new(
                "Keep only the versions you need with a GC rule".to_string(),
                edits,
            ));
        }
    }
    if size.wide > size.growth
        && let Some(c) = d
            .columns
            .iter()
            .filter(|c| c.is_placeholder())
            .max_by(|a, b| (a.per_row * a.bytes).cmp(&(b.per_row * b.bytes)))
    {
        let item = c.qualifier.trim_matches(['{', '}']);
        let name = fresh_name(if item.is_empty() { "item" } else { item }, |n| {
            key.segment_index(n).is_some()
        });
        let seg = Segment {
            name: name.clone(),
            kind: SegmentKind::Hex {
                width: 12,
                per: Per::Op,
            },
        };
        let seg = if seg.validate().is_ok() {
            seg
        } else {
            Segment {
                name: fresh_name("item", |n| key.segment_index(n).is_some()),
                kind: SegmentKind::Hex {
                    width: 12,
                    per: Per::Op,
                },
            }
        };
        fixes.push(Fix::new(
            format!(
                "Give every {} its own row: add `{}` to the key",
                c.qualifier, seg.name
            ),
            vec![
                Edit::InsertSegment {
                    at: key.segments.len(),
                    segment: seg,
                },
                Edit::UpdateColumn {
                    family: c.family.clone(),
                    qualifier: c.qualifier.clone(),
                    new_qualifier: Some("value".into()),
                    per_row: Some(1),
                    writes_per_day: Some(0.0),
                },
            ],
        ));
    }
    cx.add(
        RuleId::WideRow,
        severity,
        Target::Table {
            table: cx.main.clone(),
        },
        format!("Rows grow to about {}", human_bytes(size.bytes.max(0.0))),
        WHY_WIDE_ROW,
        evidence,
        fixes,
    );
}

const WHY_SMALL_CELLS: &str = "Every cell carries its own family, qualifier and timestamp, and Bigtable spends time on each one. A kilobyte kept as one value is far cheaper to store, send and process than the same kilobyte spread over a thousand one-byte cells. When a row has many small values that are read together, or when you cannot yet say which values queries will need, store them as one serialized value (a protocol buffer or JSON) in a single column.";

fn many_small_cells(cx: &mut Cx<'_>) {
    let d = cx.d;
    let mut by_family: BTreeMap<&str, Vec<&ColumnSpec>> = BTreeMap::new();
    for c in &d.columns {
        by_family.entry(c.family.as_str()).or_default().push(c);
    }
    for (family, cols) in by_family {
        let cells: u64 = cols.iter().map(|c| c.per_row).sum();
        let bytes: u64 = cols.iter().map(|c| c.per_row.saturating_mul(c.bytes)).sum();
        if cells < 50 || bytes > cells.saturating_mul(16) {
            continue;
        }
        let overhead: u64 = cols
            .iter()
            .map(|c| {
                c.per_row
                    .saturating_mul(c.qualifier.len() as u64 + 8 + family.len() as u64)
            })
            .sum();
        let evidence = vec![format!(
            "a row holds {cells} cells of {} on average in `{family}`: {} of values and about {} of per-cell overhead",
            human_bytes(bytes as f64 / cells.max(1) as f64),
            human_bytes(bytes as f64),
            human_bytes(overhead as f64)
        )];
        let into = fresh_name("data", |n| cols.iter().any(|c| c.qualifier == n));
        cx.add(
            RuleId::ManySmallCells,
            Severity::Warning,
            Target::Family {
                table: cx.main.clone(),
                family: family.to_string(),
            },
            format!("Rows hold {cells} tiny cells in `{family}`"),
            WHY_SMALL_CELLS,
            evidence,
            vec![Fix::new(
                format!(
                    "Store the {cells} cells of `{family}` as one serialized cell `{family}:{into}`"
                ),
                vec![Edit::SerializeColumns {
                    family: family.to_string(),
                    qualifiers: cols.iter().map(|c| c.qualifier.clone()).collect(),
                    into,
                }],
            )],
        );
    }
}

// ---- families and tables ----

const WHY_NO_GC: &str = "Garbage collection is set per column family and is the only thing that removes old cell versions (and data past its time to live). Without a rule, every version of every value is kept and billed forever, and rows that are updated keep growing. Decide how many versions or how much history the application needs and say so in the family's GC rule.";

fn no_gc_rule(cx: &mut Cx<'_>) {
    let d = cx.d;
    let key = d.key.as_ref();
    for (ti, t) in d.tables.iter().enumerate() {
        for (name, fam) in &t.families {
            if fam.gc || fam.aggregate {
                continue;
            }
            let cols: Vec<&ColumnSpec> = if ti == 0 {
                d.columns.iter().filter(|c| &c.family == name).collect()
            } else {
                Vec::new()
            };
            let updated = ti == 0
                && (cols
                    .iter()
                    .any(|c| !c.is_placeholder() && c.writes_per_day > 0.0)
                    || key.is_some_and(|k| {
                        !unique_rows(k, d.entities)
                            && d.workloads.iter().any(|w| {
                                w.op == OpKind::Write
                                    && w.keys != KeyDist::Sequential
                                    && w.family.as_deref().unwrap_or_else(|| {
                                        t.families.keys().next().map_or("", String::as_str)
                                    }) == name
                            })
                    }));
            let severity = if updated {
                Severity::Warning
            } else {
                Severity::Info
            };
            let versions: Option<u32> = cols.iter().filter_map(|c| c.keep_versions).max();
            let ages: Vec<f64> = cols
                .iter()
                .filter_map(|c| c.keep_for.map(|s| s.0))
                .collect();
            let age = (!ages.is_empty() && ages.len() == cols.len())
                .then(|| ages.iter().copied().fold(0.0, f64::max))
                .map(Seconds);
            let mut fixes = Vec::new();
            if versions.is_some() || age.is_some() {
                fixes.push(Fix::new(
                    format!("Keep what the columns need: {}", describe_gc(versions, age)),
                    vec![Edit::SetGc {
                        table: t.id.clone(),
                        family: name.clone(),
                        max_versions: versions,
                        max_age: age,
                    }],
                ));
            }
            fixes.push(Fix::new(
                format!("Keep only the newest version in `{name}`"),
                vec![Edit::SetGc {
                    table: t.id.clone(),
                    family: name.clone(),
                    max_versions: Some(1),
                    max_age: None,
                }],
            ));
            fixes.push(Fix::new(
                format!("Delete cells older than 30 days in `{name}`"),
                vec![Edit::SetGc {
                    table: t.id.clone(),
                    family: name.clone(),
                    max_versions: None,
                    max_age: Some(Seconds(30.0 * 86_400.0)),
                }],
            ));
            let mut evidence = vec![format!("family {}:{name} {}", t.id, fam.describe())];
            if updated {
                evidence.push("rows of this family are updated, so versions pile up".into());
            }
            cx.add(
                RuleId::NoGcRule,
                severity,
                Target::Family {
                    table: t.id.clone(),
                    family: name.clone(),
                },
                format!("Family `{name}` has no garbage-collection rule"),
                WHY_NO_GC,
                evidence,
                fixes,
            );
        }
    }
}

fn describe_gc(versions: Option<u32>, age: Option<Seconds>) -> String {
    match (versions, age) {
        (Some(v), Some(a)) => format!("{v} version(s), at most {a} old"),
        (Some(v), None) => format!("{v} version(s)"),
        (None, Some(a)) => format!("cells at most {a} old"),
        (None, None) => "everything".into(),
    }
}

/// Versions and seconds a column needs (`None`: not stated).
type Retention = (Option<u32>, Option<f64>);

/// A table-id stem and whether the varying part comes first.
type Stem = (String, bool);

fn retention_label(r: Retention) -> String {
    match r {
        (Some(v), Some(a)) => format!("{v} version(s) for {}", Seconds(a)),
        (Some(v), None) => format!("{v} version(s)"),
        (None, Some(a)) => format!("{}", Seconds(a)),
        (None, None) => "unstated".into(),
    }
}

fn retention_family_name(r: Retention) -> String {
    match r {
        (Some(v), None) => format!("v{v}"),
        (None, Some(a)) => format!("d{}", (a / 86_400.0).ceil().max(1.0)),
        (Some(v), Some(a)) => format!("v{v}d{}", (a / 86_400.0).ceil().max(1.0)),
        (None, None) => "keep".into(),
    }
}

const WHY_MIXED_RETENTION: &str = "A GC rule applies to a whole family, never to a single column. If a value you need once shares a family with a value you need a thousand versions of, you either lose history you wanted or pay for hundreds of versions nobody reads. Give each retention need its own family with its own rule.";

fn mixed_retention(cx: &mut Cx<'_>) {
    let d = cx.d;
    let Some(t) = d.main_table() else {
        return;
    };
    let mut by_family: BTreeMap<&str, Vec<&ColumnSpec>> = BTreeMap::new();
    for c in &d.columns {
        if c.keep_versions.is_some() || c.keep_for.is_some() {
            by_family.entry(c.family.as_str()).or_default().push(c);
        }
    }
    for (family, cols) in by_family {
        // Retention groups, largest first.
        let mut groups: Vec<(Retention, Vec<&ColumnSpec>)> = Vec::new();
        for c in &cols {
            let r = c.retention();
            match groups.iter_mut().find(|(g, _)| *g == r) {
                Some((_, v)) => v.push(c),
                None => groups.push((r, vec![c])),
            }
        }
        if groups.len() < 2 {
            continue;
        }
        groups.sort_by_key(|g| std::cmp::Reverse(g.1.len()));
        let mut edits = Vec::new();
        let mut taken: BTreeSet<String> = t.families.keys().cloned().collect();
        if let Some((keep, _)) = groups.first() {
            edits.push(Edit::SetGc {
                table: t.id.clone(),
                family: family.to_string(),
                max_versions: keep.0,
                max_age: keep.1.map(Seconds),
            });
        }
        for (r, members) in groups.iter().skip(1) {
            let name = fresh_name(&retention_family_name(*r), |n| taken.contains(n));
            taken.insert(name.clone());
            edits.push(Edit::AddFamily {
                table: t.id.clone(),
                family: name.clone(),
                max_versions: r.0,
                max_age: r.1.map(Seconds),
            });
            edits.push(Edit::MoveColumns {
                family: family.to_string(),
                qualifiers: members.iter().map(|c| c.qualifier.clone()).collect(),
                to: name,
            });
        }
        let evidence = vec![
            groups
                .iter()
                .map(|(r, m)| {
                    format!(
                        "{} need {}",
                        m.iter()
                            .map(|c| c.qualifier.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                        retention_label(*r)
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
        ];
        cx.add(
            RuleId::MixedRetentionInFamily,
            Severity::Warning,
            Target::Family {
                table: t.id.clone(),
                family: family.to_string(),
            },
            format!("Family `{family}` mixes columns with different retention needs"),
            WHY_MIXED_RETENTION,
            evidence,
            vec![Fix::new(
                format!("Give each retention need of `{family}` its own family"),
                edits,
            )],
        );
    }
}

const WHY_MANY_FAMILIES: &str = "Families group columns that belong together and share a retention rule; a read that wants related values should find them in one family. A table may have up to 100 families and more than that hurts performance; many one-column families with the same rule are a sign that related columns were split up for no gain.";

fn too_many_families(cx: &mut Cx<'_>) {
    let d = cx.d;
    for (ti, t) in d.tables.iter().enumerate() {
        let n = t.families.len();
        let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (name, f) in &t.families {
            let sig = format!(
                "{:?}/{:?}/{}/{}",
                f.max_versions,
                f.max_age.map(|a| a.0),
                f.gc,
                f.aggregate
            );
            groups.entry(sig).or_default().push(name.clone());
        }
        let over = n > tabletop_store::RECOMMENDED_MAX_FAMILIES;
        // One declared column per family, several families with one rule.
        let single: Vec<String> = if ti == 0 {
            t.families
                .keys()
                .filter(|f| d.columns.iter().filter(|c| &&c.family == f).count() == 1)
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        let scattered: Vec<&Vec<String>> = groups
            .values()
            .filter(|g| g.iter().filter(|f| single.contains(f)).count() >= 5)
            .collect();
        if !over && scattered.is_empty() {
            continue;
        }
        let mut edits = Vec::new();
        let mut taken: BTreeSet<String> = t.families.keys().cloned().collect();
        for g in groups.values() {
            let members: Vec<String> = if over {
                g.clone()
            } else if scattered.contains(&g) {
                g.iter().filter(|f| single.contains(f)).cloned().collect()
            } else {
                continue;
            };
            if members.len() < 2 {
                continue;
            }
            let into = merged_name(&members, &taken);
            for m in &members {
                taken.remove(m);
            }
            taken.insert(into.clone());
            edits.push(Edit::MergeFamilies {
                table: t.id.clone(),
                families: members,
                into,
            });
        }
        let (severity, title, evidence) = if over {
            (
                Severity::Warning,
                format!("Table {} has {n} column families", t.id),
                vec![format!(
                    "{n} families; Bigtable recommends at most {}",
                    tabletop_store::RECOMMENDED_MAX_FAMILIES
                )],
            )
        } else {
            let names: Vec<String> = scattered
                .iter()
                .flat_map(|g| g.iter().filter(|f| single.contains(f)).cloned())
                .collect();
            (
                Severity::Info,
                format!(
                    "{} families of {} hold one column each, with the same rule",
                    names.len(),
                    t.id
                ),
                vec![format!("one column each: {}", names.join(", "))],
            )
        };
        let fixes = if edits.is_empty() {
            Vec::new()
        } else {
            vec![Fix::new(
                "Merge families that share a GC rule".to_string(),
                edits,
            )]
        };
        cx.add(
            RuleId::TooManyFamilies,
            severity,
            Target::Table {
                table: t.id.clone(),
            },
            title,
            WHY_MANY_FAMILIES,
            evidence,
            fixes,
        );
    }
}

/// A name for merged families: their common prefix (without a trailing
/// `_`) if it is free and not empty, else the first one's name.
fn merged_name(members: &[String], taken: &BTreeSet<String>) -> String {
    let first = members.first().cloned().unwrap_or_else(|| "cf".into());
    let mut prefix = first.clone();
    for m in members {
        while !m.starts_with(&prefix) {
            prefix.pop();
        }
    }
    let prefix = prefix.trim_end_matches(['_', '-', '.']).to_string();
    if !prefix.is_empty() && (!taken.contains(&prefix) || members.contains(&prefix)) {
        prefix
    } else {
        first
    }
}

const WHY_LONG_FAMILY: &str = "The family name travels with every cell in every request and response. A short name (a few letters) saves bandwidth and memory on every read and write; the meaning can live in your schema documentation.";

fn long_family_name(cx: &mut Cx<'_>) {
    let d = cx.d;
    for t in &d.tables {
        for name in t.families.keys() {
            if name.len() <= LONG_FAMILY {
                continue;
            }
            let base = abbreviate(name, 12);
            let to = fresh_name(&base, |n| t.families.contains_key(n));
            cx.add(
                RuleId::LongFamilyName,
                Severity::Info,
                Target::Family {
                    table: t.id.clone(),
                    family: name.clone(),
                },
                format!("Family name `{name}` is {} bytes long", name.len()),
                WHY_LONG_FAMILY,
                vec![format!(
                    "every cell of {}:{name} carries these {} bytes",
                    t.id,
                    name.len()
                )],
                vec![Fix::new(
                    format!("Rename `{name}` to `{to}`"),
                    vec![Edit::RenameFamily {
                        table: t.id.clone(),
                        family: name.clone(),
                        to,
                    }],
                )],
            );
        }
    }
}

const WHY_PER_TENANT: &str = "Data with the same shape belongs in one table, told apart by a row-key prefix: a customer's or a year's rows then form one contiguous range that can be read, exported or deleted by prefix. Extra tables add connection overhead and tail latency, do not balance load any better, need more administration, and an instance stops at 1,000 tables.";

/// Splits a table id into (stem, variant, variant_first).
fn id_splits(id: &str) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    if let Some(p) = id.rfind(['_', '-', '.']) {
        let (a, b) = (&id[..p], &id[p + 1..]);
        if !a.is_empty() && !b.is_empty() {
            out.push((a.to_string(), b.to_string(), false));
        }
    }
    if let Some(p) = id.find(['_', '-', '.']) {
        let (a, b) = (&id[..p], &id[p + 1..]);
        if !a.is_empty() && !b.is_empty() {
            out.push((b.to_string(), a.to_string(), true));
        }
    }
    let digits = id.chars().rev().take_while(char::is_ascii_digit).count();
    if matches!(digits, 4 | 6 | 8) && digits < id.len() {
        let (a, b) = id.split_at(id.len() - digits);
        out.push((a.to_string(), b.to_string(), false));
    }
    out
}

/// Table-id parts that name a table's role, not a customer or period.
const ROLE_WORDS: &[&str] = &[
    "archive", "backup", "bak", "staging", "stage", "tmp", "temp", "old", "new", "test", "dev",
    "prod", "copy", "v1", "v2", "v3", "index", "idx", "log", "logs", "raw", "agg", "summary",
];

fn year_like(v: &str) -> bool {
    v.len() >= 4
        && v.chars().all(|c| c.is_ascii_digit())
        && v.get(..4)
            .and_then(|y| y.parse::<u32>().ok())
            .is_some_and(|y| (1970..=2199).contains(&y))
}

fn table_per_tenant(cx: &mut Cx<'_>) {
    let d = cx.d;
    // (stem, variant_first) -> [(table index, variant)]
    let mut groups: BTreeMap<(String, bool), Vec<(usize, String)>> = BTreeMap::new();
    for (i, t) in d.tables.iter().enumerate() {
        for (stem, variant, first) in id_splits(&t.id) {
            groups.entry((stem, first)).or_default().push((i, variant));
        }
    }
    let mut candidates: Vec<(Stem, Vec<(usize, String)>)> = groups
        .into_iter()
        .filter_map(|(k, members)| {
            // Same families only.
            let fams = |i: usize| d.tables.get(i).map(|t| &t.families);
            let first = fams(members.first()?.0);
            let same: Vec<(usize, String)> = members
                .into_iter()
                .filter(|(i, v)| {
                    fams(*i) == first && !ROLE_WORDS.contains(&v.to_ascii_lowercase().as_str())
                })
                .collect();
            let years = same.iter().all(|(_, v)| year_like(v));
            (same.len() >= 2 || (same.len() == 1 && years && !k.1)).then_some((k, same))
        })
        .collect();
    candidates.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    let mut used: BTreeSet<usize> = BTreeSet::new();
    for ((stem, variant_first), members) in candidates {
        if members.iter().any(|(i, _)| used.contains(i)) {
            continue;
        }
        used.extend(members.iter().map(|(i, _)| *i));
        let tables: Vec<String> = members
            .iter()
            .filter_map(|(i, _)| d.tables.get(*i).map(|t| t.id.clone()))
            .collect();
        let variants: Vec<String> = members.iter().map(|(_, v)| v.clone()).collect();
        let years = variants.iter().all(|v| year_like(v));
        let into = if d
            .tables
            .iter()
            .any(|t| t.id == stem && !tables.contains(&t.id))
        {
            format!("{stem}_all")
        } else {
            stem.clone()
        };
        let what = if years { "year" } else { "customer" };
        let evidence = vec![format!(
            "{} table(s) with the same families, one per {what}: {}",
            tables.len(),
            tables.join(", ")
        )];
        let _ = variant_first;
        cx.add(
            RuleId::TablePerTenant,
            Severity::Warning,
            Target::Tables {
                tables: tables.clone(),
            },
            format!("One table per {what}: {}", tables.join(", ")),
            WHY_PER_TENANT,
            evidence,
            vec![Fix::new(
                format!(
                    "Merge them into one table `{into}` with the {what} as a key {}",
                    if years { "segment" } else { "prefix" }
                ),
                vec![Edit::MergeTables {
                    tables,
                    into,
                    variants,
                    tenant_prefix: !years,
                }],
            )],
        );
    }
}
