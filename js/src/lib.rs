//! Tabletop for JavaScript: one [`Tabletop`] object holds a Bigtable
//! instance and answers the two languages the playground speaks, through
//! wasm-bindgen.
//!
//! This is the wasm half of the `tabletop-js` package; its JavaScript half
//! (`js/package/tabletop.js`, assembled by `scripts/build-js.sh`) wraps
//! this class into the one users see: Bigtable's methods on plain objects
//! ([`Tabletop::call`]), bulk writes packed into bytes
//! ([`Tabletop::write_packed`], `write.rs`), answers packed into bytes
//! ([`Tabletop::read_packed`], `read.rs`) and read a chunk at a time
//! ([`Tabletop::open_rows`]), snapshots, and argument checks. Sizes that
//! input controls are capped before anything is allocated (a readRows
//! answer at [`Tabletop::max_answer_bytes`]), so an error never leaves the
//! object borrowed: a wasm32 build cannot catch a panic.
//!
//! The text API below stays for compatibility:
//!
//! ```js
//! const { Tabletop } = require('./tabletop_js.js');
//! const db = new Tabletop();
//! db.handle('{"method": "createTable", "request": {"parent": "projects/p/instances/i", "tableId": "t"}}');
//! // '{"response":{"granularity":"MILLIS","name":"projects/p/instances/i/tables/t"}}'
//! db.cbt('ls');
//! // 't\n'
//! ```
//!
//! - [`Tabletop::handle`] takes one line of the JSON protocol (Bigtable's
//!   REST requests in proto3 JSON, see `tabletop_core::api`) and returns
//!   one answer line.
//! - [`Tabletop::cbt`] takes one `cbt` command line and returns what `cbt`
//!   prints; [`Tabletop::cbt_outcome`] returns stdout, stderr and the exit
//!   code as JSON.
//!
//! - [`Tabletop::handle_traced`] and [`Tabletop::cbt_traced`] do the same
//!   and also hand back what each data operation did (rows and cells seen
//!   and returned, bytes, the tablets visited out of how many, what was
//!   written), as JSON, so a page reports a read without parsing its
//!   output.
//!
//! The instance clock starts at 0 and moves only when asked (the
//! `advanceClock` method, or `cbt clock`), so runs repeat exactly.

mod b64;
mod dictionary;
mod read;
mod request;
mod value;
mod write;

use std::collections::HashMap;

use serde_json::{Value, json};
use tabletop_core::{
    EngineConfig, Error, Fidelity, Instance, InstanceConfig, TraceOptions, Traces, api, cbt,
};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use self::read::{AnswerFor, Cursor, DEFAULT_MAX_ANSWER_BYTES, Format, Packed};
use self::value::{error_to_js, from_js, to_js};

/// What [`Tabletop::read_requested`] answers for a request the packed path
/// declines, and for a read that failed. No answer is that long: it lives
/// in the module's 32-bit memory beside the instance it was read from.
const READ_DECLINED: u32 = u32::MAX;
const READ_FAILED: u32 = u32::MAX - 1;

/// A Bigtable instance in memory, driven by JSON requests or `cbt`
/// commands.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Tabletop {
    instance: Instance,
    max_answer_bytes: usize,
    cursors: HashMap<u32, Cursor>,
    next_cursor: u32,
    /// The buffer readRows answers are packed into, reused call after call.
    answer: Packed,
    /// Where the package's JavaScript packs plain reads, in place
    /// ([`Tabletop::request_buffer`], [`Tabletop::read_requested`]).
    request: Vec<u8>,
    /// The error of the last [`Tabletop::read_requested`] that failed,
    /// until [`Tabletop::take_failure`] hands it over.
    failure: Option<Error>,
}

impl Default for Tabletop {
    fn default() -> Tabletop {
        Tabletop::with(Instance::default())
    }
}

impl Tabletop {
    fn with(instance: Instance) -> Tabletop {
        Tabletop {
            instance,
            max_answer_bytes: DEFAULT_MAX_ANSWER_BYTES,
            cursors: HashMap::new(),
            next_cursor: 1,
            answer: Packed::new(0, u64::MAX, Format::default()),
            request: Vec::new(),
            failure: None,
        }
    }
}

