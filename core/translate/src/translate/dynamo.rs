//! DynamoDB designs in: a NoSQL Workbench data-model export (tables, key
//! attributes, GSIs, facets, a TTL attribute and the sample data), or the
//! AWS CLI's `describe-table` output (with `describe-time-to-live` and
//! `scan` output merged in, when there are any), laid out as
//! [`from_dynamodb`] describes.
//!
//! [`from_dynamodb`]: super::from_dynamodb

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use super::index::{self, Field, Kind, Place, Spec};
use super::json::{self, Json, Node};
use super::keycodec::{self, Decimal, KeyValue};
use super::oracle::parse_iso_timestamp;
use super::{
    CellPlan, CellValue, ColumnPlan, DynamoLayout, FamilyPlan, IndexPlan, Input, KeyPart, Note,
    Options, Pattern, Pos, RowPlan, Source, TableTranslation, TranslateError, Translation,
    family_name, segment_name,
};
use tabletop_design::keydesign::{KeyTemplate, Per, Segment, SegmentKind};
use tabletop_store::{Aggregator, GcRule, ValueType, validate_table_id};

fn err(pos: Pos, msg: impl Into<String>) -> TranslateError {
    TranslateError::new(Input::Model, pos, msg)
}

/// The aggregate family counters go to.
const COUNTERS: &str = "counters";

/// Words that make a whole-number attribute a counter.
const COUNTER_WORDS: &[&str] = &[
    "count",
    "views",
    "likes",
    "hits",
    "clicks",
    "votes",
    "downloads",
    "visits",
    "plays",
    "shares",
    "followers",
];

/// Counter attribute names that say nothing about what is counted (the
/// item's kind names the column instead).
const GENERIC_COUNTER_NAMES: &[&str] = &["count", "counter", "value", "total", "n"];

/// Words that make an attribute the item's write time.
const TIME_WORDS: &[&str] = &[
    "created",
    "upload",
    "posted",
    "updated",
    "modified",
    "timestamp",
    "inserted",
    "written",
];

/// A DynamoDB attribute type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AType {
    S,
    N,
    B,
    Bool,
    M,
    L,
    Ss,
    Ns,
    Bs,
    Null,
}

impl AType {
    fn from_name(s: &str) -> Option<AType> {
        Some(match s {
            "S" => AType::S,
            "N" => AType::N,
            "B" => AType::B,
            "BOOL" => AType::Bool,
            "M" => AType::M,
            "L" => AType::L,
            "SS" => AType::Ss,
            "NS" => AType::Ns,
            "BS" => AType::Bs,
            "NULL" => AType::Null,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            AType::S => "S",
            AType::N => "N",
            AType::B => "B",
            AType::Bool => "BOOL",
            AType::M => "M",
            AType::L => "L",
            AType::Ss => "SS",
            AType::Ns => "NS",
            AType::Bs => "BS",
            AType::Null => "NULL",
        }
    }
}

/// A DynamoDB attribute value.
#[derive(Clone, Debug, PartialEq)]
enum AValue {
    S(String),
    N(String),
    B(Vec<u8>),
    Bool(bool),
    Null,
    M(Vec<(String, AValue)>),
    L(Vec<AValue>),
    Ss(Vec<String>),
    Ns(Vec<String>),
    Bs(Vec<Vec<u8>>),
}

impl AValue {
    fn atype(&self) -> AType {
        match self {
            AValue::S(_) => AType::S,
            AValue::N(_) => AType::N,
            AValue::B(_) => AType::B,
            AValue::Bool(_) => AType::Bool,
            AValue::Null => AType::Null,
            AValue::M(_) => AType::M,
            AValue::L(_) => AType::L,
            AValue::Ss(_) => AType::Ss,
            AValue::Ns(_) => AType::Ns,
            AValue::Bs(_) => AType::Bs,
        }
    }

    /// The value as plain JSON (type descriptors removed).
    fn to_json(&self, out: &mut String) {
        let number = |n: &str, out: &mut String| match Decimal::parse(n) {
            Some(d) => out.push_str(&d.to_string()),
            None => json::write_string(n, out),
        };
        match self {
            AValue::S(s) => json::write_string(s, out),
            AValue::N(n) => number(n, out),
            AValue::B(b) => json::write_string(&tabletop_store::base64_text::encode(b), out),
            AValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            AValue::Null => out.push_str("null"),
            AValue::M(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json::write_string(k, out);
                    out.push(':');
                    v.to_json(out);
                }
                out.push('}');
            }
            AValue::L(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.to_json(out);
                }
                out.push(']');
            }
            AValue::Ss(items) => {
                out.push('[');
                for (i, s) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json::write_string(s, out);
                }
                out.push(']');
            }
            AValue::Ns(items) => {
                out.push('[');
                for (i, n) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    number(n, out);
                }
                out.push(']');
            }
            AValue::Bs(items) => {
                out.push('[');
                for (i, b) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json::write_string(&tabletop_store::base64_text::encode(b), out);
                }
                out.push(']');
            }
        }
    }

    /// The bytes of a cell holding this value.
    fn cell(&self) -> Vec<u8> {
        match self {
            AValue::S(s) => s.clone().into_bytes(),
            AValue::N(n) => n.trim().as_bytes().to_vec(),
            AValue::B(b) => b.clone(),
            AValue::Bool(b) => {
                if *b {
                    b"true".to_vec()
                } else {
                    b"false".to_vec()
                }
            }
            AValue::Null => Vec::new(),
            _ => {
                let mut s = String::new();
                self.to_json(&mut s);
                s.into_bytes()
            }
        }
    }

    /// The value as text for sort-key splitting and messages.
    fn text(&self) -> String {
        match self {
            AValue::S(s) => s.clone(),
            AValue::N(n) => n.trim().to_string(),
            AValue::B(b) => tabletop_store::base64_text::encode(b),
            other => String::from_utf8_lossy(&other.cell()).into_owned(),
        }
    }

    fn int(&self) -> Option<i64> {
        match self {
            AValue::N(n) => Decimal::parse(n).and_then(|d| d.to_i64()),
            _ => None,
        }
    }
}

fn parse_value(node: &Node, depth: usize) -> Result<AValue, TranslateError> {
    if depth > json::MAX_DEPTH {
        return Err(err(node.pos, "the value nests too deeply"));
    }
    let Some([m]) = node.as_object() else {
        return Err(err(
            node.pos,
            format!(
                "an attribute value must be an object with one type, such as {{\"S\": \"text\"}}, found {}",
                node.kind()
            ),
        ));
    };
    let Some(ty) = AType::from_name(&m.key) else {
        return Err(err(
            m.key_pos,
            format!(
                "unknown attribute type {:?}: expected S, N, B, BOOL, M, L, SS, NS, BS or NULL",
                m.key
            ),
        ));
    };
    let v = &m.value;
    let want = |what: &str| {
        err(
            v.pos,
            format!("a {} value must be {what}, found {}", ty.name(), v.kind()),
        )
    };
    let number = |n: &Node| -> Result<String, TranslateError> {
        let text = match &n.value {
            Json::String(s) => s.clone(),
            Json::Number(s) => s.clone(),
            _ => {
                return Err(err(
                    n.pos,
                    format!("a number must be a string of digits, found {}", n.kind()),
                ));
            }
        };
        if Decimal::parse(&text).is_none() {
            return Err(err(n.pos, format!("{text:?} is not a number")));
        }
        Ok(text)
    };
    let bytes = |n: &Node| -> Result<Vec<u8>, TranslateError> {
        let Some(s) = n.as_str() else {
            return Err(err(
                n.pos,
                format!("a binary value must be a base64 string, found {}", n.kind()),
            ));
        };
        tabletop_store::base64_text::decode(s)
            .map_err(|_| err(n.pos, "a binary value must be base64"))
    };
    Ok(match ty {
        AType::S => AValue::S(v.as_str().ok_or_else(|| want("a string"))?.to_string()),
        AType::N => AValue::N(number(v)?),
        AType::B => AValue::B(bytes(v)?),
        AType::Bool => match v.value {
            Json::Bool(b) => AValue::Bool(b),
            _ => return Err(want("true or false")),
        },
        AType::Null => match v.value {
            Json::Bool(true) => AValue::Null,
            _ => return Err(want("true")),
        },
        AType::M => {
            let members = v.as_object().ok_or_else(|| want("an object"))?;
            let mut out = Vec::new();
            for mm in members {
                out.push((mm.key.clone(), parse_value(&mm.value, depth + 1)?));
            }
            AValue::M(out)
        }
        AType::L => {
            let items = v.as_array().ok_or_else(|| want("an array"))?;
            let mut out = Vec::new();
            for item in items {
                out.push(parse_value(item, depth + 1)?);
            }
            AValue::L(out)
        }
        AType::Ss | AType::Ns | AType::Bs => {
            let items = v.as_array().ok_or_else(|| want("an array"))?;
            if items.is_empty() {
                return Err(err(v.pos, "a set must not be empty"));
            }
            let mut seen = BTreeSet::new();
            let mut texts = Vec::new();
            let mut blobs = Vec::new();
            for item in items {
                let key: Vec<u8> = match ty {
                    AType::Ss => {
                        let s = item.as_str().ok_or_else(|| {
                            err(
                                item.pos,
                                format!("a string set holds strings, found {}", item.kind()),
                            )
                        })?;
                        texts.push(s.to_string());
                        s.as_bytes().to_vec()
                    }
                    AType::Ns => {
                        let n = number(item)?;
                        let canon = Decimal::parse(&n)
                            .map(|d| d.to_string())
                            .unwrap_or_else(|| n.clone());
                        texts.push(n);
                        canon.into_bytes()
                    }
                    _ => {
                        let b = bytes(item)?;
                        blobs.push(b.clone());
                        b
                    }
                };
                if !seen.insert(key) {
                    return Err(err(item.pos, "a set must not repeat a member"));
                }
            }
            match ty {
                AType::Ss => AValue::Ss(texts),
                AType::Ns => AValue::Ns(texts),
                _ => AValue::Bs(blobs),
            }
        }
    })
}

