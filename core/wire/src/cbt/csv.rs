//! A CSV reader with the exact behaviour and error messages of Go's
//! `encoding/csv` `Reader` in its default configuration (comma separator,
//! strict quotes, every record as wide as the first), because `cbt import`
//! and `cbt createtable families=...` read their input with it.
//!
//! Rules: `\r\n` becomes `\n`; blank lines are skipped; a field that starts
//! with `"` is quoted (`""` is a quote, it may span lines, and must be
//! followed by `,` or the end of the line); a `"` inside an unquoted field
//! is an error. Errors read `parse error on line L, column C: ...` (with
//! `record on line S; ` in front when the record began on an earlier line)
//! or `record on line L: wrong number of fields`.
//!
//! Why not the `csv` crate: measured with csv 1.3, it reads `a"b,c` as
//! `["a\"b", "c"]` and `"a"b,c` as `["ab", "c"]` where Go's reader (and so
//! real `cbt import`) refuses both with the errors above, and it words its
//! own errors; `cbt import` here must accept and refuse what `cbt` does,
//! with its messages byte for byte (tests/cbt transcripts). This reader is
//! the only CSV reader of the workspace ([`crate::cbt::csv_record`] lends
//! it to the translators' CSV import).

/// Why a record could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CsvError {
    /// No more records (Go's `io.EOF`, printed as `EOF`).
    Eof,
    /// A syntax or field-count error, already worded as Go words it.
    Parse(String),
}

impl std::fmt::Display for CsvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CsvError::Eof => f.write_str("EOF"),
            CsvError::Parse(s) => f.write_str(s),
        }
    }
}

const ERR_BARE_QUOTE: &str = "bare \" in non-quoted-field";
const ERR_QUOTE: &str = "extraneous or missing \" in quoted-field";

fn parse_error(start_line: usize, line: usize, column: usize, what: &str) -> CsvError {
    if start_line == line {
        CsvError::Parse(format!(
            "parse error on line {line}, column {column}: {what}"
        ))
    } else {
        CsvError::Parse(format!(
            "record on line {start_line}; parse error on line {line}, column {column}: {what}"
        ))
    }
}

/// One record: its fields.
pub(crate) type Record = Vec<Vec<u8>>;

/// The longest line the reader takes (a Bigtable row is at most 256 MB,
/// so no importable line is longer); a longer one is an error, not a
/// line read into memory until it ends.
pub(crate) const MAX_LINE_BYTES: u64 = 256 << 20;

/// Reads records one at a time from a byte stream (a buffer, or a file
/// read as it goes), holding one record in memory at a time.
pub(crate) struct CsvReader<R> {
    input: R,
    num_line: usize,
    fields_per_record: Option<usize>,
}

/// Length of a trailing `\n` (0 or 1).
fn length_nl(b: &[u8]) -> usize {
    usize::from(b.last() == Some(&b'\n'))
}

impl<R: std::io::BufRead> CsvReader<R> {
    pub(crate) fn new(input: R) -> CsvReader<R> {
        CsvReader {
            input,
            num_line: 0,
            fields_per_record: None,
        }
    }