#[wasm_bindgen]
impl Tabletop {
    /// An empty instance whose clock reads 0.
    #[wasm_bindgen(constructor)]
    #[must_use]
    pub fn new() -> Tabletop {
        Tabletop::default()
    }

    /// An empty instance with the engine thresholds named `engine`:
    /// `"default"` (the playground's small memtables and tablets, so
    /// flushes and splits show in small tables) or `"bulk"` (big memtables
    /// and tablets, as the core's benchmark loads large data sets).
    #[wasm_bindgen(js_name = withEngine)]
    pub fn with_engine(engine: &str) -> Result<Tabletop, JsValue> {
        let engine = match engine {
            "default" => EngineConfig::default(),
            "bulk" => EngineConfig::bulk(),
            other => {
                return Err(error_to_js(&Error::invalid(format!(
                    "engine: expected \"default\" or \"bulk\", got {other:?}"
                ))));
            }
        };
        Ok(Tabletop::with(Instance::new(InstanceConfig {
            engine,
            ..InstanceConfig::default()
        })))
    }

    /// Runs one request line, `{"method": M, "request": R}`, and returns
    /// one answer line, `{"response": X}` or `{"error": {...}}`.
    ///
    /// A readRows whose answer would pass the answer cap
    /// (`maxAnswerBytes`) answers RESOURCE_EXHAUSTED instead.
    pub fn handle(&mut self, request_json: &str) -> String {
        api::handle_capped(
            &mut self.instance,
            request_json,
            &mut Traces::off(),
            self.max_answer_bytes,
        )
    }

    /// Runs one request line and returns
    /// `{"answer": <the answer line as JSON>, "traces": [...]}`: the answer
    /// and the trace of every data operation the request made (see
    /// `tabletop_core::api::trace_to_json` for the fields).
    #[wasm_bindgen(js_name = handleTraced)]
    pub fn handle_traced(&mut self, request_json: &str) -> String {
        let mut traces = Traces::new(TraceOptions::default());
        let answer = api::handle_capped(
            &mut self.instance,
            request_json,
            &mut traces,
            self.max_answer_bytes,
        );
        // The answer line is JSON by construction.
        let answer: Value = serde_json::from_str(&answer).unwrap_or(Value::String(answer));
        api::to_line(&json!({"answer": answer, "traces": traces_json(&traces)}))
    }

    /// Runs one `cbt` command line and returns what `cbt` would print:
    /// standard output, then standard error (where errors go).
    pub fn cbt(&mut self, line: &str) -> String {
        let outcome = cbt::exec_line(&mut self.instance, line, &mut cbt::NoHost);
        let mut text = outcome.stdout_lossy();
        text.push_str(&outcome.stderr_lossy());
        text
    }

    /// Runs one `cbt` command line and returns
    /// `{"stdout": "...", "stderr": "...", "exitCode": 0}` as JSON text.
    #[wasm_bindgen(js_name = cbtOutcome)]
    pub fn cbt_outcome(&mut self, line: &str) -> String {
        let outcome = cbt::exec_line(&mut self.instance, line, &mut cbt::NoHost);
        api::to_line(&json!({
            "stdout": outcome.stdout_lossy(),
            "stderr": outcome.stderr_lossy(),
            "exitCode": outcome.exit_code(),
        }))
    }

    /// Runs one `cbt` command line and returns
    /// `{"stdout", "stderr", "exitCode", "traces": [...]}` as JSON text: the
    /// outcome and the trace of every data operation the command made.
    #[wasm_bindgen(js_name = cbtTraced)]
    pub fn cbt_traced(&mut self, line: &str) -> String {
        let mut traces = Traces::new(TraceOptions::default());
        let outcome =
            cbt::exec_line_traced(&mut self.instance, line, &mut cbt::NoHost, &mut traces);
        api::to_line(&json!({
            "stdout": outcome.stdout_lossy(),
            "stderr": outcome.stderr_lossy(),
            "exitCode": outcome.exit_code(),
            "traces": traces_json(&traces),
        }))
    }