#[derive(Clone, Debug)]
struct KeyAttr {
    name: String,
    ty: AType,
}

#[derive(Clone, Debug)]
struct Item {
    pos: Pos,
    /// Attributes in document order.
    attrs: Vec<(String, AValue, Pos)>,
}

impl Item {
    fn get(&self, name: &str) -> Option<&AValue> {
        self.attrs
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, _)| v)
    }
}

#[derive(Clone, Debug)]
struct Gsi {
    name: String,
    pk: String,
    sk: Option<String>,
    projection: String,
    /// The attributes an INCLUDE projection names.
    include: Vec<String>,
    local: bool,
}

#[derive(Clone, Debug)]
struct DTable {
    name: String,
    pos: Pos,
    pk: KeyAttr,
    sk: Option<KeyAttr>,
    declared: BTreeMap<String, AType>,
    indexes: Vec<Gsi>,
    facets: Vec<String>,
    items: Vec<Item>,
    ttl: Option<String>,
}

fn str_member<'a>(node: &'a Node, key: &str, what: &str) -> Result<&'a str, TranslateError> {
    match node.get(key) {
        Some(v) => v
            .as_str()
            .ok_or_else(|| err(v.pos, format!("{key} must be a string, found {}", v.kind()))),
        None => Err(err(node.pos, format!("{what} needs \"{key}\""))),
    }
}

fn key_attr(node: &Node, what: &str) -> Result<KeyAttr, TranslateError> {
    if node.as_object().is_none() {
        return Err(err(
            node.pos,
            format!("{what} must be an object with AttributeName and AttributeType"),
        ));
    }
    let name = str_member(node, "AttributeName", what)?.to_string();
    let tnode = node.get("AttributeType");
    let ty = str_member(node, "AttributeType", what)?;
    let ty = match AType::from_name(ty) {
        Some(t @ (AType::S | AType::N | AType::B)) => t,
        _ => {
            return Err(err(
                tnode.map_or(node.pos, |n| n.pos),
                format!("a key attribute's AttributeType must be S, N or B, found {ty:?}"),
            ));
        }
    };
    if name.is_empty() {
        return Err(err(node.pos, "AttributeName must not be empty"));
    }
    Ok(KeyAttr { name, ty })
}

fn key_attributes(node: &Node, what: &str) -> Result<(KeyAttr, Option<KeyAttr>), TranslateError> {
    let Some(ka) = node.get("KeyAttributes") else {
        return Err(err(
            node.pos,
            format!("{what} needs \"KeyAttributes\" with a PartitionKey"),
        ));
    };
    let Some(pk) = ka.get("PartitionKey") else {
        return Err(err(ka.pos, "KeyAttributes needs a PartitionKey"));
    };
    let pk = key_attr(pk, "PartitionKey")?;
    let sk = match ka.get("SortKey") {
        Some(s) => Some(key_attr(s, "SortKey")?),
        None => None,
    };
    Ok((pk, sk))
}

fn parse_items(node: &Node, out: &mut Vec<Item>) -> Result<(), TranslateError> {
    let Some(items) = node.as_array() else {
        return Err(err(
            node.pos,
            format!("TableData must be an array of items, found {}", node.kind()),
        ));
    };
    for it in items {
        let Some(members) = it.as_object() else {
            return Err(err(
                it.pos,
                format!("an item must be an object, found {}", it.kind()),
            ));
        };
        let mut attrs = Vec::new();
        for m in members {
            if attrs
                .iter()
                .any(|(n, _, _): &(String, AValue, Pos)| *n == m.key)
            {
                return Err(err(
                    m.key_pos,
                    format!("the item repeats the attribute {:?}", m.key),
                ));
            }
            attrs.push((m.key.clone(), parse_value(&m.value, 0)?, m.value.pos));
        }
        out.push(Item { pos: it.pos, attrs });
    }
    Ok(())
}

/// An index's projection as the report shows it (`ALL`, `KEYS_ONLY`,
/// `INCLUDE a, b`), and the attributes an INCLUDE names.
fn projection(node: Option<&Node>) -> (String, Vec<String>) {
    let Some(p) = node else {
        return ("ALL".into(), Vec::new());
    };
    let ty = p
        .get("ProjectionType")
        .and_then(Node::as_str)
        .unwrap_or("ALL");
    match p.get("NonKeyAttributes").and_then(Node::as_array) {
        Some(attrs) if ty == "INCLUDE" => {
            let names: Vec<String> = attrs
                .iter()
                .filter_map(Node::as_str)
                .map(str::to_string)
                .collect();
            (format!("INCLUDE {}", names.join(", ")), names)
        }
        _ => (ty.to_string(), Vec::new()),
    }
}

fn parse_table(node: &Node) -> Result<DTable, TranslateError> {
    if node.as_object().is_none() {
        return Err(err(
            node.pos,
            format!(
                "a table of DataModel must be an object, found {}",
                node.kind()
            ),
        ));
    }
    let (name, name_pos) = table_name(node, "a table")?;
    let (pk, sk) = key_attributes(node, "a table")?;
    let mut declared = BTreeMap::new();
    declared.insert(pk.name.clone(), pk.ty);
    if let Some(s) = &sk {
        declared.insert(s.name.clone(), s.ty);
    }
    if let Some(nka) = node.get("NonKeyAttributes") {
        let Some(list) = nka.as_array() else {
            return Err(err(nka.pos, "NonKeyAttributes must be an array"));
        };
        for a in list {
            let an = str_member(a, "AttributeName", "a non-key attribute")?;
            let at = str_member(a, "AttributeType", "a non-key attribute")?;
            let Some(t) = AType::from_name(at) else {
                return Err(err(
                    a.get("AttributeType").map_or(a.pos, |n| n.pos),
                    format!(
                        "unknown AttributeType {at:?}: expected S, N, B, BOOL, M, L, SS, NS, BS or NULL"
                    ),
                ));
            };
            declared.insert(an.to_string(), t);
        }
    }
    let indexes = secondary_indexes(node, |ix| {
        let (pk, sk) = key_attributes(ix, "an index")?;
        Ok((pk.name, sk.map(|s| s.name)))
    })?;
    let mut items = Vec::new();
    if let Some(td) = node.get("TableData") {
        parse_items(td, &mut items)?;
    }
    let mut facets = Vec::new();
    if let Some(f) = node.get("TableFacets") {
        let Some(list) = f.as_array() else {
            return Err(err(f.pos, "TableFacets must be an array"));
        };
        for facet in list {
            let fname = str_member(facet, "FacetName", "a facet")?;
            facets.push(fname.to_string());
            if let Some(td) = facet.get("TableData") {
                parse_items(td, &mut items)?;
            }
        }
    }
    let ttl = ttl_specification(node)?;
    Ok(DTable {
        name,
        pos: name_pos,
        pk,
        sk,
        declared,
        indexes,
        facets,
        items,
        ttl,
    })
}

/// The `KeySchema` of a table or index from the AWS API
/// (`[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk",
/// "KeyType": "RANGE"}]`): the partition key's name and the sort key's.
fn key_schema(node: &Node, what: &str) -> Result<(String, Option<String>), TranslateError> {
    let Some(ks) = node.get("KeySchema") else {
        return Err(err(node.pos, format!("{what} needs \"KeySchema\"")));
    };
    let Some(list) = ks.as_array() else {
        return Err(err(
            ks.pos,
            format!("KeySchema must be an array, found {}", ks.kind()),
        ));
    };
    let (mut hash, mut range) = (None, None);
    for k in list {
        let name = str_member(k, "AttributeName", "a KeySchema element")?.to_string();
        let slot = match str_member(k, "KeyType", "a KeySchema element")? {
            "HASH" => &mut hash,
            "RANGE" => &mut range,
            other => {
                return Err(err(
                    k.get("KeyType").map_or(k.pos, |n| n.pos),
                    format!("KeyType must be HASH or RANGE, found {other:?}"),
                ));
            }
        };
        if slot.is_some() {
            return Err(err(k.pos, "KeySchema names two keys of the same KeyType"));
        }
        *slot = Some(name);
    }
    let Some(hash) = hash else {
        return Err(err(ks.pos, "KeySchema has no HASH (partition) key"));
    };
    Ok((hash, range))
}

