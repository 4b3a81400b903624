//! The bulk-write path: `mutateRows` and `mutateRow` packed into one byte
//! buffer by the package's JavaScript (no JSON text, no object walk in
//! wasm), decoded here into mutations that borrow one buffer.
//!
//! Like the core's own fast path for JSON text, this path only ever
//! *accepts*: whenever anything is unusual (bad base64, a timestamp that
//! is not a plain integer, a row key the engine refuses at decode time, an
//! entry without mutations, a table name of another shape), it declines
//! and the wrapper sends the request through the general decoder, which
//! words the error with its field path.
//!
//! The format (little-endian):
//!
//! ```text
//! request  := kind:u8 (1 mutateRows, 2 mutateRow) table:str count:u32 entry*count
//! entry    := key:bytes n:u32 mutation*n
//! mutation := 1 family:str qualifier:bytes ts:int value:bytes       setCell
//!           | 2 family:str qualifier:bytes has_range:u8 [start:int end:int]
//!           | 3 family:str                                          deleteFromFamily
//!           | 4                                                     deleteFromRow
//! str      := len:u32 utf8*len
//! bytes    := 0 | 1 len:u32 raw*len | 2 len:u32 base64*len
//! int      := 0 | 1 f64 (a safe integer) | 2 len:u32 decimal*len
//! ```

use std::borrow::Cow;

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use tabletop_core::{
    Instance, MAX_ROW_KEY_BYTES, MutateRowsEntry, Mutation, Result, TimestampRange, base64_text,
};

/// Reads the packed format.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
    last_str: Option<&'a str>,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader {
            buf,
            at: 0,
            last_str: None,
        }
    }

    pub(crate) fn is_done(&self) -> bool {
        self.at == self.buf.len()
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.buf.get(self.at..end)?;
        self.at = end;
        Some(out)
    }
    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    pub(crate) fn u32(&mut self) -> Option<usize> {
        let b = self.take(4)?;
        usize::try_from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok()
    }
    pub(crate) fn str(&mut self) -> Option<&'a str> {
        let n = self.u32()?;
        let bytes = self.take(n)?;
        // Family names repeat from cell to cell: check each new one once.
        if let Some(last) = self.last_str.filter(|s| s.as_bytes() == bytes) {
            return Some(last);
        }
        let s = std::str::from_utf8(bytes).ok()?;
        self.last_str = Some(s);
        Some(s)
    }
    /// A bytes field: raw bytes borrowed from the buffer, base64 text
    /// decoded into bytes of its own.
    pub(crate) fn bytes(&mut self) -> Option<Cow<'a, [u8]>> {
        Some(match self.u8()? {
            0 => Cow::Borrowed(&[]),
            1 => {
                let n = self.u32()?;
                Cow::Borrowed(self.take(n)?)
            }
            2 => {
                let n = self.u32()?;
                let mut out = Vec::new();
                decode_base64(self.take(n)?, &mut out)?;
                Cow::Owned(out)
            }
            _ => return None,
        })
    }
    pub(crate) fn int(&mut self) -> Option<i64> {
        match self.u8()? {
            0 => Some(0),
            1 => {
                let b = self.take(8)?;
                let v = f64::from_le_bytes(b.try_into().ok()?);
                // The wrapper sends only safe integers.
                (v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0).then_some(v as i64)
            }
            2 => {
                let n = self.u32()?;
                let text = std::str::from_utf8(self.take(n)?).ok()?;
                let digits = text.strip_prefix('-').unwrap_or(text);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                text.parse().ok()
            }
            _ => None,
        }
    }
}

/// The engine the core's base64 reader uses (standard alphabet, padding
/// optional, trailing bits allowed).
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Appends the bytes of base64 `text` to `out`. Text in groups of four in
/// the standard alphabet (what encoders write) is decoded in place;
/// anything else goes through the core's reader, so both accept exactly
/// what `tabletop_core::base64_text::decode` accepts.
fn decode_base64(text: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let padding = text.iter().rev().take_while(|&&b| b == b'=').count();
    let plain = text.len().is_multiple_of(4)
        && padding <= 2
        && !text.iter().any(|&b| b == b'-' || b == b'_');
    if plain {
        return BASE64.decode_vec(text, out).ok();
    }
    let text = std::str::from_utf8(text).ok()?;
    out.extend_from_slice(&base64_text::decode(text).ok()?);
    Some(())
}