    /// The methods of the JSON protocol as a JSON array of
    /// `{"name", "service", "summary", "example"}`; `service` is `"data"`,
    /// `"tableAdmin"`, `"instanceAdmin"` (logical views) or `"playground"`
    /// (not part of Bigtable).
    #[must_use]
    pub fn methods() -> String {
        let list: Vec<Value> = api::METHODS
            .iter()
            .map(|m| {
                let service = match m.service {
                    api::Service::Data => "data",
                    api::Service::TableAdmin => "tableAdmin",
                    api::Service::InstanceAdmin => "instanceAdmin",
                    _ => "playground",
                };
                json!({"name": m.name, "service": service, "summary": m.summary, "example": m.example})
            })
            .collect();
        api::to_line(&Value::Array(list))
    }

    /// Runs one method on a request object and returns the answer object
    /// (`X` of `{"response": X}`); an error is thrown as a
    /// `{code, status, message}` object. `Uint8Array`s in the request are
    /// taken as the bytes a base64 string would carry.
    pub fn call(&mut self, method: &str, request: JsValue) -> Result<JsValue, JsValue> {
        let request = from_js(request).map_err(|e| error_to_js(&e))?;
        if method == "readRows" {
            let (table, req) = api::read_rows_request(&request).map_err(|e| error_to_js(&e))?;
            read::check_json_size(&mut self.instance, &table, &req, self.max_answer_bytes)
                .map_err(|e| error_to_js(&e))?;
        }
        api::handle_value(&mut self.instance, method, &request)
            .map(|v| to_js(&v))
            .map_err(|e| error_to_js(&e))
    }

    /// Runs a `mutateRows` or `mutateRow` packed by the package's
    /// JavaScript (the format is in `write.rs`). Answers `undefined` when
    /// the request must go through [`Tabletop::call`] instead, `null` for
    /// a mutateRow that succeeded, and for mutateRows a flat array
    /// `[index, code, message, ...]` of the entries that failed.
    #[wasm_bindgen(js_name = writePacked)]
    pub fn write_packed(&mut self, packed: &[u8]) -> Result<JsValue, JsValue> {
        written_to_js(write::run(&mut self.instance, packed))
    }

    /// [`Tabletop::write_packed`] for the first `len` bytes of the request
    /// buffer ([`Tabletop::request_buffer`]), which the package writes in
    /// place: the request is neither copied in nor allocated per call.
    /// `undefined` (the general decoder's turn) when `len` is past the
    /// buffer.
    #[wasm_bindgen(js_name = writeRequested)]
    pub fn write_requested(&mut self, len: u32) -> Result<JsValue, JsValue> {
        let Some(packed) = self.request.get(..len as usize) else {
            return Ok(JsValue::UNDEFINED);
        };
        written_to_js(write::run(&mut self.instance, packed))
    }

    /// Runs a readRows request object and returns its answer packed (the
    /// format is in `read.rs`: a header of the stats' length, the
    /// dictionary base and the keys' length, the rows, then the
    /// `requestStats` JSON, none unless asked for; keys asked apart are at
    /// [`Tabletop::answer_keys_at`]). Past `maxAnswerBytes` it throws RESOURCE_EXHAUSTED.
    /// `format` says what goes as bytes rather than base64 (bit 0 the cell
    /// values, bit 1 the row keys) and bit 2 keys apart (see `read::Format`);
    /// `known` is how many dictionary entries the caller holds. Answers
    /// the answer's length; the answer itself is in this module's memory at
    /// [`Tabletop::answer_at`], until the next call.
    #[wasm_bindgen(js_name = readPacked)]
    pub fn read_packed(
        &mut self,
        request: JsValue,
        format: u32,
        known: u32,
    ) -> Result<u32, JsValue> {
        let request = from_js(request).map_err(|e| error_to_js(&e))?;
        let (table, req, full) =
            api::read_rows_request_full(&request).map_err(|e| error_to_js(&e))?;
        let to = self.answer_for(format, known);
        let stats = read::answer(&mut self.instance, &table, &req, to, &mut self.answer)
            .map_err(|e| error_to_js(&e))?;
        let stats = if full {
            api::read_stats_to_json(&stats).to_string()
        } else {
            String::new()
        };
        Ok(read::len32(self.answer.finish(stats.as_bytes()).len()))
    }