/// A table as the AWS API describes it: `describe-table`'s `Table` (or
/// `create-table`'s input, or its `TableDescription`). Key types come from
/// `AttributeDefinitions`; `ttl` is the TTL attribute, if enabled; `items`
/// are typed items such as `scan` prints.
fn parse_api_table(
    node: &Node,
    ttl: Option<String>,
    items: Option<&Node>,
) -> Result<DTable, TranslateError> {
    if node.as_object().is_none() {
        return Err(err(
            node.pos,
            format!("Table must be an object, found {}", node.kind()),
        ));
    }
    let (name, name_pos) = table_name(node, "Table")?;
    let mut declared = BTreeMap::new();
    if let Some(defs) = node.get("AttributeDefinitions") {
        let Some(list) = defs.as_array() else {
            return Err(err(defs.pos, "AttributeDefinitions must be an array"));
        };
        for d in list {
            let a = key_attr(d, "an attribute definition")?;
            declared.insert(a.name, a.ty);
        }
    }
    let typed = |attr: String, pos: Pos| -> Result<KeyAttr, TranslateError> {
        match declared.get(&attr) {
            Some(&ty) => Ok(KeyAttr { name: attr, ty }),
            None => Err(err(
                pos,
                format!("the key attribute {attr:?} is not in AttributeDefinitions"),
            )),
        }
    };
    let ks_pos = node.get("KeySchema").map_or(node.pos, |n| n.pos);
    let (pk, sk) = key_schema(node, "Table")?;
    let pk = typed(pk, ks_pos)?;
    let sk = sk.map(|s| typed(s, ks_pos)).transpose()?;
    let indexes = secondary_indexes(node, |ix| key_schema(ix, "an index"))?;
    let mut parsed = Vec::new();
    if let Some(items) = items {
        parse_items(items, &mut parsed)?;
    }
    Ok(DTable {
        name,
        pos: name_pos,
        pk,
        sk,
        declared,
        indexes,
        facets: Vec::new(),
        items: parsed,
        ttl,
    })
}

/// The TTL attribute of `describe-time-to-live`'s `TimeToLiveDescription`
/// (or of a `TimeToLiveSpecification`), if TTL is on.
fn api_ttl(root: &Node) -> Result<Option<String>, TranslateError> {
    if let Some(d) = root.get("TimeToLiveDescription") {
        let status = d
            .get("TimeToLiveStatus")
            .and_then(Node::as_str)
            .unwrap_or("ENABLED");
        let on = matches!(status, "ENABLED" | "ENABLING");
        return Ok(match d.get("AttributeName") {
            Some(_) if on => {
                Some(str_member(d, "AttributeName", "TimeToLiveDescription")?.to_string())
            }
            _ => None,
        });
    }
    ttl_specification(root)
}

/// A table's id (`TableName`), checked as a Bigtable table id, and where
/// it stands.
fn table_name(node: &Node, what: &str) -> Result<(String, Pos), TranslateError> {
    let name = str_member(node, "TableName", what)?.to_string();
    let pos = node.get("TableName").map_or(node.pos, |n| n.pos);
    validate_table_id(&name).map_err(|e| {
        err(pos, format!("{} (Bigtable table ids are 1 to 50 characters from [-_.a-zA-Z0-9], not starting with - or .); rename the table", e.message()))
    })?;
    Ok((name, pos))
}

/// The `GlobalSecondaryIndexes` and `LocalSecondaryIndexes` of a table;
/// `keys` reads one index's partition and sort key names (the two formats
/// spell them differently).
fn secondary_indexes(
    node: &Node,
    keys: impl Fn(&Node) -> Result<(String, Option<String>), TranslateError>,
) -> Result<Vec<Gsi>, TranslateError> {
    let mut indexes = Vec::new();
    for (key, local) in [
        ("GlobalSecondaryIndexes", false),
        ("LocalSecondaryIndexes", true),
    ] {
        if let Some(g) = node.get(key) {
            let Some(list) = g.as_array() else {
                return Err(err(g.pos, format!("{key} must be an array")));
            };
            for ix in list {
                let name = str_member(ix, "IndexName", "an index")?.to_string();
                let (pk, sk) = keys(ix)?;
                let (projection, include) = projection(ix.get("Projection"));
                indexes.push(Gsi {
                    name,
                    pk,
                    sk,
                    projection,
                    include,
                    local,
                });
            }
        }
    }
    Ok(indexes)
}

/// The TTL attribute of a CloudFormation-style `TimeToLiveSpecification`
/// under `node`, if it is enabled.
fn ttl_specification(node: &Node) -> Result<Option<String>, TranslateError> {
    let Some(spec) = node.get("TimeToLiveSpecification") else {
        return Ok(None);
    };
    let enabled = !matches!(
        spec.get("Enabled").map(|n| &n.value),
        Some(Json::Bool(false))
    );
    let an = str_member(spec, "AttributeName", "TimeToLiveSpecification")?;
    Ok(enabled.then(|| an.to_string()))
}

/// Splits a sort key into its kind (leading letters) and the id after one
/// separator: `VideoComment#98765481` is (`VideoComment`, `98765481`).
fn split_kind(sk: &str) -> (&str, &str) {
    let end = sk
        .char_indices()
        .find(|(_, c)| !c.is_ascii_alphabetic())
        .map_or(sk.len(), |(i, _)| i);
    let (kind, rest) = sk.split_at(end);
    let rest = rest
        .strip_prefix(['#', '-', '_', ':', '|', '.', '/'])
        .unwrap_or(rest);
    (kind, rest)
}

fn is_counter_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    COUNTER_WORDS.iter().any(|w| l.contains(w))
}

/// The write time an attribute holds, if its name says so.
fn time_of(name: &str, v: &AValue) -> Option<i64> {
    let l = name.to_ascii_lowercase();
    if !TIME_WORDS.iter().any(|w| l.contains(w)) {
        return None;
    }
    let micros = match v {
        AValue::S(s) => {
            let (secs, nanos) = parse_iso_timestamp(s)?;
            secs.checked_mul(1_000_000)?
                .checked_add(i64::from(nanos / 1_000_000) * 1000)
        }
        AValue::N(_) => epoch_micros(v.int()?),
        _ => None,
    }?;
    // Bigtable timestamps start at 1970.
    (micros >= 0).then_some(micros)
}

/// Epoch seconds, milliseconds or microseconds (by digit count) as
/// microseconds truncated to milliseconds.
fn epoch_micros(n: i64) -> Option<i64> {
    let digits = n.unsigned_abs().to_string().len();
    let micros = match digits {
        9 | 10 => n.checked_mul(1_000_000)?,
        12 | 13 => n.checked_mul(1000)?,
        15 | 16 => n,
        _ => return None,
    };
    Some(micros - micros.rem_euclid(1000))
}

/// What each item contributes, decided before any cell is written.
struct ItemInfo {
    /// Timestamp from a write-time attribute.
    time: Option<i64>,
    /// That attribute's name.
    time_attr: Option<String>,
    /// Expiry from the TTL attribute, in microseconds.
    expires: Option<i64>,
}

/// Families being built, with their column plans.
struct Families {
    plans: BTreeMap<String, FamilyPlan>,
}

impl Families {
    fn ensure(&mut self, name: &str, gc_rule: Option<GcRule>, value_type: ValueType, why: &str) {
        self.plans
            .entry(name.to_string())
            .or_insert_with(|| FamilyPlan {
                name: name.to_string(),
                gc_rule,
                value_type,
                why: why.to_string(),
                columns: Vec::new(),
            });
    }

    fn column(&mut self, family: &str, qualifier: &str, source: &str, value: &str) {
        if let Some(f) = self.plans.get_mut(family)
            && !f.columns.iter().any(|c| c.qualifier == qualifier)
        {
            f.columns.push(ColumnPlan {
                qualifier: qualifier.to_string(),
                source: source.to_string(),
                value: value.to_string(),
            });
        }
    }
}

fn value_description(t: AType) -> &'static str {
    match t {
        AType::S => "UTF-8 text",
        AType::N => "the number as written",
        AType::B => "the raw bytes",
        AType::Bool => "true or false",
        AType::Null => "empty",
        AType::M | AType::L => "one compact JSON text (serialized cell)",
        AType::Ss | AType::Ns | AType::Bs => "a 0x00 byte per member",
    }
}

struct Builder {
    ttl_age: Option<Duration>,
    families: Families,
    rows: BTreeMap<Vec<u8>, Vec<CellPlan>>,
    /// (row, family, qualifier, timestamp) already written.
    taken: BTreeSet<(Vec<u8>, String, Vec<u8>, i64)>,
    bumped: usize,
    set_families: BTreeMap<String, String>,
    reserved: BTreeSet<String>,
}

impl Builder {
    fn item_rule(&self) -> Option<GcRule> {
        Some(match self.ttl_age {
            Some(age) => GcRule::Union(vec![GcRule::MaxAge(age), GcRule::MaxNumVersions(1)]),
            None => GcRule::MaxNumVersions(1),
        })
    }

    fn collection_rule(&self) -> Option<GcRule> {
        self.ttl_age.map(GcRule::MaxAge)
    }

