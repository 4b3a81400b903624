//! Row-key schemas on an instance: checking a table's keys against one,
//! setting and removing a table's schema (kept in the catalog and in
//! snapshots). The schema itself is `crate::key_schema`.

use tabletop_store::{Error, ReadRowsRequest, Result, RowFilter, RowView};

use super::Instance;
use crate::key_schema::{Conformance, NonConforming, RowKeySchema};

/// Checks every row key of a table against `schema` (without setting it).
pub fn check_table(
    db: &mut Instance,
    table: &str,
    schema: &RowKeySchema,
    max_examples: usize,
) -> Result<Conformance> {
    schema.validate()?;
    let req = ReadRowsRequest {
        filter: Some(RowFilter::Chain(vec![
            RowFilter::CellsPerRowLimit(1),
            RowFilter::StripValue,
        ])),
        ..ReadRowsRequest::default()
    };
    let mut c = Conformance::default();
    let mut sink = |row: RowView<'_>| {
        c.rows_checked += 1;
        match schema.decode(row.key) {
            Ok(_) => c.conforming += 1,
            Err(e) => {
                c.non_conforming += 1;
                if c.examples.len() < max_examples {
                    c.examples.push(NonConforming {
                        key: row.key.to_vec(),
                        error: e,
                    });
                }
            }
        }
        true
    };
    // A check of the table, not users' traffic.
    db.without_traffic(|db| db.read_rows(table, &req, &mut sink))?;
    Ok(c)
}

/// Gives a table a row-key schema (replacing any it had) and reports how
/// its stored keys fit. Keys that do not conform do not stop it, as in
/// Bigtable; SQL that selects key fields then fails on those rows.
pub fn set_row_key_schema(
    db: &mut Instance,
    table: &str,
    schema: RowKeySchema,
) -> Result<Conformance> {
    schema.validate()?;
    let info = db.get_table(table)?;
    if let Some(f) = schema.fields.iter().find(|f| {
        info.schema
            .families
            .keys()
            .any(|fam| fam.eq_ignore_ascii_case(&f.name))
    }) {
        return Err(Error::invalid(format!(
            "row key field {} has the name of a column family of table {table}; SQL could not tell them apart",
            f.name
        )));
    }
    let c = check_table(db, table, &schema, 5)?;
    db.catalog_mut()
        .row_key_schemas
        .insert(table.to_string(), schema);
    Ok(c)
}

/// Removes a table's row-key schema; whether it had one.
pub fn clear_row_key_schema(db: &mut Instance, table: &str) -> Result<bool> {
    db.get_table(table)?;
    Ok(db.catalog_mut().row_key_schemas.remove(table).is_some())
}

/// A table's row-key schema, if it has one.
#[must_use]
pub fn row_key_schema<'a>(db: &'a Instance, table: &str) -> Option<&'a RowKeySchema> {
    db.catalog().row_key_schemas.get(table)
}
