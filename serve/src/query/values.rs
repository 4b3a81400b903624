//! GoogleSQL types and values as ExecuteQuery carries them: a column's
//! type is a Bigtable `Type`, a value is a `Value` whose kind follows its
//! type (BYTES in `bytes_value`, STRING in `string_value`, INT64 in
//! `int_value`, FLOAT64 in `float_value`, BOOL in `bool_value`, TIMESTAMP
//! in `timestamp_value`; ARRAY, STRUCT and MAP in `array_value`, a map as
//! `[key, value]` pairs, a struct as its fields in order). NULL is a
//! `Value` with no kind.

use tabletop_core::sql::{Column, SqlType, Value};

use crate::proto::google::bigtable::v2::{
    ArrayValue, ColumnMetadata, ProtoSchema, ResultSetMetadata, Type, Value as ProtoValue,
    result_set_metadata, r#type, value,
};

/// The metadata of a result with these columns.
pub fn metadata(columns: &[Column]) -> ResultSetMetadata {
    ResultSetMetadata {
        schema: Some(result_set_metadata::Schema::ProtoSchema(ProtoSchema {
            columns: columns
                .iter()
                .map(|c| ColumnMetadata {
                    name: c.name.clone(),
                    r#type: Some(bigtable_type(&c.sql_type)),
                })
                .collect(),
        })),
    }
}

/// A GoogleSQL type as a Bigtable `Type` (no encodings: result sets carry
/// values, not bytes to decode).
pub fn bigtable_type(t: &SqlType) -> Type {
    use r#type::Kind;
    let kind = match t {
        SqlType::Bool => Kind::BoolType(r#type::Bool {}),
        SqlType::Int64 => Kind::Int64Type(r#type::Int64 { encoding: None }),
        SqlType::Float64 => Kind::Float64Type(r#type::Float64 {}),
        SqlType::String => Kind::StringType(r#type::String { encoding: None }),
        SqlType::Bytes => Kind::BytesType(r#type::Bytes { encoding: None }),
        SqlType::Timestamp => Kind::TimestampType(r#type::Timestamp { encoding: None }),
        SqlType::Array(element) => Kind::ArrayType(Box::new(r#type::Array {
            element_type: Some(Box::new(bigtable_type(element))),
        })),
        SqlType::Struct(fields) => Kind::StructType(r#type::Struct {
            fields: fields
                .iter()
                .map(|(name, t)| r#type::r#struct::Field {
                    field_name: name.clone(),
                    r#type: Some(bigtable_type(t)),
                })
                .collect(),
            encoding: None,
        }),
        SqlType::Map(key, value) => Kind::MapType(Box::new(r#type::Map {
            key_type: Some(Box::new(bigtable_type(key))),
            value_type: Some(Box::new(bigtable_type(value))),
        })),
    };
    Type { kind: Some(kind) }
}

/// A GoogleSQL value as a `Value`.
pub fn proto_value(v: &Value) -> ProtoValue {
    use value::Kind;
    let kind = match v {
        Value::Null => None,
        Value::Bool(b) => Some(Kind::BoolValue(*b)),
        Value::Int64(i) => Some(Kind::IntValue(*i)),
        Value::Float64(f) => Some(Kind::FloatValue(*f)),
        Value::String(s) => Some(Kind::StringValue(s.clone())),
        Value::Bytes(b) => Some(Kind::BytesValue(b.clone())),
        Value::Timestamp(micros) => Some(Kind::TimestampValue(timestamp(*micros))),
        Value::Array(items) => Some(array(items.iter().map(proto_value))),
        Value::Struct(fields) => Some(array(fields.iter().map(|(_, v)| proto_value(v)))),
        Value::Map(entries) => Some(array(entries.iter().map(|(k, v)| ProtoValue {
            r#type: None,
            kind: Some(array([proto_value(k), proto_value(v)])),
        }))),
    };
    ProtoValue { r#type: None, kind }
}

fn array(values: impl IntoIterator<Item = ProtoValue>) -> value::Kind {
    value::Kind::ArrayValue(ArrayValue {
        values: values.into_iter().collect(),
    })
}

/// Microseconds since the epoch as a protobuf Timestamp (nanos are never
/// negative, so times before 1970 borrow a second).
pub fn timestamp(micros: i64) -> prost_types::Timestamp {
    let seconds = micros.div_euclid(1_000_000);
    let nanos = micros.rem_euclid(1_000_000) * 1000;
    prost_types::Timestamp {
        seconds,
        // Below 1e9 by construction.
        nanos: i32::try_from(nanos).unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::google::bigtable::v2::r#type::Kind;

    #[test]
    fn a_family_is_a_map_of_bytes_to_bytes() {
        let t = bigtable_type(&SqlType::family());
        let Some(Kind::MapType(map)) = t.kind else {
            panic!("not a map: {t:?}")
        };
        for side in [map.key_type, map.value_type] {
            assert!(matches!(
                side.and_then(|t| t.kind),
                Some(Kind::BytesType(_))
            ));
        }
    }

    #[test]
    fn history_is_an_array_of_structs_with_named_fields() {
        let t = bigtable_type(&SqlType::history(SqlType::Int64));
        let Some(Kind::ArrayType(array)) = t.kind else {
            panic!("not an array")
        };
        let Some(Kind::StructType(s)) = array.element_type.and_then(|t| t.kind) else {
            panic!("not a struct")
        };
        let names: Vec<_> = s.fields.iter().map(|f| f.field_name.as_str()).collect();
        assert_eq!(names, ["timestamp", "value"]);
        assert!(matches!(
            s.fields[1].r#type.as_ref().and_then(|t| t.kind.as_ref()),
            Some(Kind::Int64Type(_))
        ));
    }

    #[test]
    fn maps_are_pairs_structs_are_fields_and_null_has_no_kind() {
        let map = Value::Map(vec![(Value::Bytes(b"q".to_vec()), Value::Int64(7))]);
        let Some(value::Kind::ArrayValue(entries)) = proto_value(&map).kind else {
            panic!("a map is an array")
        };
        let Some(value::Kind::ArrayValue(pair)) = entries.values[0].kind.clone() else {
            panic!("an entry is an array")
        };
        assert_eq!(
            pair.values
                .iter()
                .map(|v| v.kind.clone())
                .collect::<Vec<_>>(),
            vec![
                Some(value::Kind::BytesValue(b"q".to_vec())),
                Some(value::Kind::IntValue(7))
            ]
        );
        let row = Value::Struct(vec![
            ("timestamp".into(), Value::Timestamp(-1)),
            ("value".into(), Value::Null),
        ]);
        let Some(value::Kind::ArrayValue(fields)) = proto_value(&row).kind else {
            panic!("a struct is an array")
        };
        assert_eq!(
            fields.values[0].kind,
            Some(value::Kind::TimestampValue(prost_types::Timestamp {
                seconds: -1,
                nanos: 999_999_000
            }))
        );
        assert_eq!(fields.values[1].kind, None);
    }
}