    fn put(&mut self, row: &[u8], family: &str, qualifier: &[u8], mut ts: i64, value: CellValue) {
        // Two items may land on the same cell (one column, one time): move
        // the later one a millisecond back (forward, at 1970) so both stay.
        if matches!(value, CellValue::Bytes(_)) {
            let mut bumped = false;
            let step = if ts >= 1000 { -1000 } else { 1000 };
            while self
                .taken
                .contains(&(row.to_vec(), family.to_string(), qualifier.to_vec(), ts))
            {
                let Some(next) = ts.checked_add(step).filter(|t| *t >= 0) else {
                    break;
                };
                ts = next;
                bumped = true;
            }
            if bumped {
                self.bumped += 1;
            }
            self.taken
                .insert((row.to_vec(), family.to_string(), qualifier.to_vec(), ts));
        }
        self.rows.entry(row.to_vec()).or_default().push(CellPlan {
            family: family.to_string(),
            qualifier: qualifier.to_vec(),
            timestamp_micros: ts,
            value,
        });
    }

    /// A family for a set attribute, named after it.
    fn set_family(&mut self, attr: &str) -> String {
        if let Some(f) = self.set_families.get(attr) {
            return f.clone();
        }
        let mut name = family_name(attr, "set");
        while self.reserved.contains(&name) {
            name.push_str("_set");
        }
        self.reserved.insert(name.clone());
        self.set_families.insert(attr.to_string(), name.clone());
        let rule = self.item_rule();
        self.families.ensure(
            &name,
            rule,
            ValueType::Bytes,
            "a set attribute: one column per member (qualifiers sort the members), as the migration guide suggests",
        );
        name
    }

    /// Writes one attribute as a column of `family` (sets go to their own
    /// family; counters to the aggregate family).
    fn attribute(
        &mut self,
        row: &[u8],
        family: &str,
        name: &str,
        v: &AValue,
        ts: i64,
        counters: &BTreeSet<String>,
    ) {
        match v {
            AValue::Ss(_) | AValue::Ns(_) | AValue::Bs(_) => {
                let fam = self.set_family(name);
                let members: Vec<Vec<u8>> = match v {
                    AValue::Ss(m) | AValue::Ns(m) => {
                        m.iter().map(|s| s.trim().as_bytes().to_vec()).collect()
                    }
                    AValue::Bs(m) => m.clone(),
                    _ => Vec::new(),
                };
                self.families.column(
                    &fam,
                    &format!("<member of {name}>"),
                    &format!("{name} {}", v.atype().name()),
                    value_description(v.atype()),
                );
                for m in members {
                    self.put(row, &fam, &m, ts, CellValue::Bytes(vec![0]));
                }
            }
            _ if counters.contains(name) => {
                if let Some(n) = v.int() {
                    self.ensure_counters();
                    self.families.column(
                        COUNTERS,
                        name,
                        &format!("{name} N"),
                        "an int64 sum (AddToCell) at timestamp 0",
                    );
                    self.put(row, COUNTERS, name.as_bytes(), 0, CellValue::Add(n));
                }
            }
            _ => {
                self.families.column(
                    family,
                    name,
                    &format!("{name} {}", v.atype().name()),
                    value_description(v.atype()),
                );
                self.put(row, family, name.as_bytes(), ts, CellValue::Bytes(v.cell()));
            }
        }
    }

    fn ensure_counters(&mut self) {
        self.families.ensure(
            COUNTERS,
            None,
            ValueType::Aggregate(Aggregator::Sum),
            "counters as aggregate cells: increments add up in place, with no read-modify-write and no separate item per counter",
        );
    }

    fn kind_family(&mut self, kind: &str, rule: Option<GcRule>, why: &str) -> String {
        let mut name = family_name(kind, "item");
        if name == COUNTERS {
            name.push_str("_item");
        }
        self.reserved.insert(name.clone());
        self.families.ensure(&name, rule, ValueType::Bytes, why);
        name
    }
}

fn key_value(v: &AValue, integral: bool) -> KeyValue {
    match v {
        AValue::S(s) => KeyValue::String(s.clone()),
        AValue::B(b) => KeyValue::Bytes(b.clone()),
        AValue::N(n) => match (integral, v.int()) {
            (true, Some(i)) => KeyValue::Long(i),
            _ => KeyValue::Number(Decimal::parse(n).unwrap_or_else(|| {
                Decimal::parse("0").unwrap_or_else(|| unreachable!("0 is a number"))
            })),
        },
        other => KeyValue::String(other.text()),
    }
}

fn key_encoding_text(t: AType, integral: bool, last: bool, text: bool) -> String {
    match (t, integral) {
        (AType::N, true) if text => {
            "zero-padded 19-digit decimal (every sample value is a whole number)".into()
        }
        (AType::N, true) => "8 bytes big-endian, sign bit flipped".into(),
        (AType::N, false) => "sortable decimal (sign digit, biased exponent, digits)".into(),
        (AType::B, _) if last => "the bytes".into(),
        (_, _) if last => "the value as it is".into(),
        (_, _) if text => "the value, bytes up to `$` written as $XX (so `#` ends it)".into(),
        _ => "the value, NUL as 00 FF, ended by 00 01".into(),
    }
}

fn segment(name: &str, t: AType, integral: bool) -> Segment {
    let kind = match (t, integral) {
        (AType::N, true) => SegmentKind::Int {
            width: Some(19),
            reversed: false,
            per: Per::Entity,
        },
        (AType::B, _) => SegmentKind::Hex {
            width: 16,
            per: Per::Entity,
        },
        // An opaque id as far as the advisor is concerned (the attribute's
        // name still tells it about personal data).
        _ => SegmentKind::Hex {
            width: 8,
            per: Per::Entity,
        },
    };
    Segment {
        name: segment_name(name),
        kind,
    }
}

/// What the index plans need to know about a translated table.
struct IndexContext<'a> {
    t: &'a DTable,
    pattern: Pattern,
    /// Fields of the row key.
    key_fields: usize,
    /// The family of the item's attributes, with one row per item.
    main_family: Option<&'a str>,
    counters: &'a BTreeSet<String>,
    /// Set attributes and their families.
    sets: &'a BTreeMap<String, String>,
    /// Attributes that became the cells' timestamp and nothing else.
    time_attrs: &'a BTreeSet<String>,
    live: &'a [(&'a Item, &'a ItemInfo)],
    key_encoding: super::KeyEncoding,
}

impl IndexContext<'_> {
    /// How an attribute's cell reads: whole numbers when every sample
    /// value is one (and there is at least one), text otherwise.
    fn kind(&self, name: &str) -> Kind {
        if self.counters.contains(name) {
            return Kind::Counter;
        }
        let ty = self.t.declared.get(name).copied().or_else(|| {
            self.live
                .iter()
                .find_map(|(it, _)| it.get(name).map(AValue::atype))
        });
        match ty {
            Some(AType::N) => {
                let values: Vec<&AValue> = self
                    .live
                    .iter()
                    .filter_map(|(it, _)| it.get(name))
                    .collect();
                if !values.is_empty() && values.iter().all(|v| v.int().is_some()) {
                    Kind::Integer
                } else {
                    Kind::Decimal
                }
            }
            Some(AType::B) => Kind::Bytes,
            _ => Kind::Text,
        }
    }

    fn place(&self, name: &str) -> Place {
        let t = self.t;
        if name == t.pk.name {
            return Place::KeyField {
                index: 0,
                count: self.key_fields,
            };
        }
        if t.sk.as_ref().is_some_and(|s| s.name == name) && self.key_fields > 1 {
            return Place::KeyField {
                index: 1,
                count: self.key_fields,
            };
        }
        if t.ttl.as_deref() == Some(name) {
            return Place::Unreadable(format!(
                "{name} is the TTL attribute, which became a GC rule and is not stored"
            ));
        }
        if self.time_attrs.contains(name) {
            return Place::Unreadable(format!("{name} became the timestamp of the item's cells"));
        }
        if self.sets.contains_key(name) {
            return Place::Unreadable(format!(
                "{name} is a set, kept as a family of its own with one column per member"
            ));
        }
        if self.counters.contains(name) {
            return Place::Column {
                family: COUNTERS.to_string(),
                qualifier: name.to_string(),
            };
        }
        match self.main_family {
            Some(f) => Place::Column {
                family: f.to_string(),
                qualifier: name.to_string(),
            },
            None => Place::Unreadable(format!("{name} is not a column of its own here")),
        }
    }

    fn field(&self, name: &str) -> Field {
        Field {
            name: name.to_string(),
            kind: self.kind(name),
            place: self.place(name),
        }
    }

    fn plan(&self, ix: &Gsi) -> IndexPlan {
        let t = self.t;
        let pk_name = t.pk.name.as_str();
        let sk_name = t.sk.as_ref().map(|s| s.name.as_str());
        let keys: Vec<&str> = std::iter::once(ix.pk.as_str())
            .chain(ix.sk.as_deref())
            .collect();
        let is_key = |a: &str| keys.contains(&a) || a == pk_name || Some(a) == sk_name;
        let values: Vec<Field> = match ix.projection.as_str() {
            "KEYS_ONLY" => Vec::new(),
            "ALL" => {
                let mut all: BTreeSet<&str> = t.declared.keys().map(String::as_str).collect();
                for (it, _) in self.live {
                    all.extend(it.attrs.iter().map(|(n, _, _)| n.as_str()));
                }
                all.into_iter()
                    .filter(|a| !is_key(a) && t.ttl.as_deref() != Some(*a))
                    .map(|a| self.field(a))
                    .collect()
            }
            _ => ix
                .include
                .iter()
                .filter(|a| !is_key(a))
                .map(|a| self.field(a))
                .collect(),
        };
        let wide = matches!(
            self.pattern,
            Pattern::DynamoSingleTable | Pattern::DynamoAdjacencyList
        );
        let inverted = Some(ix.pk.as_str()) == sk_name && ix.sk.as_deref() == Some(pk_name);
        let holds = match ix.projection.as_str() {
            "ALL" => "copies of the item's attributes".to_string(),
            "KEYS_ONLY" => "only the table's key (an empty marker cell)".to_string(),
            _ => format!("the attributes it projects ({})", ix.include.join(", ")),
        };
        let (table_key, holds, extra) = if ix.local {
            let by = ix.sk.as_deref().unwrap_or(&ix.pk);
            (
                format!("{pk_name}#{by}#<sort key>"),
                holds,
                wide.then(|| "In a wide row, qualifiers already sort within their family, so when the local index's sort key can name the columns no index is needed.".to_string()),
            )
        } else if inverted {
            (
                format!("{}#{pk_name}", ix.pk),
                "the reverse relation (an empty marker cell per pair)".to_string(),
                Some("The reverse relation can also be columns in the related entity's row, written with the same care.".to_string()),
            )
        } else {
            (
                format!("{}#<{} row key>", keys.join("#"), t.name),
                holds,
                Some("A lookup that is rarely needed can instead be a full scan with a value filter, and a scan in the order of an attribute needs no index at all when the row key starts with it.".to_string()),
            )
        };
        index::plan(&Spec {
            table: &t.name,
            name: &ix.name,
            key_text: keys.join(", "),
            projection: ix.projection.clone(),
            fields: keys.iter().map(|k| self.field(k)).collect(),
            values,
            key_encoding: self.key_encoding,
            no_view: wide.then(|| format!(
                "a view has one row per row of the table, and here a row holds a whole partition of {pk_name} with its items as columns, so it cannot index the items one by one (translated with one row per item, the composite layout, they can have a view)"
            )),
            freshness: if ix.local {
                "; unlike a local secondary index, it offers no strongly consistent reads"
            } else {
                ", as DynamoDB updates a global secondary index"
            },
            table_key,
            holds,
            extra,
        })
    }
}

