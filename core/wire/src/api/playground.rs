//! The playground's own methods, which are **not part of Bigtable**:
//! `compact` ("compact now", so due GC rules take effect), `advanceClock`
//! (the instance clock, which the core never reads from the wall) and
//! `listTablets` (the storage layout, for tooling). They use the same
//! request and answer conventions as the Bigtable methods.

use serde_json::Value;

use super::names::table_name;
use super::proto_json::{At, Out};
use tabletop_sql::Instance;
use tabletop_store::EngineEvent;
use tabletop_store::{Result, Traces};

/// compact: `{"tableName": ...}` compacts one table, `{}` every table.
/// Answers `{}`.
pub(crate) fn compact(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    let mut f = req.object("CompactRequest")?;
    let table = match f.get("tableName")? {
        Some(t) => Some(table_name(&t)?),
        None => None,
    };
    f.finish()?;
    db.compact(table.as_ref().map(|t| t.table_id.as_str()))?;
    Ok(Out::new().build())
}

/// Formats microseconds since the epoch as an RFC 3339 UTC time, with
/// microseconds when they are not zero.
pub(crate) fn rfc3339(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let sub = micros.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    let (year, month, day) = tabletop_store::civil_from_days(days);
    let (h, m, s) = (tod / 3600, tod % 3600 / 60, tod % 60);
    if sub == 0 {
        format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z")
    } else {
        format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{sub:06}Z")
    }
}

fn event_to_json(e: &EngineEvent) -> Value {
    let id = |n: u64| Value::String(n.to_string());
    #[allow(unreachable_patterns)] // EngineEvent may grow variants.
    let (kind, body) = match e {
        EngineEvent::Flush { table, tablet, .. } => (
            "flush",
            Out::new().string("table", table).set("tablet", id(*tablet)),
        ),
        EngineEvent::Compaction {
            table,
            tablet,
            collected,
            kept,
            ..
        } => (
            "compaction",
            Out::new()
                .string("table", table)
                .set("tablet", id(*tablet))
                .uint64("collected", *collected)
                .uint64("kept", *kept),
        ),
        EngineEvent::Split {
            table,
            tablet,
            into,
            keys,
            ..
        } => (
            "split",
            Out::new()
                .string("table", table)
                .set("tablet", id(*tablet))
                .list("into", into.iter().map(|t| id(*t)).collect())
                .list(
                    "keys",
                    keys.iter()
                        .map(|k| Value::String(tabletop_store::base64_text::encode(k)))
                        .collect(),
                ),
        ),
        EngineEvent::Merge {
            table, from, into, ..
        } => (
            "merge",
            Out::new()
                .string("table", table)
                .list("from", from.iter().map(|t| id(*t)).collect())
                .set("into", id(*into)),
        ),
        other => ("other", Out::new().string("debug", &format!("{other:?}"))),
    };
    Out::new().set(kind, body.build()).build()
}

