//! A lesson's starting state: the clock, a scenario (the design being
//! edited, optionally written into the instance as sample rows), cbt
//! commands and generated rows.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use tabletop_design::sim::{Seconds, StartTime};
use tabletop_sql::Instance;
use tabletop_store::Mutation;
use tabletop_store::{Error, Result};

/// Most rows one `[[setup.rows]]` may generate.
pub const MAX_GENERATED_ROWS: usize = 100_000;

/// The starting state of a lesson (`[setup]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// The instance clock (UTC); default: the scenario's start, else
    /// 2020-06-01. The clock is simulated: it moves only with `cbt clock`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<StartTime>,
    /// A scenario file (a name under `static/scenarios/`): the design the
    /// learner edits, lints and simulates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// Write this many sample rows of the scenario into the instance (and
    /// again after every change of the design), so the Rows panel shows
    /// its keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub materialize: Option<usize>,
    /// cbt commands run first (create tables, families, GC rules, cells).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cbt: Vec<String>,
    /// Generated rows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<RowsSpec>,
    /// cbt commands run last; a read here is the learner's "last read" at
    /// the start.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub then: Vec<String>,
}

/// Rows written by pattern (`[[setup.rows]]`).
///
/// ```toml
/// [[setup.rows]]
/// table = "mobile"
/// keys = "phone#{4c410523,a0b81f74}#202005{01..31}"
/// cells = { "stats:cpu" = "0.5", "stats:key" = "{key}" }
/// versions = 3
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowsSpec {
    /// Table id.
    pub table: String,
    /// Row keys, with `{a,b,c}` alternatives and `{01..31}` number ranges
    /// (zero-padded like the bounds), as in a shell.
    pub keys: String,
    /// `family:qualifier` to value; `{key}`, `{i}` (row number) and `{v}`
    /// (version number, 1 = oldest) are replaced.
    pub cells: BTreeMap<String, String>,
    /// Versions of every cell, one `every` apart, the newest at `time`.
    #[serde(default = "one")]
    pub versions: u32,
    /// Timestamp of the newest version (default: the instance clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<StartTime>,
    /// Time between versions (default 1 minute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<Seconds>,
}

fn one() -> u32 {
    1
}

/// Expands `{a,b}` alternatives and `{1..10}` / `{01..31}` ranges, left
/// to right (the leftmost group varies slowest). Fails on an unclosed
/// brace or more than 100,000 results.
pub fn expand(pattern: &str) -> Result<Vec<String>> {
    let mut parts: Vec<Vec<String>> = Vec::new();
    let mut lit = String::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        lit.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| Error::invalid(format!("keys {pattern:?}: a `{{` is never closed")))?;
        let group = &after[..close];
        parts.push(vec![std::mem::take(&mut lit)]);
        parts.push(alternatives(group, pattern)?);
        rest = &after[close + 1..];
    }
    lit.push_str(rest);
    parts.push(vec![lit]);
    let mut out = vec![String::new()];
    for p in parts {
        if out.len().saturating_mul(p.len()) > MAX_GENERATED_ROWS {
            return Err(Error::invalid(format!(
                "keys {pattern:?} expands to more than {MAX_GENERATED_ROWS} keys"
            )));
        }
        out = out
            .iter()
            .flat_map(|prefix| p.iter().map(move |s| format!("{prefix}{s}")))
            .collect();
    }
    Ok(out)
}

fn alternatives(group: &str, pattern: &str) -> Result<Vec<String>> {
    if let Some((a, b)) = group.split_once("..")
        && let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>())
    {
        let width = if (a.starts_with('0') && a.len() > 1) || (b.starts_with('0') && b.len() > 1) {
            a.len().max(b.len())
        } else {
            0
        };
        if (y - x).unsigned_abs() > MAX_GENERATED_ROWS as u64 {
            return Err(Error::invalid(format!(
                "keys {pattern:?}: the range {{{group}}} is too long"
            )));
        }
        let step = if y >= x { 1 } else { -1 };
        let mut v = Vec::new();
        let mut i = x;
        loop {
            v.push(format!("{i:0width$}"));
            if i == y {
                break;
            }
            i += step;
        }
        return Ok(v);
    }
    Ok(group.split(',').map(str::to_string).collect())
}

impl RowsSpec {
    /// Writes the rows into `db` at clock `now`.
    pub fn write(&self, db: &mut Instance, now: i64) -> Result<usize> {
        let keys = expand(&self.keys)?;
        if self.versions == 0 || self.versions > 1000 {
            return Err(Error::invalid("versions must be from 1 to 1000"));
        }
        let newest = self.time.map_or(now, |t| t.0);
        let every = self
            .every
            .map_or(60_000_000, |s| (s.0 * 1e6) as i64)
            .max(1000);
        let mut cols = Vec::new();
        for (col, value) in &self.cells {
            let (f, q) = col.split_once(':').ok_or_else(|| {
                Error::invalid(format!("cell {col:?} must be written family:qualifier"))
            })?;
            cols.push((f.to_string(), q.to_string(), value.clone()));
        }
        for (i, key) in keys.iter().enumerate() {
            let mut owned: Vec<(String, Vec<u8>, i64, Vec<u8>)> = Vec::new();
            for v in 1..=self.versions {
                let ts = (newest - i64::from(self.versions - v) * every) / 1000 * 1000;
                for (f, q, value) in &cols {
                    let text = value
                        .replace("{key}", key)
                        .replace("{i}", &i.to_string())
                        .replace("{v}", &v.to_string());
                    owned.push((f.clone(), q.as_bytes().to_vec(), ts, text.into_bytes()));
                }
            }
            let muts: Vec<Mutation<'_>> = owned
                .iter()
                .map(|(f, q, ts, v)| Mutation::set_cell(f, q, *ts, v))
                .collect();
            db.mutate_row(&self.table, key.as_bytes(), &muts)
                .map_err(|e| {
                    Error::new(
                        e.code(),
                        format!("setup rows {:?}: {}", self.keys, e.message()),
                    )
                })?;
        }
        Ok(keys.len())
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn expands_like_a_shell() {
        assert_eq!(
            expand("a#{x,y}#{1..3}").unwrap(),
            ["a#x#1", "a#x#2", "a#x#3", "a#y#1", "a#y#2", "a#y#3"]
        );
        assert_eq!(expand("d{08..10}").unwrap(), ["d08", "d09", "d10"]);
        assert_eq!(expand("plain").unwrap(), ["plain"]);
        assert_eq!(expand("{3..1}").unwrap(), ["3", "2", "1"]);
        assert!(expand("a{b").is_err());
        assert!(expand("{1..1000000}").is_err());
    }
}
