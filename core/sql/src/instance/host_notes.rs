//! Notes a host keeps with a table: small JSON values, under a key the
//! host chooses, that the core never reads but keeps in the snapshot (the
//! catalog's section) and forgets with the table. `tabletop serve` keeps
//! there how each client spelled its column families, so the echo it
//! answers survives a restart on a state file.

use serde_json::Value;
use tabletop_store::{Error, Result};

use super::Instance;

impl Instance {
    /// The note `key` of `table`, if the host left one.
    #[must_use]
    pub fn table_note(&self, table: &str, key: &str) -> Option<&Value> {
        self.catalog.table_notes.get(table)?.get(key)
    }

    /// Every note the host left on `table`, by key (empty when none).
    pub fn table_notes(&self, table: &str) -> impl Iterator<Item = (&str, &Value)> {
        self.catalog
            .table_notes
            .get(table)
            .into_iter()
            .flatten()
            .map(|(key, value)| (key.as_str(), value))
    }

    /// Sets (or, with `None`, removes) the note `key` of `table`, which
    /// must exist.
    pub fn set_table_note(&mut self, table: &str, key: &str, note: Option<Value>) -> Result<()> {
        if !self.store.has_table(table) {
            return Err(Error::table_not_found(table));
        }
        let notes = &mut self.catalog.table_notes;
        match note {
            Some(value) => {
                notes
                    .entry(table.to_string())
                    .or_default()
                    .insert(key.to_string(), value);
            }
            None => {
                if let Some(of_table) = notes.get_mut(table) {
                    of_table.remove(key);
                    if of_table.is_empty() {
                        notes.remove(table);
                    }
                }
            }
        }
        Ok(())
    }
}
