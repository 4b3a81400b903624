//! Reads for JavaScript: rows packed into one byte buffer that the
//! package's JavaScript turns into `google.bigtable.v2.Row` objects, with
//! no JSON text in between, a cap on the size of one answer, and cursors
//! that read a big answer a chunk at a time.
//!
//! The format (little-endian): a whole answer is `stats_len:u32 base:u32
//! keys_len:u32 row* stats`, where `stats` is `stats_len` bytes of
//! `requestStats` JSON (none unless asked for) and `base` the number of
//! dictionary entries the answer starts from (see [`Dictionary`]: whole
//! answers share one dictionary, kept from call to call). When the answer
//! was asked with its keys apart (see [`Format`]), the rows' keys are
//! base64 text of `keys_len` bytes in a buffer of their own
//! ([`Packed::keys`]), one after the other. A cursor's chunk is `row*`,
//! with a dictionary of its own that starts
//! empty. One record per row:
//!
//! ```text
//! row  := key:str cells:u32 cell*cells
//! cell := flags:u8 [family:str if flags&1] [qualifier:str if flags&2]
//!         timestamp:str value:str [label:str if flags&4]
//! str  := len:u32 ascii*len          a string (len < 2^30)
//!       | (0x4000_0000|len):u32 ascii*len   a string, also the next entry of
//!                                           the dictionary
//!       | (0x8000_0000|id):u32              dictionary entry `id`
//! ```
//!
//! Keys, qualifiers and values are base64 (as proto3 JSON writes bytes),
//! timestamps decimal (empty for 0), so every string is ASCII; but for an
//! answer asked with raw values (`{ values: 'bytes' }`), a cell's value is
//! `len:u32 byte*len`, the value's own bytes, never in the dictionary, and
//! for an answer asked with raw keys (what Node's reader asks of a
//! cursor, see [`Format`]) so is each row's key; in an answer asked with
//! its keys apart, a row's key is `len:u32`, its text being the next `len`
//! bytes of `keys`. Flag 1
//! starts a new family, flag 2 a new column, flag 4 says the cell has a
//! label (most have none: their label is not sent); cells come in the order
//! the engine returns them (family, qualifier, newest first). Which strings
//! go through the dictionary is the packer's choice (the reader takes
//! either form anywhere): row keys never, values only when they are one
//! byte long or longer than `INLINE_VALUE_LEN` bytes, anything only up to
//! `MAX_SHARED_LEN` characters.

use std::io::Write as _;

use rustc_hash::FxHashMap as HashMap;

use tabletop_core::{
    Code, Error, Instance, KeyBound, ReadRowsRequest, ReadStats, RowRange, RowSet, RowSink,
    RowView, successor,
};

use crate::b64;
use crate::dictionary::{Dictionary, Kind};

/// The largest readRows answer, packed, that one call builds (256 MiB);
/// past it the call fails with RESOURCE_EXHAUSTED and the cursor
/// (`readRowsIter`) is the way to read everything.
pub(crate) const DEFAULT_MAX_ANSWER_BYTES: usize = 256 << 20;

/// A chunk of a cursor stops after this many bytes or rows.
const CHUNK_BYTES: usize = 4 << 20;
const CHUNK_ROWS: u64 = 4096;

/// How an answer's bytes are written: as base64 text, as proto3 JSON
/// writes them, or as the bytes themselves for the reader to turn into
/// what it needs. The JavaScript side passes it as a number: bit 0 for
/// values as bytes (`{ values: 'bytes' }`), bit 1 for row keys as bytes
/// (Node, which makes base64 text natively from a buffer faster than the
/// packer writes it and the reader copies it), bit 2 for row keys as
/// base64 text apart from the rows, at the end of a whole answer (the
/// reader makes one string of them all and cuts each key out of it; it
/// wins over bit 1, and a cursor's chunks never have it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Format {
    pub(crate) raw_values: bool,
    pub(crate) raw_keys: bool,
    pub(crate) keys_apart: bool,
}

impl Format {
    pub(crate) fn from_bits(bits: u32) -> Format {
        Format {
            raw_values: bits & 1 != 0,
            raw_keys: bits & 2 != 0,
            keys_apart: bits & 4 != 0,
        }
    }
}

