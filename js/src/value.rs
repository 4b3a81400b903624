//! Plain JS values to and from the JSON values the protocol speaks, through
//! serde-wasm-bindgen: a request object becomes a `serde_json::Value` (a
//! `Uint8Array` becomes the base64 string proto3 JSON would carry), an
//! answer value becomes a plain object, and an error becomes the
//! `{code, status, message}` object the package's `TabletopError` is made
//! from.

use std::fmt;

use serde::Serialize;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use tabletop_core::{Error, api};
use wasm_bindgen::JsValue;

/// A JSON value read from a JS value.
struct Json(Value);

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor).map(Json)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a JSON-like value (object, array, string, number, boolean, null or Uint8Array)",
        )
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format!("{v} is not a finite number")))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::String(api::encode_base64(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Json(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some((k, Json(v))) = map.next_entry::<String, Json>()? {
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// Reads a request object; what JSON cannot hold (a function, a symbol, a
/// number that is not finite) is an INVALID_ARGUMENT naming `request`.
///
/// A string is taken as the request's JSON text (the package's wrapper
/// sends small requests that way: one string crosses into wasm instead of
/// every key and value one by one).
pub(crate) fn from_js(request: JsValue) -> Result<Value, Error> {
    if let Some(text) = request.as_string() {
        return serde_json::from_str(&text)
            .map_err(|e| Error::invalid(format!("request: not valid JSON: {e}")));
    }
    serde_wasm_bindgen::from_value::<Json>(request)
        .map(|Json(v)| v)
        .map_err(|e| Error::invalid(format!("request: {e}")))
}

/// Writes a JSON value as a plain JS value (objects, not `Map`s).
pub(crate) fn to_js(value: &Value) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    // A serde_json value always serializes.
    value.serialize(&serializer).unwrap_or(JsValue::NULL)
}

/// The `{code, status, message}` object thrown to the package's wrapper,
/// which turns it into a `TabletopError`.
pub(crate) fn error_to_js(e: &Error) -> JsValue {
    to_js(&api::error_to_json(e))
}
