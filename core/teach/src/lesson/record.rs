//! Reads a lesson remembers: what was asked (the row set and filter, from
//! a cbt `read`/`lookup`/`count`, a JSON `readRows` or a direct request),
//! its shape and what it cost.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use tabletop_sql::Instance;
use tabletop_store::ReadRowsRequest;
use tabletop_store::Result;
use tabletop_store::RowFilter;
use tabletop_store::RowView;
use tabletop_store::escape_bytes;
use tabletop_store::{KeyBound, RowRange, RowSet};
use tabletop_store::{ReadShape, shape_of};

/// Returned keys a record keeps (enough for any lesson's check).
const MAX_KEYS: usize = 10_000;

/// One read and what it cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadRecord {
    /// Where it came from (`cbt read mobile prefix=...`, `readRows`, ...).
    pub source: String,
    /// Table id.
    pub table: String,
    /// How it reached its rows.
    pub shape: ReadShape,
    /// The row ranges it asked for, `[start, end)` escaped.
    pub ranges: Vec<String>,
    /// Whether a filter decided which rows or cells came back.
    pub filtered: bool,
    /// Whether it ran in reverse key order.
    pub reversed: bool,
    /// Its rows limit (0: none).
    pub rows_limit: i64,
    /// Rows the read had to look at.
    pub rows_scanned: u64,
    /// Rows it returned.
    pub rows_returned: u64,
    /// Cells it returned.
    pub cells_returned: u64,
    /// Distinct tablets it visited.
    pub tablets_visited: usize,
    /// The returned row keys (lossy UTF-8), at most 10,000.
    pub keys_returned: Vec<String>,
    /// Whether `keys_returned` holds every returned key.
    pub keys_complete: bool,
}

impl ReadRecord {
    /// One line for people.
    #[must_use]
    pub fn summary(&self) -> String {
        format!(
            "the last read of {} was {} ({}) that scanned {} row(s) and returned {}",
            self.table,
            self.shape.describe(),
            if self.ranges.len() > 3 {
                format!("{} ranges", self.ranges.len())
            } else {
                self.ranges.join(", ")
            },
            self.rows_scanned,
            self.rows_returned
        )
    }
}

/// Runs `req` against `db` and records it.
pub fn record(
    db: &mut Instance,
    table: &str,
    req: &ReadRowsRequest,
    source: &str,
) -> Result<ReadRecord> {
    let ranges = Instance::key_ranges(&req.rows)?;
    let mut keys = Vec::new();
    let mut cells = 0u64;
    let mut complete = true;
    let mut sink = |row: RowView<'_>| {
        cells += row.cells.len() as u64;
        if keys.len() < MAX_KEYS {
            keys.push(String::from_utf8_lossy(row.key).into_owned());
        } else {
            complete = false;
        }
        true
    };
    let stats = db.read_rows(table, req, &mut sink)?;
    let mut tablets = stats.tablets.clone();
    tablets.sort_unstable();
    tablets.dedup();
    let filtered = req.filter.is_some();
    Ok(ReadRecord {
        source: source.to_string(),
        table: table.to_string(),
        shape: shape_of(&ranges, filtered, req.rows_limit),
        ranges: ranges
            .iter()
            .map(|r| {
                format!(
                    "[{}, {})",
                    if r.start.is_empty() {
                        "start".to_string()
                    } else {
                        format!("\"{}\"", escape_bytes(&r.start))
                    },
                    r.end
                        .as_ref()
                        .map_or("end".to_string(), |e| format!("\"{}\"", escape_bytes(e)))
                )
            })
            .collect(),
        filtered,
        reversed: req.reversed,
        rows_limit: req.rows_limit,
        rows_scanned: stats.rows_seen,
        rows_returned: stats.rows_returned,
        cells_returned: cells,
        tablets_visited: tablets.len(),
        keys_returned: keys,
        keys_complete: complete,
    })
}

/// The read a cbt command line makes (`read`, `lookup`, `count`), if it
/// is one.
#[must_use]
pub fn request_from_cbt(line: &str) -> Option<(String, ReadRowsRequest)> {
    let tokens = tabletop_wire::cbt::tokenize(line).ok()?;
    let mut it = tokens.into_iter().peekable();
    if it.peek().is_some_and(|t| t == b"cbt") {
        it.next();
    }
    // Global flags: -project p, -instance=i, ...
    let mut words = Vec::new();
    let mut skip_value = false;
    for t in it {
        if words.is_empty() {
            if skip_value {
                skip_value = false;
                continue;
            }
            if t.first() == Some(&b'-') {
                skip_value = !t.contains(&b'=');
                continue;
            }
        }
        words.push(t);
    }
    let cmd = words.first()?.clone();
    let table = String::from_utf8(words.get(1)?.clone()).ok()?;
    let args: Vec<(Vec<u8>, Vec<u8>)> = words
        .iter()
        .skip(2)
        .filter_map(|w| {
            let eq = w.iter().position(|&b| b == b'=')?;
            Some((w.get(..eq)?.to_vec(), w.get(eq + 1..)?.to_vec()))
        })
        .collect();
    let arg = |name: &[u8]| args.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let mut req = ReadRowsRequest::default();
    match cmd.as_slice() {
        b"lookup" => {
            let key = words.get(2)?.clone();
            req.rows = RowSet::single(key);
        }
        b"count" => {
            if let Some(p) = arg(b"prefix").filter(|p| !p.is_empty()) {
                req.rows = RowSet::range(RowRange::prefix(p));
            }
        }
        b"read" => {
            if let Some(p) = arg(b"prefix").filter(|p| !p.is_empty()) {
                req.rows = RowSet::range(RowRange::prefix(p));
            } else {
                let start = arg(b"start");
                let end = arg(b"end");
                if start.is_some() || end.is_some() {
                    req.rows = RowSet::range(RowRange {
                        start: start.map_or(KeyBound::Unbounded, KeyBound::Closed),
                        end: end.map_or(KeyBound::Unbounded, KeyBound::Open),
                    });
                }
            }
            if let Some(re) = arg(b"regex") {
                req.filter = Some(RowFilter::RowKeyRegex(re));
            }
            if let Some(n) = arg(b"count")
                .and_then(|c| String::from_utf8(c).ok())
                .and_then(|c| c.parse::<i64>().ok())
            {
                req.rows_limit = n.max(0);
            }
            req.reversed = arg(b"reversed").is_some_and(|v| v == b"true");
        }
        _ => return None,
    }
    Some((table, req))
}

