//! How a change stream keeps its records: each one's row key and
//! mutations encoded into one byte string, so recording a write costs one
//! allocation (not one per family name, qualifier and value), and decoded
//! into a [`ChangeRecord`] only when someone reads it.
//!
//! ```text
//! row key            varint length, bytes
//! mutation count     varint
//! per mutation:      0 set cell:      family, qualifier, timestamp, value
//!                    1 add / 2 merge: family, qualifier, timestamp,
//!                                     input (0 int | 1 raw bytes)
//!                    3 delete column: family, qualifier,
//!                                     0 | 1 then start and end
//!                    4 delete family: family
//!                    5 delete row
//! ```
//!
//! Integers are LEB128 varints, signed ones zigzag-encoded first; strings
//! and bytes are a varint length and the bytes. Snapshots keep these bytes
//! as they are (see `instance/snapshot/change_log.rs`).

use super::{ChangeKind, ChangeRecord};
use crate::mutation::{AggregateInput, AggregateOp, Mutation, TimestampRange};

/// One kept record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredChange {
    pub(crate) sequence: u64,
    pub(crate) commit_micros: i64,
    pub(crate) tiebreaker: i32,
    pub(crate) kind: ChangeKind,
    /// The row key and mutations, encoded (see the module docs).
    pub(crate) bytes: Box<[u8]>,
}

impl StoredChange {
    /// The row key, without decoding the mutations.
    pub(crate) fn row_key(&self) -> &[u8] {
        let mut r = Cursor {
            buf: &self.bytes,
            pos: 0,
        };
        // Encoded by this module; an empty key stands in if it were not.
        r.bytes().unwrap_or_default()
    }

    /// The record, decoded.
    pub(crate) fn to_record(&self) -> ChangeRecord {
        // The bytes were encoded here (or checked when a snapshot was
        // read), so they decode.
        let (row_key, mutations) = decode(&self.bytes).unwrap_or_default();
        ChangeRecord {
            sequence: self.sequence,
            commit_micros: self.commit_micros,
            tiebreaker: self.tiebreaker,
            kind: self.kind,
            row_key,
            mutations,
        }
    }
}

/// Starts a record: the row key and how many mutations follow.
pub(crate) fn begin(buf: &mut Vec<u8>, row_key: &[u8], count: usize) {
    buf.clear();
    put_bytes(buf, row_key);
    put_uint(buf, count as u64);
}

/// Adds one mutation, its timestamp passed through `resolve`.
pub(crate) fn put_mutation(buf: &mut Vec<u8>, m: &Mutation<'_>, resolve: impl Fn(i64) -> i64) {
    match m {
        Mutation::SetCell {
            family_name,
            column_qualifier,
            timestamp_micros,
            value,
        } => {
            put_uint(buf, 0);
            put_bytes(buf, family_name.as_bytes());
            put_bytes(buf, column_qualifier);
            put_int(buf, resolve(*timestamp_micros));
            put_bytes(buf, value);
        }
        Mutation::AddToCell { .. } | Mutation::MergeToCell { .. } => {
            let Some(w) = m.aggregate_write() else {
                return;
            };
            put_uint(
                buf,
                match w.op {
                    AggregateOp::Add => 1,
                    AggregateOp::Merge => 2,
                },
            );
            put_bytes(buf, w.family_name.as_bytes());
            put_bytes(buf, w.column_qualifier);
            put_int(buf, resolve(w.timestamp_micros));
            match w.input {
                AggregateInput::Int(v) => {
                    put_uint(buf, 0);
                    put_int(buf, *v);
                }
                AggregateInput::Raw(b) => {
                    put_uint(buf, 1);
                    put_bytes(buf, b);
                }
            }
        }
        Mutation::DeleteFromColumn {
            family_name,
            column_qualifier,
            time_range,
        } => {
            put_uint(buf, 3);
            put_bytes(buf, family_name.as_bytes());
            put_bytes(buf, column_qualifier);
            match time_range {
                None => put_uint(buf, 0),
                Some(r) => {
                    put_uint(buf, 1);
                    put_int(buf, r.start_micros);
                    put_int(buf, r.end_micros);
                }
            }
        }
        Mutation::DeleteFromFamily { family_name } => {
            put_uint(buf, 4);
            put_bytes(buf, family_name.as_bytes());
        }
        Mutation::DeleteFromRow => put_uint(buf, 5),
    }
}