fn translate_table(t: &DTable, options: &Options) -> Result<TableTranslation, TranslateError> {
    let now = options.now_ms();
    let mut notes = Vec::new();
    let items = unique_items(t)?;
    let infos = item_infos(t, &items);
    let (ttl_age, expired) = ttl_age(t, &infos, now);
    ttl_notes(t, ttl_age, expired, &mut notes);
    let sample = Sample {
        t,
        pk_name: t.pk.name.as_str(),
        sk_name: t.sk.as_ref().map(|s| s.name.as_str()),
        now,
        live: items
            .iter()
            .copied()
            .zip(infos.iter())
            .filter(|(_, info)| info.expires.is_none_or(|e| e > now))
            .collect(),
    };
    let counter_attrs = sample.counter_attrs();
    let pattern = sample.pattern(options.dynamo_layout);
    let mut layout = Layout::new(&sample, ttl_age, options);
    match pattern {
        Pattern::DynamoSimple | Pattern::DynamoComposite => layout.one_row_per_item(
            &sample,
            pattern == Pattern::DynamoComposite,
            &counter_attrs,
            &mut notes,
        )?,
        Pattern::DynamoSingleTable | Pattern::DynamoAdjacencyList => layout.one_row_per_partition(
            &sample,
            pattern == Pattern::DynamoAdjacencyList,
            &counter_attrs,
            &mut notes,
        )?,
        Pattern::OracleTable => unreachable!("a DynamoDB table is never an Oracle table"),
    }
    sample_notes(&sample, &layout, &counter_attrs, &mut notes);
    layout.finish(&sample, pattern, &counter_attrs, options, notes)
}

/// The sample items with their keys present and their types as declared,
/// in order; a later item with the key of an earlier one is dropped.
fn unique_items(t: &DTable) -> Result<Vec<&Item>, TranslateError> {
    let pk_name = t.pk.name.as_str();
    let sk_name = t.sk.as_ref().map(|s| s.name.as_str());
    let mut items: Vec<&Item> = Vec::new();
    let mut seen_keys: BTreeSet<(Vec<u8>, Vec<u8>)> = BTreeSet::new();
    for it in &t.items {
        for (name, v, vpos) in &it.attrs {
            if let Some(dt) = t.declared.get(name)
                && *dt != v.atype()
            {
                return Err(err(
                    *vpos,
                    format!(
                        "{name} is declared as {} but this item gives {}",
                        dt.name(),
                        v.atype().name()
                    ),
                ));
            }
        }
        let Some(pk) = it.get(pk_name) else {
            return Err(err(
                it.pos,
                format!("the item has no partition key {pk_name}"),
            ));
        };
        let sk = match sk_name {
            Some(s) => match it.get(s) {
                Some(v) => v.cell(),
                None => return Err(err(it.pos, format!("the item has no sort key {s}"))),
            },
            None => Vec::new(),
        };
        if pk.cell().is_empty() {
            return Err(err(it.pos, "the partition key must not be empty"));
        }
        if seen_keys.insert((pk.cell(), sk)) {
            items.push(it);
        }
    }
    Ok(items)
}

/// Each item's write time (from the attribute named most like one) and
/// expiry (from the TTL attribute).
fn item_infos(t: &DTable, items: &[&Item]) -> Vec<ItemInfo> {
    let pk_name = t.pk.name.as_str();
    let sk_name = t.sk.as_ref().map(|s| s.name.as_str());
    let mut infos: Vec<ItemInfo> = Vec::new();
    for it in items {
        let mut best: Option<(usize, String, i64)> = None;
        for (name, v, _) in &it.attrs {
            if Some(name) == t.ttl.as_ref() || name == pk_name || Some(name.as_str()) == sk_name {
                continue;
            }
            if let Some(ts) = time_of(name, v) {
                let l = name.to_ascii_lowercase();
                let rank = TIME_WORDS
                    .iter()
                    .position(|w| l.contains(w))
                    .unwrap_or(usize::MAX);
                if best.as_ref().is_none_or(|(r, _, _)| rank < *r) {
                    best = Some((rank, name.clone(), ts));
                }
            }
        }
        let expires = t
            .ttl
            .as_ref()
            .and_then(|a| it.get(a))
            .and_then(AValue::int)
            .and_then(|s| s.checked_mul(1_000_000));
        infos.push(ItemInfo {
            time: best.as_ref().map(|b| b.2),
            time_attr: best.map(|b| b.1),
            expires,
        });
    }
    infos
}

/// The TTL as a family max-age: the longest lifetime in the sample, in
/// whole hours; and how many sample items had already expired.
fn ttl_age(t: &DTable, infos: &[ItemInfo], now: i64) -> (Option<Duration>, usize) {
    let mut ttl_age = None;
    let mut expired = 0usize;
    if t.ttl.is_some() {
        let mut longest: i64 = 0;
        for info in infos {
            if let Some(exp) = info.expires {
                if exp <= now {
                    expired += 1;
                    continue;
                }
                longest = longest.max(exp.saturating_sub(info.time.unwrap_or(now)));
            }
        }
        if longest > 0 {
            let hours = longest.saturating_add(3_599_999_999) / 3_600_000_000;
            ttl_age = Some(Duration::from_secs(
                u64::try_from(hours).unwrap_or(1).max(1) * 3600,
            ));
        }
    }
    (ttl_age, expired)
}

/// What the TTL became, and the expired items left out.
fn ttl_notes(t: &DTable, ttl_age: Option<Duration>, expired: usize, notes: &mut Vec<Note>) {
    let Some(attr) = &t.ttl else {
        return;
    };
    let age_text = ttl_age.map_or_else(
        || "no max-age could be derived (no sample item carries a future expiry)".to_string(),
        |a| {
            format!(
                "a max-age of {} (the longest lifetime among the sample items)",
                super::export::human_duration(a)
            )
        },
    );
    notes.push(Note::warning(
        "ttl",
        format!(
            "The TTL attribute {attr} became {age_text} on the item families, and is not stored. DynamoDB expires each item at its own time; Bigtable expires cells by family age, and lazily: expired cells stay readable until a compaction removes them (hours to days later), so reads that must not see them need a timestamp-range filter"
        ),
    ));
    if expired > 0 {
        notes.push(Note::info(
            "ttl",
            format!("{expired} sample item(s) had already expired at the translation time and were left out"),
        ));
    }
}

/// A table's live sample items and the names of its key attributes: what
/// every layout decision reads.
struct Sample<'a> {
    t: &'a DTable,
    pk_name: &'a str,
    sk_name: Option<&'a str>,
    now: i64,
    /// Items not expired at the translation time, with their times.
    live: Vec<(&'a Item, &'a ItemInfo)>,
}

