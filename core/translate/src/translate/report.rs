//! Reports of a [`Translation`]: text for a terminal, JSON for programs
//! and the web app.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::export::cbt_policy;
use super::{CellValue, NoteLevel, RowPlan, Source, TableTranslation, Translation};
use tabletop_store::ValueType;
use tabletop_store::escape_bytes;

/// Rows shown per table in the text report.
const EXAMPLE_ROWS: usize = 3;

fn source_name(s: Source) -> &'static str {
    match s {
        Source::OracleDdl => "Oracle NoSQL DDL",
        Source::DynamoDb => "DynamoDB (NoSQL Workbench model)",
    }
}

fn value_type(v: ValueType) -> &'static str {
    match v {
        ValueType::Bytes => "bytes",
        ValueType::Aggregate(a) => a.cbt_name(),
    }
}

/// A timestamp as `2023-09-10T15:21:48.000Z`.
fn time(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let nanos = u32::try_from(micros.rem_euclid(1_000_000) * 1000).unwrap_or(0);
    super::keycodec::iso_timestamp(secs, nanos, 3)
}

fn cell_text(c: &super::CellPlan) -> String {
    let value = match &c.value {
        CellValue::Bytes(v) => {
            let mut s = escape_bytes(v);
            if s.chars().count() > 60 {
                s = s.chars().take(57).collect::<String>() + "...";
            }
            format!("\"{s}\"")
        }
        CellValue::Add(n) => format!("+{n}"),
    };
    format!(
        "{}:{} @ {} = {value}",
        c.family,
        escape_bytes(&c.qualifier),
        time(c.timestamp_micros)
    )
}

fn row_text(r: &RowPlan, out: &mut String) {
    let _ = writeln!(out, "    {}", escape_bytes(&r.key));
    for c in &r.cells {
        let _ = writeln!(out, "      {}", cell_text(c));
    }
}

fn table_text(t: &TableTranslation, out: &mut String) {
    let _ = writeln!(
        out,
        "\nTable {}  ({} {})",
        t.id,
        t.pattern.name(),
        t.source_name
    );
    let _ = writeln!(out, "  Row key ({} encoding):", t.key_encoding.name());
    for (i, k) in t.row_key.iter().enumerate() {
        let _ = writeln!(
            out,
            "    {}. {} {}: {}",
            i + 1,
            k.name,
            k.source_type,
            k.encoding
        );
    }
    let _ = writeln!(out, "  Column families:");
    for f in &t.families {
        let _ = writeln!(
            out,
            "    {}  [GC {}; {}]  {}",
            f.name,
            cbt_policy(f.gc_rule.as_ref()),
            value_type(f.value_type),
            f.why
        );
        for c in &f.columns {
            let q = if c.qualifier.is_empty() {
                "(empty)"
            } else {
                &c.qualifier
            };
            let _ = writeln!(out, "      {q}  <- {}  ({})", c.source, c.value);
        }
    }
    if !t.splits.is_empty() {
        let splits: Vec<String> = t.splits.iter().map(|s| escape_bytes(s)).collect();
        let _ = writeln!(out, "  Splits: {}", splits.join(", "));
    }
    let _ = writeln!(out, "  Rows: {} ({} cells)", t.rows.len(), t.cell_count());
    for r in t.rows.iter().take(EXAMPLE_ROWS) {
        row_text(r, out);
    }
    if t.rows.len() > EXAMPLE_ROWS {
        let _ = writeln!(out, "    ... {} more", t.rows.len() - EXAMPLE_ROWS);
    }
    if !t.indexes.is_empty() {
        let _ = writeln!(out, "  Indexes:");
        for ix in &t.indexes {
            let _ = writeln!(
                out,
                "    {} on ({}), projection {}",
                ix.name, ix.key, ix.projection
            );
            let _ = writeln!(out, "      First choice: {}", ix.first_choice);
            if let Some(v) = &ix.view {
                for line in v.sql.lines() {
                    let _ = writeln!(out, "        {line}");
                }
            }
            let _ = writeln!(out, "      Alternative: {}", ix.alternative);
        }
    }
    if !t.notes.is_empty() {
        let _ = writeln!(out, "  Notes:");
        for n in &t.notes {
            let level = match n.level {
                NoteLevel::Info => "info",
                NoteLevel::Warning => "warning",
            };
            let _ = writeln!(out, "    {level} [{}] {}", n.topic, n.text);
        }
    }
    if !t.findings.is_empty() {
        let _ = writeln!(out, "  Advisor:");
        for f in &t.findings {
            let _ = writeln!(
                out,
                "    {} {} ({}): {}",
                f.severity.name(),
                f.rule,
                f.target.label(),
                f.title
            );
            if let Some(fix) = f.fixes.first() {
                let _ = writeln!(out, "      Fix: {}", fix.title);
            }
        }
    }
}

pub(crate) fn text(t: &Translation) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Translation of {} from {}: {} table{}",
        t.name,
        source_name(t.source),
        t.tables.len(),
        if t.tables.len() == 1 { "" } else { "s" }
    );
    for table in &t.tables {
        table_text(table, &mut out);
    }
    if !t.notes.is_empty() {
        let _ = writeln!(out, "\nNotes:");
        for n in &t.notes {
            let _ = writeln!(out, "  [{}] {}", n.topic, n.text);
        }
    }
    out
}

fn table_json(t: &TableTranslation) -> Value {
    json!({
        "id": t.id,
        "source_name": t.source_name,
        "pattern": t.pattern.name(),
        "key_encoding": t.key_encoding.name(),
        "row_key": t.row_key.iter().map(|k| json!({
            "name": k.name, "source_type": k.source_type, "encoding": k.encoding,
        })).collect::<Vec<_>>(),
        "families": t.families.iter().map(|f| json!({
            "name": f.name,
            "gc_policy": cbt_policy(f.gc_rule.as_ref()),
            "value_type": value_type(f.value_type),
            "why": f.why,
            "columns": f.columns.iter().map(|c| json!({
                "qualifier": c.qualifier, "source": c.source, "value": c.value,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "splits": t.splits.iter().map(|s| escape_bytes(s)).collect::<Vec<_>>(),
        "row_count": t.rows.len(),
        "cell_count": t.cell_count(),
        "rows": t.rows.iter().map(|r| json!({
            "key": escape_bytes(&r.key),
            "cells": r.cells.iter().map(cell_text).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "indexes": t.indexes.iter().map(|ix| json!({
            "name": ix.name, "key": ix.key, "projection": ix.projection,
            "materialized_view": ix.view.as_ref().map(|v| json!({"name": v.name, "sql": v.sql})),
            "first_choice": ix.first_choice,
            "alternative": ix.alternative,
        })).collect::<Vec<_>>(),
        "notes": t.notes.iter().map(|n| json!({
            "level": if n.level == NoteLevel::Warning { "warning" } else { "info" },
            "topic": n.topic,
            "text": n.text,
        })).collect::<Vec<_>>(),
        "findings": t.findings,
    })
}

pub(crate) fn json(t: &Translation) -> String {
    let v = json!({
        "source": match t.source { Source::OracleDdl => "oracle-ddl", Source::DynamoDb => "dynamodb" },
        "name": t.name,
        "tables": t.tables.iter().map(table_json).collect::<Vec<_>>(),
        "notes": t.notes.iter().map(|n| json!({"topic": n.topic, "text": n.text})).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&v).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