/// One mutation, its byte fields borrowed from the buffer where they came
/// raw.
fn mutation<'a>(r: &mut Reader<'a>) -> Option<Mutation<'a>> {
    Some(match r.u8()? {
        1 => Mutation::SetCell {
            family_name: Cow::Borrowed(r.str()?),
            column_qualifier: r.bytes()?,
            timestamp_micros: r.int()?,
            value: r.bytes()?,
        },
        2 => {
            let family = r.str()?;
            let qualifier = r.bytes()?;
            let range = match r.u8()? {
                0 => None,
                1 => Some(TimestampRange {
                    start_micros: r.int()?,
                    end_micros: r.int()?,
                }),
                _ => return None,
            };
            Mutation::DeleteFromColumn {
                family_name: Cow::Borrowed(family),
                column_qualifier: qualifier,
                time_range: range,
            }
        }
        3 => Mutation::DeleteFromFamily {
            family_name: Cow::Borrowed(r.str()?),
        },
        4 => Mutation::DeleteFromRow,
        _ => return None,
    })
}

/// The table id of a well-formed table name,
/// `projects/P/instances/I/tables/T` with `P`, `I` and `T` non-empty and
/// printable ASCII (the shape the core's own fast path accepts; anything
/// else goes to the general decoder). Read in place: every packed read
/// and write comes through here.
pub(crate) fn table_id(name: &str) -> Option<&str> {
    let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic() && b != b'/');
    let rest = name.strip_prefix("projects/")?;
    let (project, rest) = rest.split_once('/')?;
    let rest = rest.strip_prefix("instances/")?;
    let (instance, rest) = rest.split_once('/')?;
    let table = rest.strip_prefix("tables/")?;
    (ok(project) && ok(instance) && ok(table)).then_some(table)
}

/// What a packed write did.
pub(crate) enum Written {
    /// mutateRow succeeded.
    Row,
    /// mutateRows: one status per entry.
    Rows(Vec<Result<()>>),
}