impl Sample<'_> {
    /// Whether an attribute is a key or the TTL (never a column).
    fn excluded(&self, name: &str) -> bool {
        name == self.pk_name || Some(name) == self.sk_name || Some(name) == self.t.ttl.as_deref()
    }

    /// Whether every value of a numeric attribute is a whole number.
    fn integral(&self, attr: &str) -> bool {
        self.live.iter().all(|(it, _)| {
            it.get(attr)
                .is_none_or(|v| v.int().is_some() || !matches!(v, AValue::N(_)))
        })
    }

    fn pk_integral(&self) -> bool {
        self.t.pk.ty == AType::N && self.integral(self.pk_name)
    }

    fn sk_integral(&self) -> bool {
        self.t
            .sk
            .as_ref()
            .is_some_and(|s| s.ty == AType::N && self.integral(&s.name))
    }

    /// An item's sort key as text (empty without one).
    fn sk_text(&self, it: &Item) -> String {
        self.sk_name
            .and_then(|s| it.get(s))
            .map(AValue::text)
            .unwrap_or_default()
    }

    /// Whether an item is its partition's own (sort key = partition key).
    fn self_item(&self, it: &Item) -> bool {
        it.get(self.pk_name).map(AValue::cell)
            == self.sk_name.and_then(|s| it.get(s)).map(AValue::cell)
    }

    /// The attributes an item holds besides its keys and write time.
    fn shape(&self, it: &Item, info: &ItemInfo) -> BTreeSet<String> {
        it.attrs
            .iter()
            .map(|(n, _, _)| n.clone())
            .filter(|n| !self.excluded(n) && Some(n) != info.time_attr.as_ref())
            .collect()
    }

    /// Counters: whole-number attributes named like counts, whole in every
    /// item.
    fn counter_attrs(&self) -> BTreeSet<String> {
        let mut counter_attrs: BTreeSet<String> = BTreeSet::new();
        for (it, info) in &self.live {
            for (name, v, _) in &it.attrs {
                if self.excluded(name) || Some(name) == info.time_attr.as_ref() {
                    continue;
                }
                if matches!(v, AValue::N(_)) && is_counter_name(name) {
                    counter_attrs.insert(name.clone());
                }
            }
        }
        counter_attrs.retain(|name| {
            self.live
                .iter()
                .all(|(it, _)| it.get(name).is_none_or(|v| v.int().is_some()))
        });
        counter_attrs
    }

    /// The layout: one row per item, or one wide row per partition
    /// (adjacency list when an item's sort key repeats its partition key,
    /// single table when a partition mixes kinds of items).
    fn pattern(&self, layout: DynamoLayout) -> Pattern {
        let adjacency =
            self.sk_name.is_some() && self.live.iter().any(|(it, _)| self.self_item(it));
        let mut mixed = false;
        if self.sk_name.is_some() {
            let mut by_partition: BTreeMap<Vec<u8>, Vec<(String, BTreeSet<String>)>> =
                BTreeMap::new();
            for (it, info) in &self.live {
                let pk = it.get(self.pk_name).map(AValue::cell).unwrap_or_default();
                let kind = split_kind(&self.sk_text(it)).0.to_string();
                by_partition
                    .entry(pk)
                    .or_default()
                    .push((kind, self.shape(it, info)));
            }
            mixed = by_partition.values().any(|v| {
                v.iter()
                    .any(|(k1, s1)| v.iter().any(|(k2, s2)| k1 != k2 && s1 != s2))
            });
        }
        match (self.sk_name.is_some(), layout) {
            (false, _) => Pattern::DynamoSimple,
            (true, DynamoLayout::Composite) => Pattern::DynamoComposite,
            (true, DynamoLayout::WideRows) if adjacency => Pattern::DynamoAdjacencyList,
            (true, DynamoLayout::WideRows) => Pattern::DynamoSingleTable,
            (true, DynamoLayout::Auto) if adjacency => Pattern::DynamoAdjacencyList,
            (true, DynamoLayout::Auto) if mixed => Pattern::DynamoSingleTable,
            (true, DynamoLayout::Auto) => Pattern::DynamoComposite,
        }
    }

    /// A kind prefix every partition key shares (`Invoice-`), which an
    /// adjacency list's row key can leave out.
    fn shared_kind_prefix(&self) -> Option<(String, char)> {
        let mut common: Option<(String, char)> = None;
        for (it, _) in &self.live {
            let pk = it.get(self.pk_name).map(AValue::text).unwrap_or_default();
            let (kind, rest) = split_kind(&pk);
            let sep = pk[kind.len()..].chars().next();
            match (sep, rest.is_empty(), kind.is_empty()) {
                (Some(c), false, false) if rest.len() + 1 + kind.len() == pk.len() => {
                    let this = (kind.to_string(), c);
                    if common.as_ref().is_some_and(|x| *x != this) {
                        return None;
                    }
                    common = Some(this);
                }
                _ => return None,
            }
        }
        common
    }
}

/// The table being laid out: cells, families, the row key and what the
/// indexes need to know.
struct Layout {
    b: Builder,
    text_keys: bool,
    key_encoding: super::KeyEncoding,
    pk_integral: bool,
    sk_integral: bool,
    row_key: Vec<KeyPart>,
    segments: Vec<Segment>,
    /// Attributes the indexes use.
    indexed: BTreeSet<String>,
    /// The family of one row per item (none in the wide layouts).
    main_family: Option<String>,
    /// Write-time attributes kept as columns because an index uses them.
    kept_times: BTreeSet<String>,
}

impl Layout {
    fn new(s: &Sample<'_>, ttl_age: Option<Duration>, options: &Options) -> Layout {
        let t = s.t;
        let pk_integral = s.pk_integral();
        Layout {
            b: Builder {
                ttl_age,
                families: Families {
                    plans: BTreeMap::new(),
                },
                rows: BTreeMap::new(),
                taken: BTreeSet::new(),
                bumped: 0,
                set_families: BTreeMap::new(),
                reserved: BTreeSet::new(),
            },
            text_keys: options.key_encoding == super::KeyEncoding::Text,
            key_encoding: options.key_encoding,
            pk_integral,
            sk_integral: s.sk_integral(),
            row_key: vec![KeyPart {
                name: t.pk.name.clone(),
                source_type: t.pk.ty.name().to_string(),
                encoding: String::new(),
            }],
            segments: vec![segment(s.pk_name, t.pk.ty, pk_integral)],
            indexed: t
                .indexes
                .iter()
                .flat_map(|ix| {
                    std::iter::once(ix.pk.clone())
                        .chain(ix.sk.clone())
                        .chain(ix.include.iter().cloned())
                })
                .collect(),
            main_family: None,
            kept_times: BTreeSet::new(),
        }
    }

    /// One row per item, keyed by the partition key (and the sort key:
    /// composite), its attributes in one family.
    fn one_row_per_item(
        &mut self,
        s: &Sample<'_>,
        composite: bool,
        counter_attrs: &BTreeSet<String>,
        notes: &mut Vec<Note>,
    ) -> Result<(), TranslateError> {
        let t = s.t;
        let (pk_name, sk_name) = (s.pk_name, s.sk_name);
        let b = &mut self.b;
        let main = if t.facets.len() == 1 {
            family_name(&t.facets[0], "item")
        } else {
            "item".to_string()
        };
        let main = if main == COUNTERS {
            "item".to_string()
        } else {
            main
        };
        b.reserved.insert(main.clone());
        self.main_family = Some(main.clone());
        let rule = b.item_rule();
        b.families.ensure(
            &main,
            rule,
            ValueType::Bytes,
            "the item's attributes, read together (one row per item)",
        );
        self.row_key[0].encoding =
            key_encoding_text(t.pk.ty, self.pk_integral, !composite, self.text_keys);
        if let Some(sk) = &t.sk {
            self.row_key.push(KeyPart {
                name: sk.name.clone(),
                source_type: sk.ty.name().to_string(),
                encoding: key_encoding_text(sk.ty, self.sk_integral, true, self.text_keys),
            });
            self.segments
                .push(segment(&sk.name, sk.ty, self.sk_integral));
        }
        for (it, info) in &s.live {
            let mut kv = vec![key_value(
                it.get(pk_name).unwrap_or(&AValue::Null),
                self.pk_integral,
            )];
            if let Some(sk) = sk_name {
                kv.push(key_value(
                    it.get(sk).unwrap_or(&AValue::Null),
                    self.sk_integral,
                ));
            }
            let key = keycodec::encode_key(&kv, self.key_encoding).map_err(|m| err(it.pos, m))?;
            let ts = info.time.unwrap_or(s.now);
            let before = b.rows.get(&key).map_or(0, Vec::len);
            for (name, v, _) in &it.attrs {
                if s.excluded(name) {
                    continue;
                }
                // The write time is the cells' timestamp; it stays a
                // column too when an index uses it (a view reads
                // values, not timestamps).
                if Some(name) == info.time_attr.as_ref() {
                    if !self.indexed.contains(name.as_str()) {
                        continue;
                    }
                    self.kept_times.insert(name.clone());
                }
                b.attribute(&key, &main, name, v, ts, counter_attrs);
            }
            if b.rows.get(&key).map_or(0, Vec::len) == before {
                b.families.column(
                    &main,
                    "",
                    "(marker)",
                    "empty: the item has only key attributes",
                );
                b.put(&key, &main, b"", ts, CellValue::Bytes(Vec::new()));
            }
        }
        notes.push(Note::info(
            "layout",
            if composite {
                format!(
                    "Every item has the same kind of attributes, so each item is one row keyed {pk_name}#{}: the sort key's order is the row order, and a prefix scan on {pk_name} reads one partition",
                    sk_name.unwrap_or_default()
                )
            } else {
                format!("One row per item, keyed by {pk_name}")
            },
        ));
        Ok(())
    }