    /// [`Tabletop::read_packed`] for a plain read packed by the package's
    /// JavaScript (the format is in `request.rs`); `undefined` when the
    /// request must go as JSON text instead.
    #[wasm_bindgen(js_name = readPackedRequest)]
    pub fn read_packed_request(
        &mut self,
        packed: &[u8],
        format: u32,
        known: u32,
    ) -> Result<Option<u32>, JsValue> {
        let Some((table, req)) = request::decode(packed) else {
            return Ok(None);
        };
        let to = self.answer_for(format, known);
        read::answer(&mut self.instance, &table, &req, to, &mut self.answer)
            .map_err(|e| error_to_js(&e))?;
        Ok(Some(read::len32(self.answer.finish(&[]).len())))
    }

    /// Makes the request buffer `len` bytes long and answers where it
    /// starts in this module's memory. The package's JavaScript packs a
    /// plain read straight into it (the format is in `request.rs`) and
    /// then calls [`Tabletop::read_requested`]: no copy of the request
    /// into a new allocation per read. The buffer stays where it is until
    /// the next call of this method (growing the memory does not move it).
    #[wasm_bindgen(js_name = requestBuffer)]
    pub fn request_buffer(&mut self, len: u32) -> u32 {
        self.request.clear();
        self.request.resize(len as usize, 0);
        // wasm32 addresses are 32-bit.
        read::len32(self.request.as_ptr() as usize)
    }

    /// [`Tabletop::read_packed_request`] for the first `len` bytes of the
    /// request buffer, answering one number rather than a result (which
    /// costs JavaScript an array per call): the answer's length;
    /// [`READ_DECLINED`] when the request must go as JSON text instead
    /// (or `len` is past the buffer); [`READ_FAILED`] when the read
    /// failed, its error then waiting in [`Tabletop::take_failure`].
    #[wasm_bindgen(js_name = readRequested)]
    pub fn read_requested(&mut self, len: u32, format: u32, known: u32) -> u32 {
        let Some(packed) = self.request.get(..len as usize) else {
            return READ_DECLINED;
        };
        let Some((table, req)) = request::decode(packed) else {
            return READ_DECLINED;
        };
        let to = self.answer_for(format, known);
        match read::answer(&mut self.instance, &table, &req, to, &mut self.answer) {
            Ok(_) => read::len32(self.answer.finish(&[]).len()),
            Err(e) => {
                self.failure = Some(e);
                READ_FAILED
            }
        }
    }

    /// The error of the last [`Tabletop::read_requested`] that answered
    /// [`READ_FAILED`] (an INTERNAL error if there is none).
    #[wasm_bindgen(js_name = takeFailure)]
    pub fn take_failure(&mut self) -> JsValue {
        let e = self
            .failure
            .take()
            .unwrap_or_else(|| Error::internal("no read failed"));
        error_to_js(&e)
    }

    /// Where the last answer of [`Tabletop::read_packed`],
    /// [`Tabletop::read_packed_request`] or [`Tabletop::read_requested`]
    /// starts in this module's memory
    /// ([`Tabletop::memory`]). The package's JavaScript reads the answer
    /// straight from there, with no copy, and before it calls into the
    /// module again: the next call may reuse the buffer, or grow the memory
    /// (which detaches the `ArrayBuffer` views of the old one).
    #[wasm_bindgen(getter = answerAt)]
    #[must_use]
    pub fn answer_at(&self) -> u32 {
        // wasm32 addresses are 32-bit.
        read::len32(self.answer.buf.as_ptr() as usize)
    }

