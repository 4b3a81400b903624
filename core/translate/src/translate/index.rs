//! Secondary indexes of a source table, in Bigtable terms.
//!
//! The first choice is a continuous materialized view keyed by the index's
//! fields and then the table's row key: an asynchronous secondary index
//! that Bigtable keeps up to date from the table's writes (see
//! [`tabletop_sql::views`]). Its `CREATE MATERIALIZED VIEW` statement is written
//! in the playground's SQL, so it runs as it is in the console's SQL tab
//! and in `tabletop sql`. The alternative is an index table that the
//! application writes next to every change, with what that costs.
//!
//! A source says where each index field lives in the translated table (a
//! column, a field of the row key, or somewhere a view cannot read) and
//! how its bytes read as a value; [`plan`] writes the view (or says why
//! none fits) and both texts.

use super::{IndexPlan, IndexView, KeyEncoding};
use tabletop_sql::sql::is_reserved;

/// How the bytes of an index field read as a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// UTF-8 text (strings, booleans, timestamps, enum symbols, JSON).
    Text,
    /// A whole number written as decimal text.
    Integer,
    /// A number written as decimal text that may have a fraction (it sorts
    /// as text, not by value).
    Decimal,
    /// Raw bytes.
    Bytes,
    /// An int64 aggregate cell (already a number in SQL).
    Counter,
}

/// Where the translated table keeps an index field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// A column: `family:qualifier`.
    Column {
        /// The family.
        family: String,
        /// The qualifier.
        qualifier: String,
    },
    /// Field `index` of the `count` fields of the row key.
    KeyField {
        /// Which field, from 0.
        index: usize,
        /// How many fields the row key has.
        count: usize,
    },
    /// Somewhere a view cannot read it from; the reason, as a clause
    /// (`Tags is a set, ...`).
    Unreadable(String),
}

/// One field the index uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Field {
    /// The source's name for it.
    pub(crate) name: String,
    /// How its bytes read.
    pub(crate) kind: Kind,
    /// Where it is.
    pub(crate) place: Place,
}

/// What the source says about one index.
pub(crate) struct Spec<'a> {
    /// The Bigtable table id.
    pub(crate) table: &'a str,
    /// The index's name.
    pub(crate) name: &'a str,
    /// What it is keyed by, for the report (`UserId, CreatedAt`).
    pub(crate) key_text: String,
    /// What it carries, for the report (`ALL`, `INCLUDE a, b`).
    pub(crate) projection: String,
    /// The index key's fields, in order.
    pub(crate) fields: Vec<Field>,
    /// The values it carries besides the keys.
    pub(crate) values: Vec<Field>,
    /// How the row key's fields are written.
    pub(crate) key_encoding: KeyEncoding,
    /// Why no view can index this table's rows at all, if that is so (a
    /// clause).
    pub(crate) no_view: Option<String>,
    /// How the view's freshness compares with the source's index (a
    /// clause that follows "Bigtable updates it from the table's writes in
    /// the background, a moment after each write").
    pub(crate) freshness: &'static str,
    /// The row key of the hand-maintained index table
    /// (`UserId#CreatedAt#<UserSessions row key>`).
    pub(crate) table_key: String,
    /// What that table holds.
    pub(crate) holds: String,
    /// One more sentence about the alternative, if any.
    pub(crate) extra: Option<String>,
}

/// The index's plan: the view (or why none fits) and the alternative.
pub(crate) fn plan(spec: &Spec<'_>) -> IndexPlan {
    let view = match &spec.no_view {
        Some(why) => Err(why.clone()),
        None => view(spec),
    };
    let first_choice = match &view {
        Ok((_, notes)) => {
            let mut s = format!(
                "A continuous materialized view keyed by {} and then the table's row key: an asynchronous secondary index. Bigtable updates it from the table's writes in the background, a moment after each write{}. Reading it by {} is a prefix scan instead of a scan of the whole table. {}",
                spec.fields
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                spec.freshness,
                spec.fields.first().map_or("its key", |f| f.name.as_str()),
                carries(spec),
            );
            for n in notes {
                s.push(' ');
                s.push_str(n);
            }
            s
        }
        Err(why) => format!("No continuous materialized view fits here: {why}."),
    };
    let mut alternative = format!(
        "An index table the application writes itself, keyed {} and holding {}. Every change then takes two writes, and Bigtable makes only single-row writes atomic: if the second write fails, or two writers race, the index stays wrong until a repair job finds it. In return it is up to date as soon as both writes return.",
        spec.table_key, spec.holds
    );
    if let Some(extra) = &spec.extra {
        alternative.push(' ');
        alternative.push_str(extra);
    }
    IndexPlan {
        name: spec.name.to_string(),
        key: spec.key_text.clone(),
        projection: spec.projection.clone(),
        view: view.ok().map(|(v, _)| v),
        first_choice,
        alternative,
    }
}