    /// One wide row per partition: the partition's own item fills a family,
    /// related items (adjacency) become columns named by their id, child
    /// items (single table) versions of one column, counter items cells
    /// of the counters family.
    fn one_row_per_partition(
        &mut self,
        s: &Sample<'_>,
        adjacency: bool,
        counter_attrs: &BTreeSet<String>,
        notes: &mut Vec<Note>,
    ) -> Result<(), TranslateError> {
        let t = s.t;
        self.row_key[0].encoding =
            key_encoding_text(t.pk.ty, self.pk_integral, true, self.text_keys);
        // Drop a kind prefix every partition key shares (`Invoice-`).
        let strip = if adjacency && t.pk.ty == AType::S {
            s.shared_kind_prefix()
        } else {
            None
        };
        if let Some((kind, sep)) = &strip {
            self.row_key[0].encoding =
                format!("the value without the prefix {kind}{sep} that every partition key shares");
            notes.push(Note::info(
                "row key",
                format!("Every partition key starts with {kind}{sep}, which the row key leaves out: the table holds one kind of entity"),
            ));
        }
        let kinds = Kinds::of(s);
        let partition = Partition {
            s,
            kinds: &kinds,
            adjacency,
            counter_attrs,
        };
        let mut placed = Placed::default();
        let mut sorted = s.live.clone();
        sorted.sort_by(|a, b2| {
            let ka = (a.0.get(s.pk_name).map(AValue::cell), s.sk_text(a.0));
            let kb = (b2.0.get(s.pk_name).map(AValue::cell), s.sk_text(b2.0));
            ka.cmp(&kb)
        });
        for (it, info) in &sorted {
            let pk_val = it.get(s.pk_name).unwrap_or(&AValue::Null);
            let kv = match (&strip, pk_val) {
                (Some((kind, _)), AValue::S(text)) => {
                    KeyValue::String(text[kind.len() + 1..].to_string())
                }
                _ => key_value(pk_val, self.pk_integral),
            };
            let key = keycodec::encode_key(&[kv], self.key_encoding).map_err(|m| err(it.pos, m))?;
            self.place_item(&partition, &key, it, info, &mut placed);
        }
        notes.push(Note::info(
            "layout",
            if adjacency {
                format!(
                    "Adjacency list: each partition of {} is one row. The entity's own item fills its family; every related item becomes a column named by the id in its sort key, so one read returns the entity with all its relations and one delete removes them together",
                    s.pk_name
                )
            } else {
                format!(
                    "Single-table design: each partition of {} is one wide row holding every item of the partition, so one read (and one delete) covers the entity with its children. Bigtable rows may grow to 256 MiB, far past DynamoDB's 400 KiB items",
                    s.pk_name
                )
            },
        ));
        if !adjacency && kinds.collection.values().any(|c| *c) {
            notes.push(Note::info(
                "gc",
                "Child items are versions of one column: keep only the newest N of them with a maxversions=N GC rule if the list may grow without bound",
            ));
        }
        if placed.synthetic > 0 {
            notes.push(Note::warning(
                "timestamps",
                format!("{} child item(s) had no write time: they were given the translation time minus one millisecond per item, in sort-key order (the first is the newest)", placed.synthetic),
            ));
        }
        if placed.counter_items > 0 {
            notes.push(Note::info(
                "counters",
                format!("{} counter item(s) became cells of the aggregate family {COUNTERS}: increments no longer rewrite an item", placed.counter_items),
            ));
        }
        Ok(())
    }

    /// Puts one item of a wide-row layout into its partition's row `key`.
    fn place_item(
        &mut self,
        p: &Partition<'_>,
        key: &[u8],
        it: &Item,
        info: &ItemInfo,
        placed: &mut Placed,
    ) {
        let (s, kinds, adjacency, counter_attrs) = (p.s, p.kinds, p.adjacency, p.counter_attrs);
        let b = &mut self.b;
        let now = s.now;
        let skt = s.sk_text(it);
        let self_item = s.self_item(it);
        let (kind, suffix) = split_kind(&skt);
        let attrs: Vec<&(String, AValue, Pos)> = it
            .attrs
            .iter()
            .filter(|(n, _, _)| !s.excluded(n) && Some(n) != info.time_attr.as_ref())
            .collect();
        // A counter item: one whole-number attribute named like a count.
        if let [(name, v, _)] = attrs.as_slice()
            && let Some(n) = v.int()
            && (is_counter_name(name) || is_counter_name(kind))
            && !self_item
        {
            let q = if GENERIC_COUNTER_NAMES.contains(&name.to_ascii_lowercase().as_str())
                && !skt.is_empty()
            {
                skt.clone()
            } else {
                name.clone()
            };
            b.ensure_counters();
            b.families.column(
                COUNTERS,
                &q,
                &format!("{name} N of the {skt} item"),
                "an int64 sum (AddToCell) at timestamp 0",
            );
            b.put(key, COUNTERS, q.as_bytes(), 0, CellValue::Add(n));
            placed.counter_items += 1;
            return;
        }
        let collection = kinds.collection.get(kind).copied().unwrap_or(false);
        let ts_item = info.time;
        let kind_name = if kind.is_empty() { "item" } else { kind };
        if self_item || suffix.is_empty() {
            let rule = if collection && !adjacency {
                b.collection_rule()
            } else {
                b.item_rule()
            };
            let fam = b.kind_family(
                kind_name,
                rule,
                if self_item {
                    "the entity's own attributes (the item whose sort key equals its partition key)"
                } else {
                    "the attributes of one kind of item, read with the rest of the partition's row"
                },
            );
            let ts = ts_item.unwrap_or(now);
            let before = b.rows.get(key).map_or(0, Vec::len);
            for (name, v, _) in &attrs {
                b.attribute(key, &fam, name, v, ts, counter_attrs);
            }
            if b.rows.get(key).map_or(0, Vec::len) == before {
                b.families.column(
                    &fam,
                    &skt,
                    "(marker)",
                    "empty: the item has only key attributes",
                );
                b.put(key, &fam, skt.as_bytes(), ts, CellValue::Bytes(Vec::new()));
            }
            return;
        }
        // A related item (adjacency) or a child item (single table).
        let value = match attrs.as_slice() {
            [(_, v, _)] => v.cell(),
            many => {
                let mut text = String::from("{");
                for (i, (n, v, _)) in many.iter().enumerate() {
                    if i > 0 {
                        text.push(',');
                    }
                    json::write_string(n, &mut text);
                    text.push(':');
                    v.to_json(&mut text);
                }
                text.push('}');
                text.into_bytes()
            }
        };
        let value_text = match attrs.as_slice() {
            [(n, v, _)] => format!("{n}: {}", value_description(v.atype())),
            _ => "the item's attributes as one JSON object".to_string(),
        };
        if adjacency {
            let rule = b.item_rule();
            let fam = b.kind_family(
                kind_name,
                rule,
                "related items, one column each, named by the id in their sort key",
            );
            b.families.column(
                &fam,
                &format!("<{kind_name} id>"),
                &format!("items whose sort key is {kind}<sep><id>"),
                &value_text,
            );
            b.put(
                key,
                &fam,
                suffix.as_bytes(),
                ts_item.unwrap_or(now),
                CellValue::Bytes(value),
            );
            return;
        }
        let rule = b.collection_rule();
        let fam = b.kind_family(
            kind_name,
            rule,
            "child items as versions of one column: Bigtable's timestamps order them newest first, so no reverse-timestamp sort key is needed",
        );
        let q = match kinds.attrs.get(kind) {
            Some(Some(set)) if set.len() == 1 => {
                set.iter().next().cloned().unwrap_or_else(|| "item".into())
            }
            _ => "item".to_string(),
        };
        let ts = match ts_item {
            Some(ts) => ts,
            None => match suffix.parse::<i64>().ok().and_then(epoch_micros) {
                Some(ts) => ts,
                None => {
                    placed.synthetic += 1;
                    let r = placed.rank.entry((key.to_vec(), fam.clone())).or_insert(0);
                    let ts = now.saturating_sub(r.saturating_mul(1000)).max(0);
                    *r += 1;
                    ts
                }
            },
        };
        b.families.column(
            &fam,
            &q,
            &format!("items whose sort key is {kind}<sep><id>"),
            &format!("{value_text}; one version per item"),
        );
        b.put(key, &fam, q.as_bytes(), ts, CellValue::Bytes(value));
    }