    /// Where the keys' text of the last answer asked with its keys apart
    /// (format bit 2) starts in this module's memory; the answer's header
    /// says how long it is. Read as the answer is, before the next call.
    #[wasm_bindgen(getter = answerKeysAt)]
    #[must_use]
    pub fn answer_keys_at(&self) -> u32 {
        // wasm32 addresses are 32-bit.
        read::len32(self.answer.keys().as_ptr() as usize)
    }

    /// Gives back the memory of the last answer if it was unusually large
    /// (called once it has been read).
    #[wasm_bindgen(js_name = releaseAnswer)]
    pub fn release_answer(&mut self) {
        self.answer.trim();
    }

    /// Makes sure `bytes` bytes of this module's memory are free in one
    /// block, growing the memory at most once, by about that much, and
    /// answers whether it could. The block is allocated and freed at once:
    /// the allocator keeps it for the allocations that follow (wasm memory
    /// never shrinks), and its pages are not touched. Why a caller wants
    /// this: `Tabletop.reserveMemory` in the package.
    #[wasm_bindgen(js_name = reserveMemory)]
    #[must_use]
    pub fn reserve_memory(bytes: u32) -> bool {
        let mut block: Vec<u8> = Vec::new();
        block.try_reserve_exact(bytes as usize).is_ok()
    }

    /// This module's `WebAssembly.Memory`, where answers are read.
    #[must_use]
    pub fn memory() -> JsValue {
        wasm_bindgen::memory()
    }

    /// Opens a cursor over a readRows request object; its rows come a
    /// chunk at a time from [`Tabletop::next_rows`], packed as `format`
    /// says (as for [`Tabletop::read_packed`]).
    #[wasm_bindgen(js_name = openRows)]
    pub fn open_rows(&mut self, request: JsValue, format: u32) -> Result<u32, JsValue> {
        let request = from_js(request).map_err(|e| error_to_js(&e))?;
        let (table, req) = api::read_rows_request(&request).map_err(|e| error_to_js(&e))?;
        let id = self.next_cursor;
        self.next_cursor = self.next_cursor.wrapping_add(1).max(1);
        self.cursors
            .insert(id, Cursor::new(table, req, Format::from_bits(format)));
        Ok(id)
    }

    /// The next chunk of a cursor's rows, packed as [`Tabletop::read_packed`]
    /// packs rows (no stats prefix); `undefined` when the read is over (the
    /// cursor is then closed). An error closes the cursor.
    #[wasm_bindgen(js_name = nextRows)]
    pub fn next_rows(&mut self, cursor: u32) -> Result<Option<Vec<u8>>, JsValue> {
        let Some(c) = self.cursors.get_mut(&cursor) else {
            return Err(error_to_js(&Error::failed_precondition(
                "this row iterator is closed",
            )));
        };
        let chunk = c.next(&mut self.instance);
        if !matches!(chunk, Ok(Some(_))) {
            self.cursors.remove(&cursor);
        }
        chunk.map_err(|e| error_to_js(&e))
    }

    /// Forgets a cursor (an iterator left before its end).
    #[wasm_bindgen(js_name = closeRows)]
    pub fn close_rows(&mut self, cursor: u32) {
        self.cursors.remove(&cursor);
    }

    /// The most bytes one readRows answer may take (packed: base64 keys,
    /// qualifiers and values); 256 MiB unless set.
    #[wasm_bindgen(getter = maxAnswerBytes)]
    #[must_use]
    pub fn max_answer_bytes(&self) -> u32 {
        u32::try_from(self.max_answer_bytes).unwrap_or(u32::MAX)
    }

    /// Sets the answer cap (at least 1 KiB).
    #[wasm_bindgen(setter = maxAnswerBytes)]
    pub fn set_max_answer_bytes(&mut self, bytes: u32) {
        self.max_answer_bytes = usize::try_from(bytes.max(1024)).unwrap_or(usize::MAX);
    }

    /// Whether the instance answers as Google's Bigtable emulator does
    /// where it differs from production (see `tabletop_core::Fidelity`);
    /// false unless set. Snapshots keep it.
    #[wasm_bindgen(getter = emulatorParity)]
    #[must_use]
    pub fn emulator_parity(&self) -> bool {
        self.instance.fidelity().is_emulator()
    }

