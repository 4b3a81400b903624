//! Tabletop for JavaScript: one [`Tabletop`] object holds a Bigtable
//! instance and answers the two languages the playground speaks, through
//! wasm-bindgen.
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

use serde_json::{Value, json};
use tabletop_core::{Instance, TraceOptions, Traces, api, cbt};
use wasm_bindgen::prelude::wasm_bindgen;

/// A Bigtable instance in memory, driven by JSON requests or `cbt`
/// commands.
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct Tabletop {
    instance: Instance,
}

#[wasm_bindgen]
impl Tabletop {
    /// An empty instance whose clock reads 0.
    #[wasm_bindgen(constructor)]
    #[must_use]
    pub fn new() -> Tabletop {
        Tabletop::default()
    }

    /// Runs one request line, `{"method": M, "request": R}`, and returns
    /// one answer line, `{"response": X}` or `{"error": {...}}`.
    pub fn handle(&mut self, request_json: &str) -> String {
        api::handle(&mut self.instance, request_json)
    }

    /// Runs one request line and returns
    /// `{"answer": <the answer line as JSON>, "traces": [...]}`: the answer
    /// and the trace of every data operation the request made (see
    /// `tabletop_core::api::trace_to_json` for the fields).
    #[wasm_bindgen(js_name = handleTraced)]
    pub fn handle_traced(&mut self, request_json: &str) -> String {
        let mut traces = Traces::new(TraceOptions::default());
        let answer = api::handle_traced(&mut self.instance, request_json, &mut traces);
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
    /// `"tableAdmin"` or `"playground"` (not part of Bigtable).
    #[must_use]
    pub fn methods() -> String {
        let list: Vec<Value> = api::METHODS
            .iter()
            .map(|m| {
                let service = match m.service {
                    api::Service::Data => "data",
                    api::Service::TableAdmin => "tableAdmin",
                    _ => "playground",
                };
                json!({"name": m.name, "service": service, "summary": m.summary, "example": m.example})
            })
            .collect();
        api::to_line(&Value::Array(list))
    }

    /// The `cbt` commands this build understands.
    #[wasm_bindgen(js_name = cbtCommands)]
    #[must_use]
    pub fn cbt_commands() -> String {
        api::to_line(&json!(cbt::command_names()))
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