/// A sink that packs rows until a byte budget or a row budget runs out.
///
/// One `Packed` serves call after call ([`Packed::start_answer`]): its
/// buffer keeps its memory and its dictionary its entries, so a point read
/// allocates nothing here once the first calls have grown them, and sends
/// only entry ids for the strings earlier answers already carried.
#[derive(Debug)]
pub(crate) struct Packed {
    pub(crate) buf: Vec<u8>,
    /// The rows' keys as base64 text, for an answer asked with its keys
    /// apart ([`Packed::finish`] appends them to `buf`).
    keys: Vec<u8>,
    /// Where the rows start in `buf` (after a header the caller reserved).
    rows_at: usize,
    dict: Dictionary,
    /// The dictionary entries of the timestamps written, by value (so a
    /// repeated timestamp is neither formatted nor hashed as text again).
    ts_ids: HashMap<i64, u32>,
    /// The last timestamp written and its entry: the cells of a row mostly
    /// share one timestamp, so most cells need no lookup in `ts_ids`.
    last_ts: Option<(i64, u32)>,
    /// The dictionary entries of the last few families written (rows
    /// mostly go through the same families in turn), and the next slot to
    /// replace.
    families: [Option<u32>; FAMILY_SLOTS],
    next_family: usize,
    /// The dictionary entries of the qualifiers of the last row written,
    /// column by column, and of the row being written: the rows of a table
    /// mostly have the same columns in the same order, so a qualifier is
    /// first compared with the one at its place in the row before (no
    /// hash).
    prev_columns: Vec<u32>,
    columns: Vec<u32>,
    /// The dictionary entry of "".
    empty_id: Option<u32>,
    /// The dictionary entries of one-byte values, by the byte
    /// ([`NO_ENTRY`] for none yet): flags and digits repeat cell after
    /// cell, and an entry costs the reader an array load where an inline
    /// string costs a new string.
    byte_values: [u32; 256],
    pub(crate) rows: u64,
    /// The key of the last row written, for a cursor's chunk (where the
    /// next chunk resumes); whole answers, which never resume, leave it
    /// empty rather than copy every row's key.
    pub(crate) last_key: Vec<u8>,
    /// A row did not fit the byte budget (it was not written).
    pub(crate) over: bool,
    /// The row budget ran out (more rows may follow).
    pub(crate) full: bool,
    max_bytes: usize,
    max_rows: u64,
    /// Values (and keys) as their own bytes rather than base64 text.
    format: Format,
}

impl Packed {
    pub(crate) fn new(max_bytes: usize, max_rows: u64, format: Format) -> Packed {
        let mut p = Packed {
            buf: Vec::new(),
            keys: Vec::new(),
            rows_at: 0,
            dict: Dictionary::default(),
            ts_ids: HashMap::default(),
            last_ts: None,
            families: [None; FAMILY_SLOTS],
            next_family: 0,
            prev_columns: Vec::new(),
            columns: Vec::new(),
            empty_id: None,
            byte_values: [NO_ENTRY; 256],
            rows: 0,
            last_key: Vec::new(),
            over: false,
            full: false,
            max_bytes,
            max_rows,
            format,
        };
        p.reset(0, max_bytes, max_rows, format);
        p
    }

    /// Empties the sink for a new answer, keeping its memory (unless the
    /// last answer made it unusually large: one that failed part way, or
    /// one the reader did not give back) and its dictionary's first `known`
    /// entries (the ones the reader holds; all of them are dropped if the
    /// dictionary is full); the buffer starts with `header` zero bytes for
    /// the caller to fill. Answers how many entries were kept: the
    /// answer's `base`.
    pub(crate) fn start_answer(
        &mut self,
        header: usize,
        max_bytes: usize,
        format: Format,
        known: u32,
    ) -> u32 {
        self.trim();
        self.reset(header, max_bytes, u64::MAX, format);
        let keep = if self.dict.len() >= MAX_SHARED {
            0
        } else {
            self.dict.len().min(known as usize)
        };
        self.forget_from(keep);
        len32(keep)
    }

    /// Drops the dictionary entries from `n` on, and every shortcut to them.
    fn forget_from(&mut self, n: usize) {
        if n >= self.dict.len() {
            return;
        }
        self.dict.truncate(n);
        let limit = len32(n);
        if n == 0 {
            self.ts_ids.clear();
        } else {
            self.ts_ids.retain(|_, id| *id < limit);
        }
        self.last_ts = self.last_ts.filter(|(_, id)| *id < limit);
        for slot in &mut self.families {
            *slot = slot.filter(|id| *id < limit);
        }
        self.prev_columns.clear();
        self.empty_id = self.empty_id.filter(|id| *id < limit);
        for id in &mut self.byte_values {
            if *id >= limit {
                *id = NO_ENTRY;
            }
        }
    }

    /// Empties the buffer for a new answer or chunk, keeping its memory
    /// (the dictionary stays as it is); the buffer starts with `header`
    /// zero bytes for the caller to fill.
    fn reset(&mut self, header: usize, max_bytes: usize, max_rows: u64, format: Format) {
        self.buf.clear();
        self.buf.resize(header, 0);
        self.keys.clear();
        self.rows_at = header;
        self.rows = 0;
        self.last_key.clear();
        self.over = false;
        self.full = false;
        self.max_bytes = max_bytes;
        self.max_rows = max_rows;
        self.format = format;
    }