/// The row key and mutations of encoded bytes; an error names what is
/// wrong (for bytes read from a snapshot).
pub(crate) fn decode(bytes: &[u8]) -> Result<(Vec<u8>, Vec<Mutation<'static>>), &'static str> {
    let mut r = Cursor { buf: bytes, pos: 0 };
    let row_key = r.bytes()?.to_vec();
    let n = r.uint()?;
    let mut mutations = Vec::with_capacity(usize::try_from(n).unwrap_or(0).min(1024));
    for _ in 0..n {
        mutations.push(r.mutation()?);
    }
    if r.pos != bytes.len() {
        return Err("trailing bytes after a change record's mutations");
    }
    Ok((row_key, mutations))
}

fn put_uint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

fn put_int(buf: &mut Vec<u8>, v: i64) {
    put_uint(buf, ((v << 1) ^ (v >> 63)) as u64);
}

fn put_bytes(buf: &mut Vec<u8>, b: &[u8]) {
    put_uint(buf, b.len() as u64);
    buf.extend_from_slice(b);
}

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn uint(&mut self) -> Result<u64, &'static str> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.buf.get(self.pos).ok_or("a truncated change record")?;
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("an integer longer than 64 bits in a change record")
    }

    fn int(&mut self) -> Result<i64, &'static str> {
        let u = self.uint()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }

    fn bytes(&mut self) -> Result<&'a [u8], &'static str> {
        let n = usize::try_from(self.uint()?).map_err(|_| "a length too large")?;
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or("a truncated change record")?;
        let b = &self.buf[self.pos..end];
        self.pos = end;
        Ok(b)
    }

    fn string(&mut self) -> Result<String, &'static str> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| "a family name that is not UTF-8")
    }

    fn mutation(&mut self) -> Result<Mutation<'static>, &'static str> {
        let kind = self.uint()?;
        if kind == 5 {
            return Ok(Mutation::DeleteFromRow);
        }
        let family_name = self.string()?.into();
        if kind == 4 {
            return Ok(Mutation::DeleteFromFamily { family_name });
        }
        let column_qualifier = self.bytes()?.to_vec().into();
        Ok(match kind {
            0 => Mutation::SetCell {
                family_name,
                column_qualifier,
                timestamp_micros: self.int()?,
                value: self.bytes()?.to_vec().into(),
            },
            1 | 2 => {
                let timestamp_micros = self.int()?;
                let input = match self.uint()? {
                    0 => AggregateInput::Int(self.int()?),
                    1 => AggregateInput::Raw(self.bytes()?.to_vec().into()),
                    _ => return Err("an unknown aggregate input in a change record"),
                };
                if kind == 1 {
                    Mutation::AddToCell {
                        family_name,
                        column_qualifier,
                        timestamp_micros,
                        input,
                    }
                } else {
                    Mutation::MergeToCell {
                        family_name,
                        column_qualifier,
                        timestamp_micros,
                        input,
                    }
                }
            }
            3 => Mutation::DeleteFromColumn {
                family_name,
                column_qualifier,
                time_range: match self.uint()? {
                    0 => None,
                    1 => Some(TimestampRange {
                        start_micros: self.int()?,
                        end_micros: self.int()?,
                    }),
                    _ => return Err("an unknown time range marker in a change record"),
                },
            },
            _ => return Err("an unknown mutation kind in a change record"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mutation_round_trips_and_damage_is_an_error() {
        let muts = vec![
            Mutation::set_cell("cf", b"q", -1, b"v").into_owned(),
            Mutation::AddToCell {
                family_name: "n".into(),
                column_qualifier: b"c".to_vec().into(),
                timestamp_micros: 0,
                input: AggregateInput::Int(-5),
            },
            Mutation::MergeToCell {
                family_name: "n".into(),
                column_qualifier: b"c".to_vec().into(),
                timestamp_micros: 1000,
                input: AggregateInput::Raw(vec![1, 2].into()),
            },
            Mutation::DeleteFromColumn {
                family_name: "cf".into(),
                column_qualifier: b"q".to_vec().into(),
                time_range: Some(TimestampRange {
                    start_micros: 1000,
                    end_micros: 2000,
                }),
            },
            Mutation::DeleteFromFamily {
                family_name: "cf".into(),
            },
            Mutation::DeleteFromRow,
        ];
        let mut buf = Vec::new();
        begin(&mut buf, b"row\x00", muts.len());
        for m in &muts {
            put_mutation(&mut buf, m, |ts| if ts == -1 { 7000 } else { ts });
        }
        let (key, back) = decode(&buf).expect("decodes");
        assert_eq!(key, b"row\x00");
        let mut want = muts.clone();
        want[0] = Mutation::set_cell("cf", b"q", 7000, b"v").into_owned();
        assert_eq!(back, want);
        for cut in 0..buf.len() {
            assert!(decode(&buf[..cut]).is_err(), "cut at {cut}");
        }
    }
}
