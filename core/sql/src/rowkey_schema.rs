//! Row-key schemas: a row key read as named, typed fields, as Bigtable's
//! structured row keys do for GoogleSQL.
//!
//! Bigtable keeps row keys as plain bytes sorted bytewise. A
//! [`RowKeySchema`] tells SQL how to take those bytes apart: which fields
//! a key has, of which type, how each is encoded, and how the fields are
//! put together. With a schema, a query sees the fields as columns
//! (`SELECT device_id FROM mobile WHERE device_type = 'phone'`), and
//! equality on the leading fields becomes a key prefix, so it reads a
//! range instead of the whole table. ReadRows ignores schemas, as in
//! Bigtable.
//!
//! # What a schema can say
//!
//! | field type | encodings |
//! |---|---|
//! | `STRING` | UTF-8 bytes, optionally a fixed width in bytes |
//! | `BYTES` | raw bytes, optionally a fixed width |
//! | `INT64` | `BIG_ENDIAN` (8 bytes, two's complement; sorts right for values ≥ 0), `ORDERED_CODE` (1 to 10 bytes; sorts right for every value), `DECIMAL(w)` (ASCII digits zero-padded to `w`; values ≥ 0; **playground extension**) |
//! | `TIMESTAMP` | an INT64 encoding of microseconds since the epoch (Bigtable's `unix_micros_int64`); the playground adds `SECONDS`/`MILLIS` units and `REVERSED` (`i64::MAX - t`, newest first) |
//!
//! | struct encoding | fields joined by |
//! |---|---|
//! | `DELIMITED BY 'd'` | a delimiter (no field may contain it; keys sort field by field only when no field byte is at or below the delimiter's first byte, Bigtable's "sorted mode") |
//! | `ORDERED_CODE` | `0x00 0x01`, with `0x00` escaped (Bigtable's `OrderedCodeBytes`) |
//! | `FIXED_WIDTH` | nothing: every field but the last has a fixed width (**playground extension**) |
//!
//! A schema comes from SQL text (`ALTER TABLE t SET ROW KEY SCHEMA device
//! STRING, id STRING DELIMITED BY '#'`, see [`RowKeySchema::from_sql`]),
//! from a TOML/JSON document (serde), or from the row-key designer's
//! `KeyTemplate` (`KeyTemplate::row_key_schema`). Setting one checks
//! the stored keys and reports those that do not conform
//! ([`Conformance`]); as in Bigtable, queries that select key fields fail
//! on a row whose key does not conform.

pub use crate::instance::{check_table, clear_row_key_schema, row_key_schema, set_row_key_schema};
pub use crate::key_schema::*;