/// advanceClock: moves the instance clock forward and lets the engine do
/// the work that became due (flushes, compactions with GC, splits,
/// merges), as time passing does on a real server.
///
/// Request: at most one of `micros` (int64, advance by), `seconds`
/// (number, advance by) or `nowMicros` (int64, set to; not before the
/// current time). `{}` only reads the clock. Answers `{"nowMicros",
/// "time", "events"}` where `time` is RFC 3339 and `events` lists what the
/// engine did.
pub(crate) fn advance_clock(
    db: &mut Instance,
    req: &At<'_>,
    _traces: &mut Traces,
) -> Result<Value> {
    let mut f = req.object("AdvanceClockRequest")?;
    let now = db.now_micros();
    let target = match f.oneof("by", &["micros", "seconds", "nowMicros"])? {
        None => None,
        Some(("micros", v)) => {
            let by = v.int64()?;
            if by < 0 {
                return Err(v.invalid("the clock only moves forward; micros must not be negative"));
            }
            Some(
                now.checked_add(by)
                    .ok_or_else(|| v.invalid("the clock would overflow"))?,
            )
        }
        Some(("seconds", v)) => {
            let s = v.double()?;
            if s.is_nan() || s < 0.0 {
                return Err(
                    v.invalid("the clock only moves forward; seconds must be a number >= 0")
                );
            }
            let by = (s * 1e6).round();
            // i64::MAX as f64 rounds up to 2^63, which is out of range.
            if by >= 9.223_372_036_854_775e18 {
                return Err(v.invalid("the clock would overflow"));
            }
            #[allow(clippy::cast_possible_truncation)] // checked just above
            let by = by as i64;
            Some(
                now.checked_add(by)
                    .ok_or_else(|| v.invalid("the clock would overflow"))?,
            )
        }
        Some((_, v)) => {
            let t = v.int64()?;
            if t < now {
                return Err(v.invalid(format!(
                    "the clock only moves forward; it reads {now} and cannot be set to {t}"
                )));
            }
            Some(t)
        }
    };
    f.finish()?;
    let events = match target {
        Some(t) => {
            // Moving the clock by hand makes it simulated: hosts stop
            // setting it from the wall clock.
            db.set_clock_simulated(true);
            db.tick(t)
        }
        None => Vec::new(),
    };
    let now = db.now_micros();
    Ok(Out::new()
        .set("nowMicros", Value::String(now.to_string()))
        .set("time", Value::String(rfc3339(now)))
        .list("events", events.iter().map(event_to_json).collect())
        .build())
}

/// listTablets: the tablets of one table, in key order, with their
/// memtable and runs. Answers `{"tablets": [...]}`.
pub(crate) fn list_tablets(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    let mut f = req.object("ListTabletsRequest")?;
    let table = table_name(&f.require("tableName")?)?;
    f.finish()?;
    let tablets = db
        .tablets(&table.table_id)?
        .iter()
        .map(|t| {
            let runs = t
                .runs
                .iter()
                .map(|r| {
                    Out::new()
                        .uint64("rows", r.rows)
                        .uint64("cells", r.cells)
                        .uint64("deadCells", r.dead_cells)
                        .uint64("bytes", r.bytes)
                        .build()
                })
                .collect();
            let mut out = Out::new()
                .set("id", Value::String(t.id.to_string()))
                .bytes("startKey", &t.start_key);
            if let Some(end) = &t.end_key {
                out = out.bytes("endKey", end);
            }
            out.uint64("bytes", t.bytes)
                .uint64("heapBytes", t.heap_bytes)
                .uint64("memtableCells", t.memtable_cells)
                .uint64("memtableBytes", t.memtable_bytes)
                .list("runs", runs)
                .int64("lastGcMicros", t.last_gc_micros)
                .build()
        })
        .collect();
    Ok(Out::new().list("tablets", tablets).build())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn formats_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_600_000_000_000_000), "2020-09-13T12:26:40Z");
        assert_eq!(rfc3339(951_782_400_000_001), "2000-02-29T00:00:00.000001Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59.999999Z");
    }

    #[test]
    fn clock_moves_forward_only() {
        let mut db = Instance::default();
        let call = |db: &mut Instance, v: Value| {
            advance_clock(db, &At::new("request", &v), &mut Traces::off())
        };
        assert_eq!(call(&mut db, json!({})).unwrap()["nowMicros"], "0");
        assert_eq!(
            call(&mut db, json!({"seconds": 1.5})).unwrap()["nowMicros"],
            "1500000"
        );
        assert_eq!(
            call(&mut db, json!({"micros": "500000"})).unwrap()["time"],
            "1970-01-01T00:00:02Z"
        );
        assert!(call(&mut db, json!({"nowMicros": "1"})).is_err());
        assert!(call(&mut db, json!({"micros": -1})).is_err());
        assert!(call(&mut db, json!({"seconds": "NaN"})).is_err());
        assert!(call(&mut db, json!({"seconds": 1e300})).is_err());
        assert!(call(&mut db, json!({"micros": "9223372036854775807"})).is_err());
        assert!(call(&mut db, json!({"micros": 1, "seconds": 1})).is_err());
        assert_eq!(db.now_micros(), 2_000_000);
    }
}