/// Runs a packed write, or `None` if the request must go through the
/// general decoder. Nothing is written unless the whole request decoded.
/// One pass: each entry's mutations borrow `packed` wherever its bytes came
/// raw (the package decodes plain base64 itself).
pub(crate) fn run(db: &mut Instance, packed: &[u8]) -> Option<Result<Written>> {
    let mut r = Reader::new(packed);
    let kind = r.u8()?;
    let table = table_id(r.str()?)?;
    let count = r.u32()?;
    if kind == 2 && count != 1 {
        return None;
    }
    // Every entry takes at least six bytes: counts that say otherwise are
    // not believed when reserving room.
    let mut entries: Vec<MutateRowsEntry<'_>> = Vec::with_capacity(count.min(packed.len() / 6));
    for _ in 0..count {
        let row_key = r.bytes()?;
        let n = r.u32()?;
        if row_key.is_empty() || row_key.len() > MAX_ROW_KEY_BYTES || (n == 0 && kind == 1) {
            return None;
        }
        // A mutation takes at least one byte.
        let mut mutations = Vec::with_capacity(n.min(packed.len() - r.at));
        for _ in 0..n {
            mutations.push(mutation(&mut r)?);
        }
        entries.push(MutateRowsEntry { row_key, mutations });
    }
    if !r.is_done() {
        return None;
    }
    Some(match (kind, entries.pop()) {
        (2, Some(e)) => db
            .mutate_row(table, &e.row_key, &e.mutations)
            .map(|()| Written::Row),
        (1, last) => {
            entries.extend(last);
            db.mutate_rows(table, &entries).map(Written::Rows)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_accepts_exactly_what_the_core_accepts() {
        for text in [
            "", "QQ==", "QQ", "QUI=", "QUJD", "QUJDRA", "QQ=", "Q===", "QQ==QQ==", "-_8=", "_w",
            "QUJD\n", "QR==", "Q", "!!!!", "QUJDRA==",
        ] {
            let mut out = vec![9];
            let fast = decode_base64(text.as_bytes(), &mut out).map(|()| out[1..].to_vec());
            assert_eq!(fast, base64_text::decode(text).ok(), "{text:?}");
        }
    }

    /// A packed mutateRows of `entries`: (key, [(family, qualifier, value)])
    /// with every bytes field raw except values given as `Err(text)`, which
    /// go as base64 text.
    type Cell<'a> = (&'a str, &'a [u8], std::result::Result<&'a [u8], &'a str>);
    fn packed_rows(table: &str, entries: &[(&[u8], Vec<Cell<'_>>)]) -> Vec<u8> {
        let str = |out: &mut Vec<u8>, s: &[u8]| {
            out.extend_from_slice(&u32::try_from(s.len()).unwrap().to_le_bytes());
            out.extend_from_slice(s);
        };
        let mut out = vec![1];
        str(&mut out, table.as_bytes());
        out.extend_from_slice(&u32::try_from(entries.len()).unwrap().to_le_bytes());
        for (key, cells) in entries {
            out.push(1);
            str(&mut out, key);
            out.extend_from_slice(&u32::try_from(cells.len()).unwrap().to_le_bytes());
            for (family, qualifier, value) in cells {
                out.push(1);
                str(&mut out, family.as_bytes());
                out.push(1);
                str(&mut out, qualifier);
                out.push(1);
                out.extend_from_slice(&1000f64.to_le_bytes());
                match value {
                    Ok(_) => out.push(1),
                    Err(_) => out.push(2),
                }
                str(&mut out, value.map_or_else(str::as_bytes, |raw| raw));
            }
        }
        out
    }

    #[test]
    fn raw_and_base64_fields_are_written_and_a_bad_one_writes_nothing() {
        let mut t = crate::Tabletop::new();
        t.cbt("createtable t families=cf,cg");
        let table = "projects/p/instances/i/tables/t";
        let bad = packed_rows(
            table,
            &[
                (b"a", vec![("cf", b"q", Ok(b"1"))]),
                (b"b", vec![("cf", b"q", Err("!!!!"))]),
            ],
        );
        assert!(run(&mut t.instance, &bad).is_none());
        assert_eq!(t.cbt("count t"), "0\n");
        let good = packed_rows(
            table,
            &[
                (
                    b"a",
                    vec![("cf", b"q", Ok(b"raw")), ("cg", b"r", Err("YjY0"))],
                ),
                (b"b", vec![("cf", b"", Err("")), ("nope", b"q", Ok(b"x"))]),
                (b"c", vec![("cg", b"q", Err("LV8"))]),
            ],
        );
        let Some(Ok(Written::Rows(statuses))) = run(&mut t.instance, &good) else {
            panic!("the write was declined or failed");
        };
        assert!(statuses[0].is_ok() && statuses[2].is_ok());
        assert_eq!(
            statuses[1].as_ref().map_err(tabletop_core::Error::code),
            Err(tabletop_core::Code::NotFound)
        );
        // Row b failed whole; row c's value came as unpadded text, which
        // the core's own reader decodes.
        let cell =
            |q: &str, v: &str| format!("  {q:<40} @ 1970/01/01-00:00:00.001000\n    \"{v}\"\n");
        let rule = "-".repeat(40);
        let expected = format!(
            "{rule}\na\n{}{}\n{rule}\nc\n{}\n",
            cell("cf:q", "raw"),
            cell("cg:r", "b64"),
            cell("cg:q", "-_")
        );
        assert_eq!(t.cbt("read t"), expected);
        assert_eq!(t.cbt("count t"), "2\n");
        // Bytes past the last entry decline the whole request.
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(run(&mut t.instance, &trailing).is_none());
    }

    #[test]
    fn table_names_of_the_one_shape_give_their_id() {
        assert_eq!(table_id("projects/p/instances/i/tables/t"), Some("t"));
        assert_eq!(
            table_id("projects/my-p/instances/i_1/tables/mobile.v2"),
            Some("mobile.v2")
        );
        for name in [
            "",
            "projects/p/instances/i/tables/",
            "projects//instances/i/tables/t",
            "projects/p/instances//tables/t",
            "projects/p/instances/i/tables/t/",
            "projects/p/instances/i/tables/t/x",
            "projects/p/x/instances/i/tables/t",
            "projects/p/instances/i/tables",
            "projects/p/instances/i/table/t",
            "/projects/p/instances/i/tables/t",
            "projects/p/instances/i/tables/t u",
            "projects/p/instances/i/tables/\u{e9}",
            "projects/p/instances/i/tables/t\n",
            "project/p/instances/i/tables/t",
        ] {
            assert_eq!(table_id(name), None, "{name:?}");
        }
    }
}