fn b64(v: &Value) -> Option<Vec<u8>> {
    tabletop_wire::api::decode_base64(v.as_str()?).ok()
}

/// The read a JSON protocol line makes (`readRows`), if it is one.
#[must_use]
pub fn request_from_json(line: &str) -> Option<(String, ReadRowsRequest)> {
    let v: Value = serde_json::from_str(line).ok()?;
    if v.get("method")?.as_str()? != "readRows" {
        return None;
    }
    let r = v.get("request")?;
    let name = r
        .get("tableName")
        .or_else(|| r.get("table_name"))?
        .as_str()?;
    let table = name
        .rsplit_once("/tables/")
        .map_or(name, |(_, t)| t)
        .to_string();
    let mut req = ReadRowsRequest::default();
    if let Some(rows) = r.get("rows") {
        let keys = rows.get("rowKeys").or_else(|| rows.get("row_keys"));
        if let Some(Value::Array(keys)) = keys {
            for k in keys {
                req.rows.row_keys.push(b64(k)?);
            }
        }
        let ranges = rows.get("rowRanges").or_else(|| rows.get("row_ranges"));
        if let Some(Value::Array(ranges)) = ranges {
            for rr in ranges {
                let bound = |closed: &str,
                             closed_snake: &str,
                             open: &str,
                             open_snake: &str|
                 -> Option<KeyBound> {
                    if let Some(k) = rr.get(closed).or_else(|| rr.get(closed_snake)) {
                        return Some(KeyBound::Closed(b64(k)?));
                    }
                    if let Some(k) = rr.get(open).or_else(|| rr.get(open_snake)) {
                        return Some(KeyBound::Open(b64(k)?));
                    }
                    Some(KeyBound::Unbounded)
                };
                req.rows.row_ranges.push(RowRange {
                    start: bound(
                        "startKeyClosed",
                        "start_key_closed",
                        "startKeyOpen",
                        "start_key_open",
                    )?,
                    end: bound(
                        "endKeyClosed",
                        "end_key_closed",
                        "endKeyOpen",
                        "end_key_open",
                    )?,
                });
            }
        }
    }
    if let Some(f) = r.get("filter") {
        req.filter = Some(tabletop_wire::api::row_filter_from_json(f).ok()?);
    }
    if let Some(l) = r.get("rowsLimit").or_else(|| r.get("rows_limit")) {
        req.rows_limit = match l {
            Value::String(s) => s.parse().ok()?,
            Value::Number(n) => n.as_i64()?,
            _ => return None,
        }
        .max(0);
    }
    req.reversed = r.get("reversed").and_then(Value::as_bool).unwrap_or(false);
    Some((table, req))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn cbt_reads_become_requests() {
        let (t, r) =
            request_from_cbt("cbt -project p read mobile prefix=phone#4c count=5").unwrap();
        assert_eq!(t, "mobile");
        assert_eq!(
            r.rows,
            RowSet::range(RowRange::prefix(b"phone#4c".to_vec()))
        );
        assert_eq!(r.rows_limit, 5);
        let (_, r) = request_from_cbt("read mobile regex=.*#2020.*").unwrap();
        assert!(r.rows.is_all() && r.filter.is_some());
        let (_, r) = request_from_cbt("lookup mobile phone#1").unwrap();
        assert_eq!(r.rows, RowSet::single(b"phone#1".to_vec()));
        assert!(request_from_cbt("set mobile r cf:q=v").is_none());
        assert!(request_from_cbt("read").is_none());
    }

    #[test]
    fn json_reads_become_requests() {
        let line = r#"{"method":"readRows","request":{"tableName":"projects/p/instances/i/tables/t","rows":{"rowRanges":[{"startKeyClosed":"YQ==","endKeyOpen":"Yg=="}]},"rowsLimit":"3"}}"#;
        let (t, r) = request_from_json(line).unwrap();
        assert_eq!(t, "t");
        assert_eq!(
            r.rows,
            RowSet::range(RowRange::closed_open(b"a".to_vec(), b"b".to_vec()))
        );
        assert_eq!(r.rows_limit, 3);
        assert!(request_from_json(r#"{"method":"mutateRow","request":{}}"#).is_none());
        assert!(request_from_json("not json").is_none());
    }
}
