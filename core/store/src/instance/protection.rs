//! Deletion protection (UpdateTable's `deletion_protection`): while a
//! table has it, DeleteTable and a ModifyColumnFamilies that drops a family
//! are refused with `FAILED_PRECONDITION`, and nothing changes; writes,
//! DropRowRange and new or updated families still go through, as in
//! Bigtable, where the flag guards the schema, not the data.
//!
//! Production says why in terms of the field ("its deletion protection
//! field is set to true"); Google's emulator names the table in full and
//! says it "is protected from deletion". The instance's fidelity picks one.

use super::{Instance, TableInfo};
use crate::error::{Error, Result};
use crate::schema::FamilyChange;

impl Instance {
    /// UpdateTable's `deletion_protection`: turns the table's protection
    /// on or off.
    pub fn set_deletion_protection(&mut self, table_id: &str, on: bool) -> Result<TableInfo> {
        let table = self.table_mut(table_id)?;
        table.deletion_protection = on;
        Ok(Self::info(table))
    }

    /// Refuses to delete a protected table (and a missing one: not found).
    pub(super) fn check_deletable(&self, table_id: &str) -> Result<()> {
        self.refuse_if_protected(table_id, || {
            format!(
                "table \"{table_id}\" cannot be deleted because its deletion protection field is set to true; set it to false first"
            )
        })
    }

    /// Refuses a change to table `table_id` when it is protected: in the
    /// emulator's words under its fidelity, else in production's
    /// (`production` words them).
    fn refuse_if_protected(
        &self,
        table_id: &str,
        production: impl FnOnce() -> String,
    ) -> Result<()> {
        if !self.table(table_id)?.deletion_protection {
            return Ok(());
        }
        Err(Error::failed_precondition(if self.fidelity.is_emulator() {
            self.protected_as_emulator(table_id)
        } else {
            production()
        }))
    }

    /// Refuses `changes` when they drop a family of a protected table
    /// (before any of them is made).
    pub(super) fn check_drops(&self, table_id: &str, changes: &[FamilyChange]) -> Result<()> {
        let Some(dropped) = changes.iter().find_map(|c| match c {
            FamilyChange::Drop(family) => Some(family),
            _ => None,
        }) else {
            return Ok(());
        };
        self.refuse_if_protected(table_id, || {
            format!(
                "column family \"{dropped}\" of table \"{table_id}\" cannot be dropped because the table's deletion protection field is set to true; set it to false first"
            )
        })
    }

    fn protected_as_emulator(&self, table_id: &str) -> String {
        format!(
            "table \"projects/{}/instances/{}/tables/{table_id}\" is protected from deletion",
            self.config.project, self.config.instance
        )
    }
}