    /// The indexes, the rows and the families: the finished translation.
    fn finish(
        mut self,
        s: &Sample<'_>,
        pattern: Pattern,
        counter_attrs: &BTreeSet<String>,
        options: &Options,
        mut notes: Vec<Note>,
    ) -> Result<TableTranslation, TranslateError> {
        let t = s.t;
        if !self.kept_times.is_empty() {
            notes.push(Note::info(
                "timestamps",
                format!(
                    "{} is the timestamp of the item's cells and stays a column as well, because an index uses it (a view reads values, not timestamps)",
                    self.kept_times.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        let time_attrs: BTreeSet<String> = s
            .live
            .iter()
            .filter_map(|(_, i)| i.time_attr.clone())
            .filter(|a| !self.kept_times.contains(a))
            .collect();
        let ix_ctx = IndexContext {
            t,
            pattern,
            key_fields: self.row_key.len(),
            main_family: self.main_family.as_deref(),
            counters: counter_attrs,
            sets: &self.b.set_families,
            time_attrs: &time_attrs,
            live: &s.live,
            key_encoding: options.key_encoding,
        };
        let index_plans: Vec<IndexPlan> = t.indexes.iter().map(|ix| ix_ctx.plan(ix)).collect();
        let rows: Vec<RowPlan> = std::mem::take(&mut self.b.rows)
            .into_iter()
            .map(|(key, cells)| RowPlan { key, cells })
            .collect();
        for r in &rows {
            if r.key.len() > tabletop_store::MAX_ROW_KEY_BYTES {
                return Err(err(
                    t.pos,
                    format!(
                        "a row key of {} is {} bytes; Bigtable's limit is 4 KiB",
                        t.name,
                        r.key.len()
                    ),
                ));
            }
        }
        let families = std::mem::take(&mut self.b.families.plans)
            .into_values()
            .collect();
        Ok(TableTranslation {
            id: t.name.clone(),
            source_name: t.name.clone(),
            pattern,
            row_key: self.row_key,
            key_encoding: options.key_encoding,
            families,
            splits: Vec::new(),
            rows,
            indexes: index_plans,
            notes,
            key_template: Some(KeyTemplate {
                delimiter: if self.text_keys {
                    "#".into()
                } else {
                    String::new()
                },
                segments: self.segments,
            }),
            findings: Vec::new(),
        })
    }
}

/// Per kind of item (the sort key's prefix): whether its items are
/// collections (an id in the sort key), and the one set of attributes its
/// items share, if they do.
struct Kinds {
    collection: BTreeMap<String, bool>,
    attrs: BTreeMap<String, Option<BTreeSet<String>>>,
}

impl Kinds {
    fn of(s: &Sample<'_>) -> Kinds {
        let mut collection: BTreeMap<String, bool> = BTreeMap::new();
        let mut attrs: BTreeMap<String, Option<BTreeSet<String>>> = BTreeMap::new();
        for (it, info) in &s.live {
            let skt = s.sk_text(it);
            let (kind, suffix) = split_kind(&skt);
            let coll = !suffix.is_empty() && !s.self_item(it);
            *collection.entry(kind.to_string()).or_insert(false) |= coll;
            let shape = s.shape(it, info);
            let e = attrs
                .entry(kind.to_string())
                .or_insert_with(|| Some(shape.clone()));
            if e.as_ref() != Some(&shape) {
                *e = None;
            }
        }
        Kinds { collection, attrs }
    }
}

/// What placing one item of a wide-row layout reads.
struct Partition<'a> {
    s: &'a Sample<'a>,
    kinds: &'a Kinds,
    adjacency: bool,
    counter_attrs: &'a BTreeSet<String>,
}

/// What placing the items of a wide-row layout counted.
#[derive(Default)]
struct Placed {
    /// Child items given a synthetic timestamp.
    synthetic: usize,
    /// The next synthetic rank per (row, family).
    rank: BTreeMap<(Vec<u8>, String), i64>,
    /// Counter items turned into aggregate cells.
    counter_items: usize,
}

/// Notes on what became of counters, write times, sets and documents.
fn sample_notes(
    s: &Sample<'_>,
    layout: &Layout,
    counter_attrs: &BTreeSet<String>,
    notes: &mut Vec<Note>,
) {
    if !counter_attrs.is_empty() {
        notes.push(Note::info(
            "counters",
            format!(
                "{} became aggregate (intsum) cells at timestamp 0: later increments are AddToCell calls on the same cell",
                counter_attrs.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let time_attrs: BTreeSet<&String> = s
        .live
        .iter()
        .filter_map(|(_, i)| i.time_attr.as_ref())
        .collect();
    if !time_attrs.is_empty() {
        notes.push(Note::info(
            "timestamps",
            format!(
                "{} became the timestamp of the item's cells instead of a column, as the migration guide shows",
                time_attrs.into_iter().cloned().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    if layout.b.bumped > 0 {
        notes.push(Note::warning(
            "timestamps",
            format!("{} item(s) would have shared a cell (same column, same time) with another; each was moved a millisecond earlier", layout.b.bumped),
        ));
    }
    if !layout.b.set_families.is_empty() {
        notes.push(Note::info(
            "sets",
            "Set attributes became families of their own: one column per member with a single 0x00 byte as its value",
        ));
    }
    let has_documents = s.live.iter().any(|(it, _)| {
        it.attrs
            .iter()
            .any(|(_, v, _)| matches!(v, AValue::M(_) | AValue::L(_)))
    });
    if has_documents {
        notes.push(Note::info(
            "documents",
            "Maps and lists are stored as one JSON cell each (a map whose keys are read one by one could instead be a family with one column per key)",
        ));
    }
}

/// Everything [`super::from_dynamodb`] does except the advisor.
pub(crate) fn translate(model: &str, options: &Options) -> Result<Translation, TranslateError> {
    let root = json::parse(model, Input::Model)?;
    if root.as_object().is_none() {
        return Err(err(
            root.pos,
            format!(
                "a DynamoDB design is a JSON object (a NoSQL Workbench model with \"DataModel\", or describe-table output with \"Table\"), found {}",
                root.kind()
            ),
        ));
    }
    // The AWS CLI's describe-table output ({"Table": ...}), create-table's
    // answer ({"TableDescription": ...}) or its input (the table itself).
    let api_table = ["Table", "TableDescription"]
        .into_iter()
        .find_map(|k| root.get(k))
        .or_else(|| root.get("KeySchema").map(|_| &root));
    if let Some(table) = api_table {
        let t = parse_api_table(table, api_ttl(&root)?, root.get("Items"))?;
        let out = vec![translate_table(&t, options)?];
        return Ok(Translation {
            source: Source::DynamoDb,
            name: t.name.clone(),
            tables: out,
            notes: dynamo_notes(&[&t]),
        });
    }
    let Some(dm) = root.get("DataModel") else {
        return Err(err(
            root.pos,
            "the design has neither \"DataModel\" (a NoSQL Workbench data-model export) nor \"Table\" (aws dynamodb describe-table output)",
        ));
    };
    let Some(list) = dm.as_array() else {
        return Err(err(
            dm.pos,
            format!("DataModel must be an array of tables, found {}", dm.kind()),
        ));
    };
    if list.is_empty() {
        return Err(err(dm.pos, "DataModel has no tables"));
    }
    let mut tables: Vec<DTable> = Vec::new();
    for node in list {
        let t = parse_table(node)?;
        if tables.iter().any(|u| u.name == t.name) {
            return Err(err(
                t.pos,
                format!("the table {} is in the model twice", t.name),
            ));
        }
        tables.push(t);
    }
    let mut out = Vec::new();
    for t in &tables {
        out.push(translate_table(t, options)?);
    }
    let name = root
        .get("ModelName")
        .and_then(Node::as_str)
        .map_or_else(|| tables[0].name.clone(), str::to_string);
    Ok(Translation {
        source: Source::DynamoDb,
        name,
        tables: out,
        notes: dynamo_notes(&tables.iter().collect::<Vec<_>>()),
    })
}

/// The notes every DynamoDB translation carries.
fn dynamo_notes(tables: &[&DTable]) -> Vec<Note> {
    let mut notes = vec![Note::info(
        "types",
        "Bigtable stores bytes: strings are UTF-8, numbers their decimal text, booleans true or false, binaries raw; the reader decodes them by column",
    )];
    if tables.iter().any(|t| !t.indexes.is_empty()) {
        notes.push(Note::info(
            "index",
            "Each secondary index becomes a continuous materialized view where the layout allows one (its CREATE MATERIALIZED VIEW statement runs in the SQL console once the tables exist), with an index table written by the application as the alternative",
        ));
    }
    if tables.iter().all(|t| t.items.is_empty()) {
        notes.push(Note::info(
            "sample",
            "There are no sample items, so the layout follows the keys alone; add items (a scan's \"Items\", or the model's TableData) to see rows and let their shapes choose the families",
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_keys_split_into_kind_and_id() {
        assert_eq!(
            split_kind("VideoComment#98765481"),
            ("VideoComment", "98765481")
        );
        assert_eq!(split_kind("Payment-0680"), ("Payment", "0680"));
        assert_eq!(split_kind("VideoStatsLikes"), ("VideoStatsLikes", ""));
        assert_eq!(split_kind("0123"), ("", "0123"));
    }

    #[test]
    fn write_times_need_a_telling_name() {
        assert_eq!(
            time_of("UploadDate", &AValue::S("2023-09-10T15:21:48".into())),
            Some(1_694_359_308_000_000)
        );
        assert_eq!(time_of("BirthDate", &AValue::S("2023-09-10".into())), None);
        assert_eq!(
            time_of("createdAt", &AValue::N("1694359308".into())),
            Some(1_694_359_308_000_000)
        );
    }

    #[test]
    fn values_become_cells() {
        let v = AValue::M(vec![
            ("480".into(), AValue::S("https://x".into())),
            ("n".into(), AValue::N("1.50".into())),
            ("s".into(), AValue::Ss(vec!["a".into()])),
        ]);
        assert_eq!(
            v.cell(),
            br#"{"480":"https://x","n":1.5,"s":["a"]}"#.to_vec()
        );
        assert_eq!(AValue::N(" 7 ".into()).cell(), b"7".to_vec());
        assert_eq!(AValue::Bool(true).cell(), b"true".to_vec());
    }
}