    /// A string: short ones go through the dictionary, so the JavaScript
    /// side makes each distinct family, qualifier, timestamp, label or short
    /// value once (once per object for whole answers, once per chunk for a
    /// cursor's).
    fn str(&mut self, s: &[u8]) {
        self.str_id(s);
    }

    /// [`Packed::str`], answering the string's dictionary entry if it has one.
    fn str_id(&mut self, s: &[u8]) -> Option<u32> {
        if s.len() <= MAX_SHARED_LEN && self.dict.len() < MAX_SHARED {
            if let Some(id) = self.dict.find(Kind::Text, s) {
                self.shared_ref(id);
                return Some(id);
            }
            self.buf
                .extend_from_slice(&(len32(s.len()) | SHARED_NEW).to_le_bytes());
            self.buf.extend_from_slice(s);
            return Some(self.dict.add(Kind::Text, s));
        }
        self.buf.extend_from_slice(&len32(s.len()).to_le_bytes());
        self.buf.extend_from_slice(s);
        None
    }

    /// A dictionary reference to entry `id`.
    fn shared_ref(&mut self, id: u32) {
        self.buf.extend_from_slice(&(id | SHARED_REF).to_le_bytes());
    }

    /// Bytes as they are: `len:u32 byte*len`.
    fn raw(&mut self, bytes: &[u8]) {
        self.buf
            .extend_from_slice(&len32(bytes.len()).to_le_bytes());
        self.buf.extend_from_slice(bytes);
    }

    /// The empty string (a timestamp of 0).
    fn empty(&mut self) {
        match self.empty_id {
            Some(id) => self.shared_ref(id),
            None => self.empty_id = self.str_id(b""),
        }
    }

    /// A family name; a row's families repeat from row to row.
    fn family(&mut self, name: &str) {
        for id in self.families.into_iter().flatten() {
            if self.dict.holds(id, Kind::Text, name.as_bytes()) {
                self.shared_ref(id);
                return;
            }
        }
        self.families[self.next_family] = self.str_id(name.as_bytes());
        self.next_family = (self.next_family + 1) % FAMILY_SLOTS;
    }

    /// A qualifier, the next column of the row being written.
    fn qualifier(&mut self, q: &[u8]) {
        let at = self.columns.len();
        if let Some(&id) = self.prev_columns.get(at)
            && (id as usize) < self.dict.len()
            && self.dict.holds(id, Kind::Base64, q)
        {
            self.shared_ref(id);
            self.columns.push(id);
            return;
        }
        let id = self.base64(q, true).unwrap_or(NO_ENTRY);
        self.columns.push(id);
    }

    /// A timestamp as decimal text, empty for 0.
    fn timestamp(&mut self, micros: i64) {
        if micros == 0 {
            self.empty();
            return;
        }
        if let Some((last, id)) = self.last_ts
            && last == micros
        {
            self.shared_ref(id);
            return;
        }
        if let Some(&id) = self.ts_ids.get(&micros) {
            self.shared_ref(id);
            self.last_ts = Some((micros, id));
            return;
        }
        let mut text = [0u8; 24];
        let mut at = &mut text[..];
        let _ = write!(at, "{micros}");
        let n = 24 - at.len();
        if let Some(id) = self.str_id(&text[..n]) {
            self.ts_ids.insert(micros, id);
            self.last_ts = Some((micros, id));
        }
    }

    /// A cell's value as base64: one byte through its entry, up to
    /// [`INLINE_VALUE_LEN`] bytes inline, longer ones through the
    /// dictionary.
    fn value(&mut self, v: &[u8]) {
        if let [b] = *v {
            let id = self.byte_values[usize::from(b)];
            if id != NO_ENTRY {
                self.shared_ref(id);
                return;
            }
            self.byte_values[usize::from(b)] = self.base64(v, true).unwrap_or(NO_ENTRY);
            return;
        }
        self.base64(v, v.len() > INLINE_VALUE_LEN);
    }

    /// Bytes as base64; `shared` for strings that may repeat in an answer
    /// (qualifiers, values), not for row keys, which never do.
    /// Answers the string's dictionary entry if it has one.
    fn base64(&mut self, bytes: &[u8], shared: bool) -> Option<u32> {
        let n = b64::encoded_len(bytes.len());
        let shared = shared && n <= MAX_SHARED_LEN && self.dict.len() < MAX_SHARED;
        if shared && let Some(id) = self.dict.find(Kind::Base64, bytes) {
            self.shared_ref(id);
            return Some(id);
        }
        let flag = if shared { SHARED_NEW } else { 0 };
        self.buf.extend_from_slice(&(len32(n) | flag).to_le_bytes());
        b64::extend(&mut self.buf, bytes);
        shared.then(|| self.dict.add(Kind::Base64, bytes))
    }
}

