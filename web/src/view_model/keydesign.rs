//! The row-key designer's draft: the design's key template as editable
//! text fields, turned back into a template with the core's own checks.
//!
//! A person types into fields one character at a time, so most drafts are
//! briefly wrong (`width` empty, an enum value list ending in a comma).
//! The draft keeps exactly what was typed; [`KeyDraft::to_template`]
//! either yields a valid [`KeyTemplate`] or the message saying why not.
//! Segments are rebuilt through the core's serde path (the same one that
//! reads scenario files), so the messages are the core's: "a hash segment
//! needs `of`", "`width` must be 1 to 32 hex digits", and so on.

use serde_json::{Map, Value};
use tabletop_core::keydesign::{
    DateFormat, KeyTemplate, MAX_SEGMENTS, Per, Segment, SegmentKind, TimeUnit,
};

use super::keys::{DisplayKey, KeyPart};

/// The segment kinds, in the order the designer offers them, with a short
/// description for the select's options.
pub const KINDS: [(&str, &str); 12] = [
    ("const", "fixed text"),
    ("enum", "one of a few values"),
    ("hex", "hex id"),
    ("uuid", "UUID"),
    ("name", "user name"),
    ("int", "number"),
    ("timestamp", "timestamp"),
    ("date", "date"),
    ("hash", "hash of a segment"),
    ("salt", "salt bucket"),
    ("domain", "domain name"),
    ("tenant", "tenant"),
];

/// One editable parameter of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegField {
    /// The segment's name.
    Name,
    /// Its kind (one of [`KINDS`]).
    Kind,
    /// `const`: the text.
    Value,
    /// `enum`: values, comma-separated.
    Values,
    /// `enum`: weights, comma-separated (optional).
    Weights,
    /// `entity` or `op`.
    Per,
    /// Digits (`hex`, `int`, `hash`).
    Width,
    /// `int`, `timestamp`, `domain`: `true` or `false`.
    Reversed,
    /// `timestamp`: `s`, `ms` or `us`.
    Unit,
    /// `date`: the layout.
    Format,
    /// `hash`, `salt`: the source segment.
    Of,
    /// `salt`: number of buckets.
    Buckets,
    /// `domain`: number of sites.
    Sites,
    /// `domain`: host labels, comma-separated.
    Hosts,
    /// `tenant`: number of tenants.
    Tenants,
    /// `tenant`: skew.
    Skew,
}

impl SegField {
    /// The label shown next to the field.
    pub fn label(self) -> &'static str {
        match self {
            SegField::Name => "name",
            SegField::Kind => "kind",
            SegField::Value => "text",
            SegField::Values => "values",
            SegField::Weights => "weights",
            SegField::Per => "varies per",
            SegField::Width => "width",
            SegField::Reversed => "reversed",
            SegField::Unit => "unit",
            SegField::Format => "format",
            SegField::Of => "of",
            SegField::Buckets => "buckets",
            SegField::Sites => "sites",
            SegField::Hosts => "hosts",
            SegField::Tenants => "tenants",
            SegField::Skew => "skew",
        }
    }

    /// The key this field has in a scenario file.
    fn file_key(self) -> &'static str {
        match self {
            SegField::Name => "name",
            SegField::Kind => "kind",
            SegField::Value => "value",
            SegField::Values => "values",
            SegField::Weights => "weights",
            SegField::Per => "per",
            SegField::Width => "width",
            SegField::Reversed => "reversed",
            SegField::Unit => "unit",
            SegField::Format => "format",
            SegField::Of => "of",
            SegField::Buckets => "buckets",
            SegField::Sites => "sites",
            SegField::Hosts => "hosts",
            SegField::Tenants => "tenants",
            SegField::Skew => "skew",
        }
    }

    /// The choices of a field drawn as a select (`None`: free text or a
    /// checkbox). `of` lists the other segments and is built by the view.
    pub fn choices(self) -> Option<&'static [(&'static str, &'static str)]> {
        match self {
            SegField::Kind => Some(&KINDS),
            SegField::Per => Some(&[("entity", "entity"), ("op", "operation")]),
            SegField::Unit => Some(&[
                ("s", "seconds"),
                ("ms", "milliseconds"),
                ("us", "microseconds"),
            ]),
            SegField::Format => Some(&[
                ("yyyymmdd", "yyyymmdd"),
                ("yyyy-mm-dd", "yyyy-mm-dd"),
                ("yyyymmddhh", "yyyymmddhh"),
                ("yyyymm", "yyyymm"),
            ]),
            _ => None,
        }
    }

    /// Whether the field is a checkbox.
    pub fn is_flag(self) -> bool {
        self == SegField::Reversed
    }
}

