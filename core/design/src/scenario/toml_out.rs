//! Writes a scenario back as TOML (the core parses TOML but has no TOML
//! writer), so the web app can show a design after a one-click fix as the
//! file a person would have written.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::Scenario;

const TOP_SCALARS: [&str; 5] = ["name", "description", "seed", "duration", "start"];
const SECTIONS: [&str; 5] = ["table", "cluster", "key", "keyviz", "sim"];
const ARRAYS: [(&str, &str); 5] = [
    ("workload", "workload"),
    ("access", "access"),
    ("column", "column"),
    ("other_table", "other_table"),
    ("view", "view"),
];

/// The scenario as TOML that [`Scenario::from_toml`] reads back to an
/// equal scenario.
#[must_use]
pub fn scenario_to_toml(s: &Scenario) -> String {
    let Ok(Value::Object(top)) = serde_json::to_value(s) else {
        return String::new();
    };
    let mut out = String::new();
    for k in TOP_SCALARS {
        if let Some(v) = top.get(k)
            && !v.is_null()
        {
            let _ = writeln!(out, "{} = {}", key(k), inline(v));
        }
    }
    for section in SECTIONS {
        if let Some(Value::Object(m)) = top.get(section) {
            let _ = writeln!(out, "\n[{section}]");
            body(&mut out, m);
        }
    }
    for (field, header) in ARRAYS {
        if let Some(Value::Array(items)) = top.get(field) {
            for item in items {
                if let Value::Object(m) = item {
                    let _ = writeln!(out, "\n[[{header}]]");
                    body(&mut out, m);
                }
            }
        }
    }
    out
}

fn body(out: &mut String, m: &Map<String, Value>) {
    for (k, v) in m {
        match v {
            Value::Null => {}
            Value::Array(items) if items.iter().any(Value::is_object) => {
                let _ = writeln!(out, "{} = [", key(k));
                for it in items {
                    let _ = writeln!(out, "  {},", inline(it));
                }
                let _ = writeln!(out, "]");
            }
            _ => {
                let _ = writeln!(out, "{} = {}", key(k), inline(v));
            }
        }
    }
}

fn key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        string(k)
    }
}

fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn inline(v: &Value) -> String {
    match v {
        Value::Null => "\"\"".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.to_string()
            } else if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                let f = n.as_f64().unwrap_or(0.0);
                if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 {
                    format!("{f:.1}")
                } else if f.is_finite() {
                    let t = f.to_string();
                    if t.contains(['.', 'e', 'E']) {
                        t
                    } else {
                        format!("{t}.0")
                    }
                } else {
                    "0.0".into()
                }
            }
        }
        Value::String(s) => string(s),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(m) => {
            let parts: Vec<String> = m
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| format!("{} = {}", key(k), inline(v)))
                .collect();
            if parts.is_empty() {
                "{}".into()
            } else {
                format!("{{ {} }}", parts.join(", "))
            }
        }
    }
}