/// Strings up to this long are shared through the dictionary, up to this
/// many distinct ones (in the dictionary of whole answers, or of one
/// chunk).
const MAX_SHARED_LEN: usize = 32;
const MAX_SHARED: usize = 1 << 16;
/// How many recent families [`Packed`] remembers.
const FAMILY_SLOTS: usize = 4;
/// Values of 2 to this many bytes are sent inline, never through the
/// dictionary (see BENCHMARKS.md, "tabletop-js against sql.js"); values of
/// one byte are entries (at most 256 of them).
const INLINE_VALUE_LEN: usize = 6;
/// Length word flags: the string is dictionary entry `len & 0x3fff_ffff`;
/// the string follows and becomes the next dictionary entry.
const SHARED_REF: u32 = 0x8000_0000;
/// In [`Packed`]'s list of a row's columns: a qualifier sent inline (no
/// entry has this id).
const NO_ENTRY: u32 = u32::MAX;
const SHARED_NEW: u32 = 0x4000_0000;

pub(crate) fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// An upper bound of a row's packed size.
fn packed_size(row: &RowView<'_>) -> usize {
    let cells: usize = row
        .cells
        .iter()
        .map(|c| {
            1 + 8
                + c.family.len()
                + b64::encoded_len(c.qualifier.len())
                + 24
                + 4
                + b64::encoded_len(c.value.len())
                + 4
                + c.label.map_or(0, str::len)
        })
        .sum();
    8 + b64::encoded_len(row.key.len()) + cells
}

impl RowSink for Packed {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        // A chunk always takes its first row, whatever its size; an answer
        // stops before the row that would pass its budget.
        let first_of_chunk = self.rows == 0 && self.max_rows != u64::MAX;
        let packed = self.buf.len() - self.rows_at + self.keys.len();
        if !first_of_chunk && packed + packed_size(&row) > self.max_bytes {
            self.over = true;
            return false;
        }
        if self.format.keys_apart {
            let n = b64::encoded_len(row.key.len());
            self.buf.extend_from_slice(&len32(n).to_le_bytes());
            b64::extend(&mut self.keys, row.key);
        } else if self.format.raw_keys {
            self.raw(row.key);
        } else {
            self.base64(row.key, false);
        }
        self.columns.clear();
        self.buf
            .extend_from_slice(&len32(row.cells.len()).to_le_bytes());
        let mut prev: Option<(&str, &[u8])> = None;
        for c in row.cells {
            let new_family = prev.is_none_or(|(f, _)| f != c.family);
            let new_column = new_family || prev.is_some_and(|(_, q)| q != c.qualifier);
            let label = c.label.filter(|l| !l.is_empty());
            self.buf.push(
                u8::from(new_family)
                    | (u8::from(new_column) << 1)
                    | (u8::from(label.is_some()) << 2),
            );
            if new_family {
                self.family(c.family);
            }
            if new_column {
                self.qualifier(c.qualifier);
            }
            self.timestamp(c.timestamp_micros);
            if self.format.raw_values {
                self.raw(c.value);
            } else {
                self.value(c.value);
            }
            if let Some(label) = label {
                self.str(label.as_bytes());
            }
            prev = Some((c.family, c.qualifier));
        }
        std::mem::swap(&mut self.columns, &mut self.prev_columns);
        self.rows += 1;
        if self.max_rows != u64::MAX {
            self.last_key.clear();
            self.last_key.extend_from_slice(row.key);
        }
        if self.rows >= self.max_rows {
            self.full = true;
            return false;
        }
        true
    }
}

/// What a whole answer is read for: its byte budget, whether values come
/// as their own bytes, and how many dictionary entries the reader holds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AnswerFor {
    pub(crate) max_bytes: usize,
    pub(crate) format: Format,
    pub(crate) known: u32,
}

/// A whole answer packed into `sink` (emptied first, then a 12-byte
/// header: the stats' length and the keys' length, which
/// [`Packed::finish`] writes, and the dictionary `base`), or
/// RESOURCE_EXHAUSTED past `max_bytes`.
pub(crate) fn answer(
    db: &mut Instance,
    table: &str,
    req: &ReadRowsRequest,
    to: AnswerFor,
    sink: &mut Packed,
) -> Result<ReadStats, Error> {
    let base = sink.start_answer(HEADER_BYTES, to.max_bytes, to.format, to.known);
    sink.buf[4..8].copy_from_slice(&base.to_le_bytes());
    let stats = db.read_rows(table, req, sink)?;
    let max_bytes = to.max_bytes;
    if sink.over {
        return Err(too_big(max_bytes));
    }
    Ok(stats)
}

/// A whole answer's header: `stats_len:u32 base:u32 keys_len:u32`.
const HEADER_BYTES: usize = 12;

/// A reused answer buffer keeps at most this much memory between calls.
const KEEP_BYTES: usize = 1 << 20;

/// The keys' text buffer keeps at most this much between calls: the keys'
/// text of an answer of 33,433 rows (1.07 MB, its rows 0.84 MB) regrown
/// from empty every call cost about 0.6 ms of the answer's 6 in wasm
/// (keeping the rows' buffer up to 16 MiB as well made no clear
/// difference).
const KEEP_KEY_BYTES: usize = 4 << 20;