    /// The next line with its `\n` (normalised from `\r\n`); `None` at the
    /// end of the input.
    fn read_line(&mut self) -> Result<Option<Vec<u8>>, CsvError> {
        use std::io::{BufRead, Read};
        let mut line = Vec::new();
        let n = (&mut self.input)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| CsvError::Parse(format!("read error: {e}")))?;
        if n == 0 {
            return Ok(None);
        }
        if line.len() as u64 > MAX_LINE_BYTES {
            return Err(CsvError::Parse(format!(
                "line {} is longer than {} MiB",
                self.num_line + 1,
                MAX_LINE_BYTES >> 20
            )));
        }
        let eof = line.last() != Some(&b'\n');
        if eof && line.last() == Some(&b'\r') {
            // A trailing \r before the end of input is dropped.
            line.pop();
        }
        self.num_line += 1;
        let n = line.len();
        if n >= 2 && line[n - 2] == b'\r' && line[n - 1] == b'\n' {
            line.truncate(n - 2);
            line.push(b'\n');
        }
        Ok(Some(line))
    }

    /// The next record.
    pub(crate) fn read(&mut self) -> Result<Record, CsvError> {
        // Skip empty lines.
        let mut line = loop {
            match self.read_line()? {
                None => return Err(CsvError::Eof),
                Some(l) if l.len() == length_nl(&l) => {}
                Some(l) => break l,
            }
        };
        let rec_line = self.num_line;
        let mut fields: Vec<Vec<u8>> = Vec::new();
        let mut pos_line = self.num_line;
        let mut pos_col = 1usize;
        // `cur` indexes into `line`; a quoted field spanning lines replaces
        // `line` with the next one.
        let mut cur = 0usize;
        'fields: loop {
            let rest = &line[cur..];
            if rest.first() != Some(&b'"') {
                // Unquoted field.
                let comma = rest.iter().position(|&b| b == b',');
                let field = match comma {
                    Some(i) => &rest[..i],
                    None => &rest[..rest.len() - length_nl(rest)],
                };
                if let Some(j) = field.iter().position(|&b| b == b'"') {
                    return Err(parse_error(
                        rec_line,
                        self.num_line,
                        pos_col + j,
                        ERR_BARE_QUOTE,
                    ));
                }
                fields.push(field.to_vec());
                match comma {
                    Some(i) => {
                        cur += i + 1;
                        pos_col += i + 1;
                        continue 'fields;
                    }
                    None => break 'fields,
                }
            }
            // Quoted field.
            let mut value: Vec<u8> = Vec::new();
            cur += 1;
            pos_col += 1;
            loop {
                let rest = &line[cur..];
                if let Some(i) = rest.iter().position(|&b| b == b'"') {
                    value.extend_from_slice(&rest[..i]);
                    cur += i + 1;
                    pos_col += i + 1;
                    let after = &line[cur..];
                    match after.first() {
                        Some(b'"') => {
                            value.push(b'"');
                            cur += 1;
                            pos_col += 1;
                        }
                        Some(b',') => {
                            cur += 1;
                            pos_col += 1;
                            fields.push(value);
                            continue 'fields;
                        }
                        _ if after.len() == length_nl(after) => {
                            fields.push(value);
                            break 'fields;
                        }
                        _ => {
                            return Err(parse_error(
                                rec_line,
                                self.num_line,
                                pos_col - 1,
                                ERR_QUOTE,
                            ));
                        }
                    }
                } else if !rest.is_empty() {
                    // The field goes on past the end of the line.
                    value.extend_from_slice(rest);
                    pos_col += rest.len();
                    line = self.read_line()?.unwrap_or_default();
                    cur = 0;
                    if !line.is_empty() {
                        pos_line += 1;
                        pos_col = 1;
                    }
                } else {
                    // The input ended inside the quotes.
                    return Err(parse_error(rec_line, pos_line, pos_col, ERR_QUOTE));
                }
            }
        }
        match self.fields_per_record {
            Some(n) if n != fields.len() => Err(CsvError::Parse(format!(
                "record on line {rec_line}: wrong number of fields"
            ))),
            Some(_) => Ok(fields),
            None => {
                self.fields_per_record = Some(fields.len());
                Ok(fields)
            }
        }
    }
}

/// Reads exactly one record, as `csv.NewReader(strings.NewReader(s)).Read()`.
pub(crate) fn read_one(s: &[u8]) -> Result<Record, CsvError> {
    CsvReader::new(s).read()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(s: &str) -> Vec<Result<Vec<String>, String>> {
        let mut r = CsvReader::new(s.as_bytes());
        let mut out = Vec::new();
        loop {
            match r.read() {
                Ok(rec) => out.push(Ok(rec
                    .into_iter()
                    .map(|f| String::from_utf8(f).unwrap())
                    .collect())),
                Err(CsvError::Eof) => break,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    break;
                }
            }
        }
        out
    }

    /// `a,b` lines without end.
    struct Endless;

    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            for (i, b) in buf.iter_mut().enumerate() {
                *b = b"a,b\n"[i % 4];
            }
            Ok(buf.len() / 4 * 4)
        }
    }

    #[test]
    fn a_stream_is_read_record_by_record() {
        let mut r = CsvReader::new(std::io::BufReader::new(Endless));
        for _ in 0..1000 {
            assert_eq!(r.read().unwrap(), vec![b"a".to_vec(), b"b".to_vec()]);
        }
        assert_eq!(r.num_line, 1000);
    }

    #[test]
    fn reads_like_go() {
        assert_eq!(
            all(",cf,,sum\r\n,a,b,c\n\nr1,\"x,\"\"y\"\"\",,\"multi\nline\"\n"),
            vec![
                Ok(vec!["".into(), "cf".into(), "".into(), "sum".into()]),
                Ok(vec!["".into(), "a".into(), "b".into(), "c".into()]),
                Ok(vec![
                    "r1".into(),
                    "x,\"y\"".into(),
                    "".into(),
                    "multi\nline".into()
                ]),
            ]
        );
        assert_eq!(
            all("a,b\nc\n")[1],
            Err("record on line 2: wrong number of fields".into())
        );
        assert_eq!(
            all(",cf\n,a\nk,\"unterminated\n")[2],
            Err(
                "parse error on line 3, column 17: extraneous or missing \" in quoted-field".into()
            )
        );
        assert_eq!(
            all(",cf\n,a\nk,a\"b\n")[2],
            Err("parse error on line 3, column 4: bare \" in non-quoted-field".into())
        );
        assert_eq!(
            all("\"a\"b,c\n")[0],
            Err("parse error on line 1, column 3: extraneous or missing \" in quoted-field".into())
        );
        assert_eq!(read_one(b""), Err(CsvError::Eof));
        assert_eq!(read_one(b"a,,b").unwrap().len(), 3);
    }
}