/// The parameters each kind takes, in the order the designer shows them
/// (the name and kind come first for every kind).
pub fn fields_for(kind: &str) -> &'static [SegField] {
    match kind {
        "const" => &[SegField::Value],
        "enum" => &[SegField::Values, SegField::Weights, SegField::Per],
        "hex" => &[SegField::Width, SegField::Per],
        "uuid" | "name" => &[SegField::Per],
        "int" => &[SegField::Width, SegField::Reversed, SegField::Per],
        "timestamp" => &[SegField::Unit, SegField::Reversed],
        "date" => &[SegField::Format],
        "hash" => &[SegField::Of, SegField::Width],
        "salt" => &[SegField::Buckets, SegField::Of],
        "domain" => &[SegField::Sites, SegField::Hosts, SegField::Reversed],
        "tenant" => &[SegField::Tenants, SegField::Skew],
        _ => &[],
    }
}

/// One segment as typed: every parameter as text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SegmentDraft {
    /// Text of each field; a field a kind does not take is kept (so
    /// switching kinds back and forth loses nothing) but ignored.
    values: Vec<(SegField, String)>,
}

impl SegmentDraft {
    /// The text of a field (empty if never set).
    pub fn get(&self, field: SegField) -> &str {
        self.values
            .iter()
            .find(|(f, _)| *f == field)
            .map_or("", |(_, v)| v.as_str())
    }

    /// Sets a field's text.
    pub fn set(&mut self, field: SegField, text: impl Into<String>) {
        let text = text.into();
        match self.values.iter_mut().find(|(f, _)| *f == field) {
            Some(slot) => slot.1 = text,
            None => self.values.push((field, text)),
        }
    }

    /// The segment's name as typed.
    pub fn name(&self) -> &str {
        self.get(SegField::Name)
    }

    /// The kind as typed.
    pub fn kind(&self) -> &str {
        self.get(SegField::Kind)
    }

    /// The draft of a segment of a template.
    pub fn from_segment(segment: &Segment) -> SegmentDraft {
        let mut d = SegmentDraft::default();
        d.set(SegField::Name, segment.name.clone());
        d.set(SegField::Kind, segment.kind.kind_name());
        let per = |p: &Per| match p {
            Per::Entity => "entity",
            Per::Op => "op",
        };
        let flag = |b: bool| if b { "true" } else { "false" };
        match &segment.kind {
            SegmentKind::Const { value } => d.set(SegField::Value, value.clone()),
            SegmentKind::Enum {
                values,
                weights,
                per: p,
            } => {
                d.set(SegField::Values, values.join(", "));
                d.set(
                    SegField::Weights,
                    weights
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                );
                d.set(SegField::Per, per(p));
            }
            SegmentKind::Hex { width, per: p } => {
                d.set(SegField::Width, width.to_string());
                d.set(SegField::Per, per(p));
            }
            SegmentKind::Uuid { per: p } | SegmentKind::Name { per: p } => {
                d.set(SegField::Per, per(p));
            }
            SegmentKind::Int {
                width,
                reversed,
                per: p,
            } => {
                d.set(
                    SegField::Width,
                    width.map(|w| w.to_string()).unwrap_or_default(),
                );
                d.set(SegField::Reversed, flag(*reversed));
                d.set(SegField::Per, per(p));
            }
            SegmentKind::Timestamp { unit, reversed } => {
                d.set(
                    SegField::Unit,
                    match unit {
                        TimeUnit::Seconds => "s",
                        TimeUnit::Millis => "ms",
                        TimeUnit::Micros => "us",
                    },
                );
                d.set(SegField::Reversed, flag(*reversed));
            }
            SegmentKind::Date { format } => d.set(
                SegField::Format,
                match format {
                    DateFormat::Day => "yyyymmdd",
                    DateFormat::DayDashed => "yyyy-mm-dd",
                    DateFormat::Hour => "yyyymmddhh",
                    DateFormat::Month => "yyyymm",
                },
            ),
            SegmentKind::Hash { of, width } => {
                d.set(SegField::Of, of.clone());
                d.set(SegField::Width, width.to_string());
            }
            SegmentKind::Salt { buckets, of } => {
                d.set(SegField::Buckets, buckets.to_string());
                d.set(SegField::Of, of.clone().unwrap_or_default());
            }
            SegmentKind::Domain {
                sites,
                reversed,
                hosts,
            } => {
                d.set(SegField::Sites, sites.to_string());
                d.set(SegField::Hosts, hosts.join(", "));
                d.set(SegField::Reversed, flag(*reversed));
            }
            SegmentKind::Tenant { tenants, skew } => {
                d.set(SegField::Tenants, tenants.to_string());
                d.set(SegField::Skew, skew.to_string());
            }
        }
        d
    }

