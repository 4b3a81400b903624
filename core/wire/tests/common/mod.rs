//! What the JSON protocol's test files share: one request line sent
//! through `api::handle` and its answer line read back, as a response that
//! must be there or an error that must be there.

// Each test file uses the part it needs.
#![allow(dead_code)]

use serde_json::{Value, json};
use tabletop_sql::Instance;
use tabletop_wire::api;

/// Sends one request line and parses the answer line.
pub fn call(db: &mut Instance, method: &str, request: Value) -> Value {
    let line = json!({"method": method, "request": request}).to_string();
    let out = api::handle(db, &line);
    assert!(!out.contains('\n'), "answers are one line: {out}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("answer is not JSON ({e}): {out}"))
}

/// Sends a request that must succeed and returns its response.
pub fn ok(db: &mut Instance, method: &str, request: Value) -> Value {
    let out = call(db, method, request.clone());
    match out.get("response") {
        Some(r) => r.clone(),
        None => panic!("{method} {request} failed: {out}"),
    }
}

/// Sends a request that must fail and returns `(status, message)`; the
/// error's numeric code must be its status's and its message not empty.
pub fn err(db: &mut Instance, method: &str, request: Value) -> (String, String) {
    let out = call(db, method, request.clone());
    let e = out
        .get("error")
        .unwrap_or_else(|| panic!("{method} {request} succeeded: {out}"));
    let status = e["status"].as_str().unwrap_or_default().to_string();
    let message = e["message"].as_str().unwrap_or_default().to_string();
    let code = e["code"].as_i64().unwrap_or(-1);
    let expected_code = match status.as_str() {
        "INVALID_ARGUMENT" => 3,
        "NOT_FOUND" => 5,
        "ALREADY_EXISTS" => 6,
        "FAILED_PRECONDITION" => 9,
        "UNIMPLEMENTED" => 12,
        other => panic!("unexpected status {other}: {out}"),
    };
    assert_eq!(code, expected_code, "{out}");
    assert!(!message.is_empty());
    (status, message)
}