/// What the view carries besides its key, in a sentence.
fn carries(spec: &Spec<'_>) -> String {
    let readable: Vec<&str> = spec
        .values
        .iter()
        .filter(|v| matches!(v.place, Place::Column { .. }))
        .map(|v| v.name.as_str())
        .collect();
    if readable.is_empty() {
        "It holds only the keys: read the rest from the table by its row key.".to_string()
    } else {
        format!("It also holds {}.", readable.join(", "))
    }
}

/// The view's statement and notes on it, or why a view cannot read one of
/// the index's fields.
fn view(spec: &Spec<'_>) -> Result<(IndexView, Vec<String>), String> {
    let mut names = Names::default();
    let mut select = Vec::new();
    let mut order = Vec::new();
    let mut notes = Vec::new();
    let mut from_key = Vec::new();
    for f in &spec.fields {
        let expr = match &f.place {
            Place::Column { family, qualifier } => key_value(f.kind, &cell(family, qualifier)),
            Place::KeyField { index, count } => {
                if spec.key_encoding != KeyEncoding::Text {
                    return Err(format!(
                        "{} is a field of the row key, and with the binary key encoding a view cannot take it out of the key (the text encoding separates fields with #)",
                        f.name
                    ));
                }
                from_key.push(f.name.as_str());
                let raw = key_field(*index, *count);
                if f.kind == Kind::Bytes {
                    raw
                } else {
                    format!("SAFE_CONVERT_BYTES_TO_STRING({raw})")
                }
            }
            Place::Unreadable(why) => return Err(why.clone()),
        };
        if f.kind == Kind::Decimal && matches!(f.place, Place::Column { .. }) {
            notes.push(format!(
                "{} is decimal text, so the view orders it as text (10 before 9); equality lookups are exact.",
                f.name
            ));
        }
        let alias = names.add(&f.name);
        select.push(format!("{expr} AS {}", ident(&alias)));
        order.push(ident(&alias));
    }
    let key_alias = names.add(&format!("{}_key", spec.table));
    select.push(format!("_key AS {}", ident(&key_alias)));
    order.push(ident(&key_alias));
    let mut left_out = Vec::new();
    for v in &spec.values {
        match &v.place {
            Place::Column { family, qualifier } => {
                let alias = names.add(&v.name);
                select.push(format!(
                    "{} AS {}",
                    plain_value(v.kind, &cell(family, qualifier)),
                    ident(&alias)
                ));
            }
            // Already in the view's key.
            Place::KeyField { .. } => {}
            Place::Unreadable(why) => left_out.push(why.as_str()),
        }
    }
    match from_key.as_slice() {
        [] => {}
        [one] => notes.push(format!(
            "{one} is taken out of the row key as the key writes it, which sorts the same way as the value."
        )),
        many => notes.push(format!(
            "{} are taken out of the row key as the key writes them, which sorts the same way as the values.",
            many.join(" and ")
        )),
    }
    if !left_out.is_empty() {
        notes.push(format!("Left out of the view: {}.", left_out.join("; ")));
    }
    let name = view_name(spec.table, spec.name);
    let sql = format!(
        "CREATE MATERIALIZED VIEW {} AS\nSELECT {}\nFROM {}\nORDER BY {}",
        ident(&name),
        select.join(",\n  "),
        ident(spec.table),
        order.join(", ")
    );
    Ok((IndexView { name, sql }, notes))
}

/// `family['qualifier']`.
fn cell(family: &str, qualifier: &str) -> String {
    format!("{}[{}]", ident(family), string_literal(qualifier))
}

/// A key column's expression: a type the view's key can hold and that
/// sorts like the source's values.
fn key_value(kind: Kind, cell: &str) -> String {
    match kind {
        Kind::Text | Kind::Decimal => format!("SAFE_CONVERT_BYTES_TO_STRING({cell})"),
        Kind::Integer => format!("SAFE_CAST(SAFE_CONVERT_BYTES_TO_STRING({cell}) AS INT64)"),
        Kind::Bytes | Kind::Counter => cell.to_string(),
    }
}