    /// Answers as the emulator does (`true`) or as production (`false`).
    /// Turning it off makes each HyperLogLog cell that holds the
    /// emulator's raw last input the sketch of that input, as production
    /// keeps them; it throws (and parity stays on) while the instance holds
    /// what production refuses, a row key over 4 KiB or a GC rule that
    /// keeps nothing, naming it.
    #[wasm_bindgen(setter = emulatorParity)]
    pub fn set_emulator_parity(&mut self, on: bool) -> Result<(), JsValue> {
        self.instance
            .switch_fidelity(if on {
                Fidelity::Emulator
            } else {
                Fidelity::Production
            })
            .map(|_| ())
            .map_err(|e| error_to_js(&e))
    }

    /// The instance as snapshot bytes (tables, schemas, views, clock).
    #[must_use]
    pub fn snapshot(&mut self) -> Vec<u8> {
        self.instance.snapshot()
    }

    /// A new object holding the instance `bytes` (from
    /// [`Tabletop::snapshot`]) describe; broken bytes throw
    /// INVALID_ARGUMENT or DATA_LOSS with what is wrong.
    pub fn restore(bytes: &[u8]) -> Result<Tabletop, JsValue> {
        Instance::restore(bytes)
            .map(Tabletop::with)
            .map_err(|e| error_to_js(&e))
    }

    /// The `cbt` commands this build understands.
    #[wasm_bindgen(js_name = cbtCommands)]
    #[must_use]
    pub fn cbt_commands() -> String {
        api::to_line(&json!(cbt::command_names()))
    }
}

impl Tabletop {
    fn answer_for(&self, format: u32, known: u32) -> AnswerFor {
        AnswerFor {
            max_bytes: self.max_answer_bytes,
            format: Format::from_bits(format),
            known,
        }
    }
}

/// What a packed write answers JavaScript: `undefined` to send the
/// request to the general decoder, `null` for a mutateRow done, the flat
/// `[index, code, message, ...]` of a mutateRows' failed entries.
fn written_to_js(
    written: Option<tabletop_core::Result<write::Written>>,
) -> Result<JsValue, JsValue> {
    match written {
        None => Ok(JsValue::UNDEFINED),
        Some(Err(e)) => Err(error_to_js(&e)),
        Some(Ok(write::Written::Row)) => Ok(JsValue::NULL),
        Some(Ok(write::Written::Rows(results))) => {
            let mut failed = Vec::new();
            for (i, r) in results.iter().enumerate() {
                if let Err(e) = r {
                    failed.push(json!(i));
                    failed.push(json!(e.code().number()));
                    failed.push(json!(e.message()));
                }
            }
            Ok(to_js(&Value::Array(failed)))
        }
    }
}