impl Packed {
    /// Completes an answer: `stats` (JSON text, or nothing) goes after the
    /// rows, and its length and the keys' into the header, so the answer
    /// reads `stats_len:u32 base:u32 keys_len:u32 row* stats`; the keys'
    /// text (if they were kept apart) stays in [`Packed::keys`], not
    /// copied.
    pub(crate) fn finish(&mut self, stats: &[u8]) -> &[u8] {
        self.buf[..4].copy_from_slice(&len32(stats.len()).to_le_bytes());
        self.buf[8..12].copy_from_slice(&len32(self.keys.len()).to_le_bytes());
        self.buf.extend_from_slice(stats);
        &self.buf
    }

    /// The rows' keys' text of an answer asked with its keys apart.
    pub(crate) fn keys(&self) -> &[u8] {
        &self.keys
    }

    /// Gives back the memory of an unusually large answer.
    pub(crate) fn trim(&mut self) {
        if self.buf.capacity() > KEEP_BYTES {
            self.buf = Vec::new();
        }
        if self.keys.capacity() > KEEP_KEY_BYTES {
            self.keys = Vec::new();
        }
    }
}

/// A sink that only adds up an upper bound of the JSON text rows make,
/// stopping once it passes `max`.
struct JsonSize {
    bytes: usize,
    max: usize,
}

impl RowSink for JsonSize {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        // `{"key":"","families":[]}` and per cell
        // `{"name":"","columns":[{"qualifier":"","cells":[{"timestampMicros":"","value":"","labels":[""]}]}]}`.
        let cells: usize = row
            .cells
            .iter()
            .map(|c| {
                120 + c.family.len()
                    + b64::encoded_len(c.qualifier.len())
                    + b64::encoded_len(c.value.len())
                    + c.label.map_or(0, str::len)
            })
            .sum();
        self.bytes = self
            .bytes
            .saturating_add(32 + b64::encoded_len(row.key.len()) + cells);
        self.bytes <= self.max
    }
}

/// RESOURCE_EXHAUSTED when the JSON answer of a readRows could pass `max`
/// bytes (for the text and value paths, which build the whole answer).
pub(crate) fn check_json_size(
    db: &mut Instance,
    table: &str,
    req: &ReadRowsRequest,
    max: usize,
) -> Result<(), Error> {
    let mut sink = JsonSize { bytes: 0, max };
    db.read_rows(table, req, &mut sink)?;
    if sink.bytes > max {
        return Err(too_big(max));
    }
    Ok(())
}

fn too_big(max: usize) -> Error {
    Error::new(
        Code::ResourceExhausted,
        format!(
            "the readRows answer is larger than {max} bytes, the most one call returns; \
             read it row by row with readRowsIter, or narrow the request"
        ),
    )
}

/// A read in progress: what is left of the request.
#[derive(Debug)]
pub(crate) struct Cursor {
    table: String,
    req: ReadRowsRequest,
    done: bool,
    format: Format,
}

impl Cursor {
    pub(crate) fn new(table: String, req: ReadRowsRequest, format: Format) -> Cursor {
        Cursor {
            table,
            req,
            done: false,
            // A chunk has no place for its keys apart.
            format: Format {
                keys_apart: false,
                ..format
            },
        }
    }

    /// The next chunk of rows, packed; `None` once the read is over.
    pub(crate) fn next(&mut self, db: &mut Instance) -> Result<Option<Vec<u8>>, Error> {
        if self.done {
            return Ok(None);
        }
        let mut sink = Packed::new(CHUNK_BYTES, CHUNK_ROWS, self.format);
        db.read_rows(&self.table, &self.req, &mut sink)?;
        let more = sink.full || sink.over;
        if sink.rows == 0 {
            self.done = true;
            return Ok(None);
        }
        self.done = !more || !self.resume_after(sink.rows, &sink.last_key);
        Ok(Some(sink.buf))
    }

    /// Narrows the request to the rows after `last` (before it, reversed)
    /// and lowers the row limit by what was returned, as Bigtable's clients
    /// resume a stream. False when nothing can be left.
    fn resume_after(&mut self, returned: u64, last: &[u8]) -> bool {
        if self.req.rows_limit > 0 {
            let left = self.req.rows_limit - i64::try_from(returned).unwrap_or(i64::MAX);
            if left <= 0 {
                return false;
            }
            self.req.rows_limit = left;
        }
        match rows_after(&self.req.rows, last, self.req.reversed) {
            Some(rows) => {
                self.req.rows = rows;
                true
            }
            None => false,
        }
    }
}