/// A value column's expression: text as STRING, the rest as it is.
fn plain_value(kind: Kind, cell: &str) -> String {
    match kind {
        Kind::Text | Kind::Decimal | Kind::Integer => {
            format!("SAFE_CONVERT_BYTES_TO_STRING({cell})")
        }
        Kind::Bytes | Kind::Counter => cell.to_string(),
    }
}

/// Field `index` of a `#`-separated row key of `count` fields. Fields
/// before the last never hold a `#` (the text encoding escapes it), so
/// SPLIT finds them; the last may, so it is everything after the others.
fn key_field(index: usize, count: usize) -> String {
    if count <= 1 {
        return "_key".to_string();
    }
    if index + 1 < count {
        return format!("SPLIT(_key, b'#')[SAFE_OFFSET({index})]");
    }
    let before: Vec<String> = (0..count - 1)
        .map(|i| format!("BYTE_LENGTH(SPLIT(_key, b'#')[SAFE_OFFSET({i})])"))
        .collect();
    format!("SUBSTR(_key, {} + {count})", before.join(" + "))
}

/// The view's name: `<table>_<index>`, as a table id (at most 50
/// characters from `[-_.a-zA-Z0-9]`).
fn view_name(table: &str, index: &str) -> String {
    let mut s: String = format!("{table}_{index}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    s.truncate(tabletop_store::MAX_TABLE_ID_LEN);
    s
}

/// A GoogleSQL identifier: as it is when it is a plain unreserved word,
/// else in backticks.
fn ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain && !is_reserved(name) {
        return name.to_string();
    }
    let mut s = String::from("`");
    for c in name.chars() {
        match c {
            '`' => s.push_str("\\`"),
            '\\' => s.push_str("\\\\"),
            _ => s.push(c),
        }
    }
    s.push('`');
    s
}

/// A GoogleSQL string literal.
fn string_literal(text: &str) -> String {
    let mut s = String::from("'");
    for c in text.chars() {
        match c {
            '\'' => s.push_str("\\'"),
            '\\' => s.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                s.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => s.push(c),
        }
    }
    s.push('\'');
    s
}

/// Column names of one view: each a SQL identifier that can also name a
/// column family and a key field, none used twice.
#[derive(Default)]
struct Names {
    taken: Vec<String>,
}

impl Names {
    fn add(&mut self, raw: &str) -> String {
        let mut base: String = raw
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        if !base
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        {
            base.insert_str(0, "c_");
        }
        base.truncate(60);
        if ["_key", "_timestamp", "_exists"]
            .iter()
            .any(|r| r.eq_ignore_ascii_case(&base))
        {
            base.push_str("_1");
        }
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.iter().any(|t| t.eq_ignore_ascii_case(&name)) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.push(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_quoted_only_when_needed() {
        assert_eq!(ident("item"), "item");
        assert_eq!(ident("mobile-time-series"), "`mobile-time-series`");
        assert_eq!(ident("order"), "`order`");
        assert_eq!(ident("a`b"), "`a\\`b`");
        assert_eq!(string_literal("it's"), "'it\\'s'");
        assert_eq!(string_literal("a\tb"), "'a\\x09b'");
    }

    #[test]
    fn names_are_identifiers_and_unique() {
        let mut n = Names::default();
        assert_eq!(n.add("UserId"), "UserId");
        assert_eq!(n.add("userid"), "userid_2");
        assert_eq!(n.add("2nd field"), "c_2nd_field");
        assert_eq!(n.add("_key"), "_key_1");
        assert_eq!(view_name("orders", "by email!"), "orders_by_email_");
        assert_eq!(view_name(&"t".repeat(60), "i").len(), 50);
    }

    #[test]
    fn key_fields_come_out_of_a_text_key() {
        assert_eq!(key_field(0, 1), "_key");
        assert_eq!(key_field(0, 2), "SPLIT(_key, b'#')[SAFE_OFFSET(0)]");
        assert_eq!(
            key_field(1, 2),
            "SUBSTR(_key, BYTE_LENGTH(SPLIT(_key, b'#')[SAFE_OFFSET(0)]) + 2)"
        );
    }
}