    /// Fills the parameters a kind needs with sensible starting values
    /// where they are empty, so choosing a kind gives a working segment.
    /// `others` are the other segments' names (for `hash` and `salt`).
    pub fn fill_defaults(&mut self, others: &[String]) {
        let kind = self.kind().to_string();
        let mut default = |field: SegField, value: &str| {
            if self.get(field).trim().is_empty() {
                self.set(field, value);
            }
        };
        let source = others.first().map(String::as_str).unwrap_or_default();
        match kind.as_str() {
            "const" => default(SegField::Value, "v1"),
            "enum" => default(SegField::Values, "phone, tablet"),
            "hex" => default(SegField::Width, "8"),
            "hash" => {
                default(SegField::Of, source);
                default(SegField::Width, "4");
            }
            "salt" => default(SegField::Buckets, "8"),
            "domain" => {
                default(SegField::Sites, "1000");
                default(SegField::Hosts, "www, maps, mail");
            }
            "tenant" => {
                default(SegField::Tenants, "100");
                default(SegField::Skew, "0");
            }
            _ => {}
        }
    }

    /// The segment this draft describes, checked by the core.
    pub fn to_segment(&self, position: usize) -> Result<Segment, String> {
        let name = self.name().trim();
        let label = if name.is_empty() {
            format!("segment {}", position + 1)
        } else {
            format!("segment \"{name}\"")
        };
        let mut map = Map::new();
        map.insert("name".into(), Value::String(name.to_string()));
        map.insert("kind".into(), Value::String(self.kind().to_string()));
        for &field in fields_for(self.kind()) {
            let text = self.get(field).trim();
            let value = match field {
                SegField::Values | SegField::Hosts => {
                    if text.is_empty() {
                        continue;
                    }
                    Value::Array(
                        text.split(',')
                            .map(|v| Value::String(v.trim().to_string()))
                            .collect(),
                    )
                }
                SegField::Weights => {
                    if text.is_empty() {
                        continue;
                    }
                    let mut weights = Vec::new();
                    for w in text.split(',') {
                        let w = w.trim();
                        let n: u32 = w.parse().map_err(|_| {
                            format!("{label}: every weight must be a whole number, got {w:?}")
                        })?;
                        weights.push(Value::from(n));
                    }
                    Value::Array(weights)
                }
                SegField::Width | SegField::Buckets | SegField::Sites | SegField::Tenants => {
                    if text.is_empty() {
                        continue;
                    }
                    let n: u64 = text.parse().map_err(|_| {
                        format!(
                            "{label}: `{}` must be a whole number, got {text:?}",
                            field.file_key()
                        )
                    })?;
                    let max = match field {
                        SegField::Width => u64::from(u8::MAX),
                        _ => u64::from(u32::MAX),
                    };
                    if n > max {
                        return Err(format!(
                            "{label}: `{}` {n} is far too large",
                            field.file_key()
                        ));
                    }
                    Value::from(n)
                }
                SegField::Skew => {
                    if text.is_empty() {
                        continue;
                    }
                    let x: f64 = text
                        .parse()
                        .map_err(|_| format!("{label}: `skew` must be a number, got {text:?}"))?;
                    Value::from(x)
                }
                SegField::Reversed => Value::Bool(text == "true"),
                SegField::Of if text.is_empty() => continue,
                _ => {
                    if text.is_empty() {
                        continue;
                    }
                    Value::String(text.to_string())
                }
            };
            map.insert(field.file_key().into(), value);
        }
        serde_json::from_value::<Segment>(Value::Object(map)).map_err(|e| e.to_string())
    }
}