/// The part of `rows` strictly after `last` (strictly before it when
/// reversed); `None` when that part is empty.
fn rows_after(rows: &RowSet, last: &[u8], reversed: bool) -> Option<RowSet> {
    let all = [RowRange::default()];
    let ranges: &[RowRange] = if rows.is_all() {
        &all
    } else {
        &rows.row_ranges
    };
    let keep = |k: &Vec<u8>| {
        if reversed {
            k.as_slice() < last
        } else {
            k.as_slice() > last
        }
    };
    let out = RowSet {
        row_keys: rows.row_keys.iter().filter(|k| keep(k)).cloned().collect(),
        row_ranges: ranges
            .iter()
            .filter_map(|r| {
                if reversed {
                    before(r, last)
                } else {
                    after(r, last)
                }
            })
            .collect(),
    };
    (!out.row_keys.is_empty() || !out.row_ranges.is_empty()).then_some(out)
}

/// `r` without the keys up to and including `last`.
fn after(r: &RowRange, last: &[u8]) -> Option<RowRange> {
    let ends_after = match &r.end {
        KeyBound::Unbounded => true,
        KeyBound::Closed(e) => e.as_slice() > last,
        KeyBound::Open(e) => *e > successor(last),
    };
    let starts_after = match &r.start {
        KeyBound::Unbounded => false,
        KeyBound::Closed(s) => s.as_slice() > last,
        KeyBound::Open(s) => s.as_slice() >= last,
    };
    ends_after.then(|| RowRange {
        start: if starts_after {
            r.start.clone()
        } else {
            KeyBound::Open(last.to_vec())
        },
        end: r.end.clone(),
    })
}