fn traces_json(traces: &Traces) -> Value {
    Value::Array(traces.as_slice().iter().map(api::trace_to_json).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handle_answers_lines() {
        let mut t = Tabletop::new();
        let out = t.handle(r#"{"method": "createTable", "request": {"parent": "projects/p/instances/i", "tableId": "t"}}"#);
        assert_eq!(
            out,
            r#"{"response":{"granularity":"MILLIS","name":"projects/p/instances/i/tables/t"}}"#
        );
        let out = t.handle("nonsense");
        assert!(out.starts_with(r#"{"error":{"code":3,"#), "{out}");
    }

    /// A plain read of `keys` from `table`, packed as the package's
    /// JavaScript packs it (`request.rs`).
    fn packed_read(table: &str, keys: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&read::len32(table.len()).to_le_bytes());
        out.extend_from_slice(table.as_bytes());
        out.extend_from_slice(&read::len32(keys.len()).to_le_bytes());
        for k in keys {
            out.push(1);
            out.extend_from_slice(&read::len32(k.len()).to_le_bytes());
            out.extend_from_slice(k);
        }
        // No ranges, no limit, forward.
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out
    }

    #[test]
    fn reads_packed_in_the_request_buffer() {
        let mut t = Tabletop::new();
        t.cbt("createtable t families=cf");
        t.cbt("set t k cf:q=v@1000");
        let table = "projects/p/instances/i/tables/t";
        let read = |t: &mut Tabletop, packed: &[u8]| {
            let at = t.request_buffer(64);
            if cfg!(target_arch = "wasm32") {
                assert_eq!(at as usize, t.request.as_ptr() as usize);
            }
            assert_eq!(t.request.len(), 64);
            t.request[..packed.len()].copy_from_slice(packed);
            t.read_requested(read::len32(packed.len()), 0, 0)
        };
        // A row: the header, the key and one cell.
        let n = read(&mut t, &packed_read(table, &[b"k"]));
        assert!(n > 12 && n < READ_FAILED, "{n}");
        assert_eq!(n as usize, t.answer.buf.len());
        assert!(t.failure.is_none());
        // No row: the header alone.
        assert_eq!(read(&mut t, &packed_read(table, &[b"nope"])), 12);
        // A missing table fails; its error waits.
        let missing = packed_read("projects/p/instances/i/tables/u", &[b"k"]);
        assert_eq!(read(&mut t, &missing), READ_FAILED);
        assert_eq!(
            t.failure.take().map(|e| e.code()),
            Some(tabletop_core::Code::NotFound)
        );
        // What the packed path declines: an empty key, a table name of
        // another shape, a length past the buffer.
        assert_eq!(read(&mut t, &packed_read(table, &[b""])), READ_DECLINED);
        assert_eq!(read(&mut t, &packed_read("t", &[b"k"])), READ_DECLINED);
        t.request_buffer(4);
        assert_eq!(t.read_requested(5, 0, 0), READ_DECLINED);
        assert!(t.failure.is_none());
    }

    #[test]
    fn cbt_shares_the_instance() {
        let mut t = Tabletop::new();
        t.handle(r#"{"method": "createTable", "request": {"parent": "projects/p/instances/i", "tableId": "t"}}"#);
        assert_eq!(t.cbt("ls"), "t\n");
        let v: Value = serde_json::from_str(&t.cbt_outcome("nosuchcommand")).unwrap();
        assert_eq!(v["exitCode"], 1);
        assert!(!v["stderr"].as_str().unwrap().is_empty());
    }

    #[test]
    fn traces_say_what_reads_and_writes_did() {
        let mut t = Tabletop::new();
        t.cbt("createtable t families=cf splits=m");
        let v: Value = serde_json::from_str(&t.cbt_traced("set t a cf:q=v@1000")).unwrap();
        assert_eq!(v["traces"][0]["operation"], "MutateRow");
        assert_eq!(v["traces"][0]["cellsWritten"], 1);
        let v: Value = serde_json::from_str(&t.cbt_traced("read t prefix=a")).unwrap();
        let read = &v["traces"][0];
        assert_eq!(read["operation"], "ReadRows");
        assert_eq!(read["shape"], "single_range");
        assert_eq!(
            (read["rowsReturned"].as_u64(), read["tabletCount"].as_u64()),
            (Some(1), Some(2))
        );
        let line = r#"{"method": "readRows", "request": {"tableName": "projects/p/instances/i/tables/t"}}"#;
        let v: Value = serde_json::from_str(&t.handle_traced(line)).unwrap();
        assert_eq!(
            v["answer"]["response"]["rows"].as_array().map(Vec::len),
            Some(1)
        );
        assert_eq!(v["traces"][0]["shape"], "full_scan");
        assert_eq!(
            v["traces"][0]["tabletsVisited"].as_array().map(Vec::len),
            Some(2)
        );
    }

    #[test]
    fn methods_are_listed() {
        let v: Value = serde_json::from_str(&Tabletop::methods()).unwrap();
        assert_eq!(v.as_array().unwrap().len(), api::METHODS.len());
        assert_eq!(v[0]["service"], "tableAdmin");
        let c: Value = serde_json::from_str(&Tabletop::cbt_commands()).unwrap();
        assert!(c.as_array().unwrap().iter().any(|n| n == "read"));
    }
}