/// The key template as typed, with the design revision it started from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyDraft {
    /// The [`crate::state::design::DesignState::rev`] this draft belongs
    /// to: a draft of an older design is dropped.
    pub rev: u64,
    /// The delimiter as typed.
    pub delimiter: String,
    /// The segments as typed.
    pub segments: Vec<SegmentDraft>,
    /// Why the draft is not the design, if it is not.
    pub error: Option<String>,
}

/// One change the designer makes to a draft.
#[derive(Clone, Debug, PartialEq)]
pub enum DraftEdit {
    /// The delimiter's text.
    Delimiter(String),
    /// A field of segment `index`.
    Field(usize, SegField, String),
    /// A new segment at the end.
    Add,
    /// Remove segment `index`.
    Remove(usize),
    /// Move segment `index` one place up (`true`) or down.
    Move(usize, bool),
}

impl KeyDraft {
    /// The draft of a template.
    pub fn from_template(template: &KeyTemplate, rev: u64) -> KeyDraft {
        KeyDraft {
            rev,
            delimiter: template.delimiter.clone(),
            segments: template
                .segments
                .iter()
                .map(SegmentDraft::from_segment)
                .collect(),
            error: None,
        }
    }

    /// Applies one edit to the text (nothing is checked here).
    pub fn edit(&mut self, edit: DraftEdit) {
        match edit {
            DraftEdit::Delimiter(text) => self.delimiter = text,
            DraftEdit::Field(i, field, text) => {
                let others: Vec<String> = self
                    .segments
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, s)| s.name().to_string())
                    .collect();
                if let Some(seg) = self.segments.get_mut(i) {
                    seg.set(field, text);
                    if field == SegField::Kind {
                        seg.fill_defaults(&others);
                    }
                }
            }
            DraftEdit::Add => {
                if self.segments.len() < MAX_SEGMENTS {
                    let mut n = self.segments.len() + 1;
                    let taken = |n: usize, segs: &[SegmentDraft]| {
                        segs.iter().any(|s| s.name() == format!("part{n}"))
                    };
                    while taken(n, &self.segments) {
                        n += 1;
                    }
                    let mut seg = SegmentDraft::default();
                    seg.set(SegField::Name, format!("part{n}"));
                    seg.set(SegField::Kind, "const");
                    seg.set(SegField::Value, "x");
                    self.segments.push(seg);
                }
            }
            DraftEdit::Remove(i) => {
                if i < self.segments.len() {
                    self.segments.remove(i);
                }
            }
            DraftEdit::Move(i, up) => {
                let j = if up { i.checked_sub(1) } else { Some(i + 1) };
                if let Some(j) = j
                    && i < self.segments.len()
                    && j < self.segments.len()
                {
                    self.segments.swap(i, j);
                }
            }
        }
    }

    /// The template this draft describes, or the first problem with it in
    /// the core's words.
    pub fn to_template(&self) -> Result<KeyTemplate, String> {
        let segments = self
            .segments
            .iter()
            .enumerate()
            .map(|(i, s)| s.to_segment(i))
            .collect::<Result<Vec<_>, _>>()?;
        let template = KeyTemplate {
            delimiter: self.delimiter.clone(),
            segments,
        };
        template.validate().map_err(|e| e.message().to_string())?;
        Ok(template)
    }
}

/// An example key cut into the template's segments (not at every `#`
/// like the rows panel: a delimiter-less key is cut by the segments'
/// widths, and a value that happens to contain `:` stays whole).
pub fn example_key(template: &KeyTemplate, text: &str) -> DisplayKey {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let mut pos = 0;
    for part in template.split_key(bytes) {
        if part.range.start > pos {
            let between = String::from_utf8_lossy(&bytes[pos..part.range.start]);
            parts.extend(between.chars().map(KeyPart::Separator));
        }
        let Some(slice) = bytes.get(part.range.clone()) else {
            break;
        };
        if !slice.is_empty() {
            parts.push(KeyPart::Segment {
                index: part.segment,
                text: String::from_utf8_lossy(slice).into_owned(),
            });
        }
        pos = part.range.end;
    }
    if pos < bytes.len() {
        parts.push(KeyPart::Segment {
            index: template.segments.len(),
            text: String::from_utf8_lossy(&bytes[pos..]).into_owned(),
        });
    }
    DisplayKey {
        text: text.to_string(),
        parts,
    }
}