/// `r` without the keys from `last` on.
fn before(r: &RowRange, last: &[u8]) -> Option<RowRange> {
    let starts_before = match &r.start {
        KeyBound::Unbounded => true,
        KeyBound::Closed(s) => s.as_slice() < last,
        KeyBound::Open(s) => successor(s).as_slice() < last,
    };
    let ends_before = match &r.end {
        KeyBound::Unbounded => false,
        KeyBound::Closed(e) => e.as_slice() < last,
        KeyBound::Open(e) => e.as_slice() <= last,
    };
    starts_before.then(|| RowRange {
        start: r.start.clone(),
        end: if ends_before {
            r.end.clone()
        } else {
            KeyBound::Open(last.to_vec())
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use tabletop_core::CellView;

    fn closed_open(a: &str, b: &str) -> RowRange {
        RowRange::closed_open(a.as_bytes(), b.as_bytes())
    }

    /// The length word of the next string in `p.buf` from `at`.
    fn word(p: &Packed, at: usize) -> u32 {
        u32::from_le_bytes(p.buf[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn the_dictionary_keeps_what_the_reader_holds() {
        let mut p = Packed::new(usize::MAX, u64::MAX, Format::default());
        assert_eq!(p.start_answer(8, usize::MAX, Format::default(), 0), 0);
        p.family("cf");
        p.timestamp(5);
        p.base64(b"q", true);
        p.empty();
        assert_eq!(p.dict.len(), 4);
        // The reader read them all: the next answer refers to them.
        assert_eq!(p.start_answer(8, usize::MAX, Format::default(), 4), 4);
        assert_eq!(p.buf.len(), 8);
        p.timestamp(5);
        p.base64(b"q", true);
        p.family("cf");
        assert_eq!(
            (word(&p, 8), word(&p, 12), word(&p, 16)),
            (1 | SHARED_REF, 2 | SHARED_REF, SHARED_REF)
        );
        // The reader holds two (an answer failed, or was not read): the
        // others are sent again, as new entries with the next ids.
        assert_eq!(p.start_answer(8, usize::MAX, Format::default(), 2), 2);
        p.base64(b"q", true);
        assert_eq!(word(&p, 8), 4 | SHARED_NEW);
        assert_eq!(&p.buf[12..16], b"cQ==");
        p.empty();
        assert_eq!(word(&p, 16), SHARED_NEW);
        p.timestamp(5);
        p.family("cf");
        assert_eq!((word(&p, 20), word(&p, 24)), (1 | SHARED_REF, SHARED_REF));
        assert_eq!(p.dict.find(Kind::Base64, b"q"), Some(2));
        assert_eq!(p.dict.find(Kind::Text, b""), Some(3));
        // A reader holding more than was sent (a restored object's old
        // strings) starts from what the dictionary has.
        assert_eq!(p.start_answer(8, usize::MAX, Format::default(), 100), 4);
        // A reader holding none starts from an empty dictionary.
        assert_eq!(p.start_answer(8, usize::MAX, Format::default(), 0), 0);
        assert_eq!(p.dict.find(Kind::Text, b"cf"), None);
        p.timestamp(5);
        assert_eq!(word(&p, 8), 1 | SHARED_NEW);
    }

    /// A cell as the reader sees it: family, qualifier, timestamp and
    /// value as the answer's text.
    type Decoded = (String, String, String, String);

    /// Reads the rows of a whole answer packed as `format` says the way
    /// the package's JavaScript does, with `shared` the reader's
    /// dictionary; keys sent as bytes are turned into base64 here, as Node
    /// does for the package, and keys apart are cut from their text.
    fn decode(
        buf: &[u8],
        keys: &[u8],
        format: Format,
        shared: &mut Vec<String>,
    ) -> Vec<(String, Vec<Decoded>)> {
        let header =
            |i: usize| u32::from_le_bytes(buf[4 * i..4 * i + 4].try_into().unwrap()) as usize;
        assert_eq!(header(0), 0, "no stats were asked for");
        assert_eq!(header(2), keys.len());
        let keys = std::str::from_utf8(keys).unwrap();
        let mut key_at = 0;
        let mut at = HEADER_BYTES;
        let word = |at: &mut usize| {
            let w = u32::from_le_bytes(buf[*at..*at + 4].try_into().unwrap());
            *at += 4;
            w
        };
        let text = |at: &mut usize, shared: &mut Vec<String>| {
            let w = word(at);
            if w & SHARED_REF != 0 {
                return shared[(w & !SHARED_REF) as usize].clone();
            }
            let n = (w & 0x3fff_ffff) as usize;
            let s = String::from_utf8(buf[*at..*at + n].to_vec()).unwrap();
            *at += n;
            if w & SHARED_NEW != 0 {
                shared.push(s.clone());
            }
            s
        };
        let mut rows = Vec::new();
        while at < buf.len() {
            let key = if format.keys_apart {
                let n = word(&mut at) as usize;
                key_at += n;
                keys[key_at - n..key_at].to_string()
            } else if format.raw_keys {
                let n = word(&mut at) as usize;
                at += n;
                STANDARD.encode(&buf[at - n..at])
            } else {
                text(&mut at, shared)
            };
            let count = word(&mut at);
            let (mut family, mut qualifier) = (String::new(), String::new());
            let mut cells = Vec::new();
            for _ in 0..count {
                let flags = buf[at];
                at += 1;
                if flags & 1 != 0 {
                    family = text(&mut at, shared);
                }
                if flags & 2 != 0 {
                    qualifier = text(&mut at, shared);
                }
                let ts = text(&mut at, shared);
                let value = text(&mut at, shared);
                assert_eq!(flags & 4, 0);
                cells.push((family.clone(), qualifier.clone(), ts, value));
            }
            rows.push((key, cells));
        }
        assert_eq!(key_at, keys.len(), "every key's text was read");
        rows
    }

    /// A cell to pack: `(family, qualifier, micros, value)`.
    type Cell<'a> = (&'a str, &'a [u8], i64, &'a [u8]);

    /// What a row's cells read as.
    fn expected(cells: &[Cell<'_>]) -> Vec<Decoded> {
        cells
            .iter()
            .map(|&(f, q, ts, v)| {
                let ts = if ts == 0 {
                    String::new()
                } else {
                    ts.to_string()
                };
                (f.to_string(), STANDARD.encode(q), ts, STANDARD.encode(v))
            })
            .collect()
    }

    /// Packs rows of `(key, cells)` as one answer for a reader holding
    /// `shared`, and reads them back.
    fn round_trip(
        p: &mut Packed,
        format: Format,
        shared: &mut Vec<String>,
        rows: &[(&[u8], Vec<Cell<'_>>)],
    ) -> Vec<(String, Vec<Decoded>)> {
        let base = p.start_answer(HEADER_BYTES, usize::MAX, format, len32(shared.len()));
        shared.truncate(base as usize);
        for (key, cells) in rows {
            let views: Vec<CellView<'_>> = cells
                .iter()
                .map(|&(family, qualifier, ts, value)| {
                    CellView::plain(family, qualifier, ts, value)
                })
                .collect();
            assert!(p.accept(RowView { key, cells: &views }));
        }
        p.finish(&[]);
        decode(&p.buf, p.keys(), format, shared)
    }

    #[test]
    fn rows_read_back_as_written_across_answers() {
        // Values at the inline bound and past it, empty, binary and long
        // keys (every byte value, past the base64 loop's bound), qualifiers
        // in the previous row's order, in another order, and too long for
        // the dictionary; answers with keys as text, as bytes and apart in
        // turn, on one dictionary.
        let long_q = [b'q'; 40];
        let at_bound = [0xffu8; INLINE_VALUE_LEN];
        let past_bound = [0u8; INLINE_VALUE_LEN + 1];
        let a: Vec<Cell<'_>> = vec![
            ("cf", b"a", 5, b"1"),
            ("cf", b"b", 0, &at_bound),
            ("cf", &long_q, 7, &past_bound),
            ("dd", b"", 9, b""),
        ];
        let b: Vec<Cell<'_>> = vec![
            ("cf", b"b", 5, &past_bound),
            ("cf", b"a", 5, &at_bound),
            ("dd", b"a", 9, b"\0\x01"),
        ];
        let c: Vec<(&str, &[u8], i64, &[u8])> = vec![
            ("cf", b"a", 5, b"1"),
            ("cf", &long_q, 7, b""),
            ("dd", b"a", 7, b"\xff"),
        ];
        let every_byte: Vec<u8> = (0..=255).collect();
        let rows: Vec<(&[u8], Vec<_>)> = vec![
            (b"", a.clone()),
            (b"\xff\x00k", a.clone()),
            (b"k2", b.clone()),
            (&every_byte, c.clone()),
            (b"k4", a.clone()),
        ];
        let mut p = Packed::new(usize::MAX, u64::MAX, Format::default());
        let mut shared = Vec::new();
        let as_text = Format::default();
        let as_bytes = Format::from_bits(2);
        assert!(as_bytes.raw_keys && !as_bytes.raw_values && !as_bytes.keys_apart);
        let apart = Format::from_bits(4);
        // Keys apart win over keys as bytes.
        let apart_too = Format::from_bits(6);
        assert!(apart.keys_apart && apart_too.keys_apart);
        for (known, format) in [
            (None, as_text),
            (None, as_bytes),
            (Some(0), as_bytes),
            (Some(3), as_text),
            (None, apart),
            (Some(3), as_bytes),
            (Some(2), apart_too),
            (None, as_text),
        ] {
            if let Some(n) = known {
                shared.truncate(n);
            }
            let got = round_trip(&mut p, format, &mut shared, &rows);
            let keys: Vec<String> = rows.iter().map(|(k, _)| STANDARD.encode(k)).collect();
            assert_eq!(got.iter().map(|r| r.0.clone()).collect::<Vec<_>>(), keys);
            for (row, (_, cells)) in got.iter().zip(&rows) {
                assert_eq!(row.1, expected(cells));
            }
        }
        // Values of 2 bytes up to the bound are never dictionary entries;
        // one-byte ones and longer ones are, once.
        assert_eq!(p.dict.find(Kind::Base64, &at_bound), None);
        assert_eq!(p.dict.find(Kind::Base64, b"\0\x01"), None);
        assert!(p.dict.find(Kind::Base64, b"1").is_some());
        assert!(p.dict.find(Kind::Base64, &past_bound).is_some());
        assert!(p.dict.find(Kind::Base64, &long_q).is_none());
    }

    #[test]
    fn a_full_dictionary_is_emptied_before_the_next_answer() {
        let mut p = Packed::new(usize::MAX, u64::MAX, Format::default());
        p.start_answer(8, usize::MAX, Format::default(), 0);
        for i in 0..=MAX_SHARED as u32 {
            p.base64(&i.to_le_bytes(), true);
        }
        // The entry past the bound went inline, not into the dictionary.
        assert_eq!(p.dict.len(), MAX_SHARED);
        let at = p.buf.len();
        p.base64(b"new", true);
        assert_eq!(word(&p, at), 4);
        assert_eq!(
            p.start_answer(8, usize::MAX, Format::default(), len32(MAX_SHARED)),
            0
        );
        assert_eq!(p.dict.len(), 0);
        p.base64(b"new", true);
        assert_eq!(word(&p, 8), 4 | SHARED_NEW);
    }

    #[test]
    fn resuming_forward_drops_what_was_read() {
        let rows = RowSet {
            row_keys: vec![b"a".to_vec(), b"m".to_vec()],
            row_ranges: vec![closed_open("b", "d"), closed_open("x", "z")],
        };
        let next = rows_after(&rows, b"c", false).unwrap();
        assert_eq!(next.row_keys, vec![b"m".to_vec()]);
        assert_eq!(
            next.row_ranges,
            vec![
                RowRange {
                    start: KeyBound::Open(b"c".to_vec()),
                    end: KeyBound::Open(b"d".to_vec())
                },
                closed_open("x", "z"),
            ]
        );
        assert_eq!(rows_after(&rows, b"z", false), None);
        let all = rows_after(&RowSet::all(), b"k", false).unwrap();
        assert_eq!(all.row_ranges[0].start, KeyBound::Open(b"k".to_vec()));
    }

    #[test]
    fn resuming_reversed_keeps_what_comes_before() {
        let rows = RowSet {
            row_keys: vec![b"a".to_vec(), b"m".to_vec()],
            row_ranges: vec![closed_open("b", "d"), closed_open("x", "z")],
        };
        let next = rows_after(&rows, b"c", true).unwrap();
        assert_eq!(next.row_keys, vec![b"a".to_vec()]);
        assert_eq!(
            next.row_ranges,
            vec![RowRange {
                start: KeyBound::Closed(b"b".to_vec()),
                end: KeyBound::Open(b"c".to_vec())
            }]
        );
        assert_eq!(rows_after(&rows, b"a", true), None);
    }
}