/// Example keys of a template, cut into segments.
pub fn example_keys(template: &KeyTemplate, n: usize) -> Vec<DisplayKey> {
    template
        .examples(n)
        .iter()
        .map(|k| example_key(template, k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(toml_key: &str) -> KeyTemplate {
        let text = format!(
            "name = \"t\"\nduration = \"1m\"\n[table]\nfamilies = {{ f = {{}} }}\n[key]\n{toml_key}\n[[workload]]\nop = \"write\"\nrate = 1\n"
        );
        tabletop_core::sim::Scenario::from_toml(&text)
            .expect("a valid test scenario")
            .key
    }

    #[test]
    fn a_template_survives_the_round_trip_through_a_draft() {
        let t = template(
            r#"segments = [
  { name = "device_type", kind = "enum", values = ["phone", "tablet"] },
  { name = "device_id", kind = "hex", width = 8 },
  { name = "ts", kind = "timestamp", unit = "s", reversed = true },
  { name = "b", kind = "salt", buckets = 16, of = "device_id" },
  { name = "n", kind = "int", width = 6 },
]"#,
        );
        let draft = KeyDraft::from_template(&t, 3);
        assert_eq!(draft.rev, 3);
        assert_eq!(draft.segments[0].get(SegField::Values), "phone, tablet");
        assert_eq!(draft.to_template().unwrap(), t);
    }

    #[test]
    fn mistakes_get_the_cores_messages() {
        let t = template(r#"segments = [{ name = "id", kind = "hex", width = 8 }]"#);
        let mut draft = KeyDraft::from_template(&t, 1);
        draft.edit(DraftEdit::Field(0, SegField::Width, "40".into()));
        let err = draft.to_template().unwrap_err();
        assert!(err.contains("1 to 32 hex digits"), "{err}");
        draft.edit(DraftEdit::Field(0, SegField::Width, "wide".into()));
        let err = draft.to_template().unwrap_err();
        assert!(err.contains("whole number"), "{err}");
        draft.edit(DraftEdit::Field(0, SegField::Width, "4".into()));
        draft.edit(DraftEdit::Field(0, SegField::Name, "bad name".into()));
        let err = draft.to_template().unwrap_err();
        assert!(err.contains("[A-Za-z0-9_-]"), "{err}");
        draft.edit(DraftEdit::Field(0, SegField::Name, "id".into()));
        draft.edit(DraftEdit::Delimiter("#########".into()));
        let err = draft.to_template().unwrap_err();
        assert!(err.contains("limit is 8"), "{err}");
    }

    #[test]
    fn choosing_a_kind_fills_what_it_needs() {
        let t = template(r#"segments = [{ name = "user", kind = "name" }]"#);
        let mut draft = KeyDraft::from_template(&t, 1);
        draft.edit(DraftEdit::Add);
        assert_eq!(draft.segments[1].name(), "part2");
        draft.edit(DraftEdit::Field(1, SegField::Kind, "hash".into()));
        assert_eq!(draft.segments[1].get(SegField::Of), "user");
        let made = draft.to_template().unwrap();
        assert_eq!(made.pattern(), "{user:name}#{part2:hash4(user)}");
        draft.edit(DraftEdit::Move(1, true));
        assert_eq!(draft.segments[0].name(), "part2");
        draft.edit(DraftEdit::Move(0, true));
        assert_eq!(draft.segments[0].name(), "part2", "nothing above the first");
        draft.edit(DraftEdit::Remove(1));
        assert_eq!(draft.segments.len(), 1);
        // The hash's source is gone: the core says so.
        let err = draft.to_template().unwrap_err();
        assert!(err.contains("user"), "{err}");
    }

    #[test]
    fn example_keys_are_cut_by_the_template() {
        let t = template(
            r#"delimiter = ""
segments = [{ name = "a", kind = "hex", width = 4 }, { name = "b", kind = "const", value = "x:y" }]"#,
        );
        let keys = example_keys(&t, 2);
        assert_eq!(keys.len(), 2);
        let parts = &keys[0].parts;
        assert_eq!(parts.len(), 2, "{parts:?}");
        assert_eq!(
            parts[1],
            KeyPart::Segment {
                index: 1,
                text: "x:y".into()
            }
        );
    }
}
