//! The instance without its data: the same names, settings, clock, tables
//! and column families, and no rows. The log's header keeps one, so a
//! one-shot write (`tabletop cbt set ...`) can run on it instead of
//! loading the whole snapshot, and append its record.
//!
//! Why that gives the write's true outcome: whether `set`, `addtocell`,
//! `deletecolumn`, `deleterow` or `deleteallrows` succeeds, and what it
//! writes, depends on the tables, their families and the clock, which the
//! shell has, and on one thing about the data: a row may hold at most 256
//! MiB. The header keeps a bound on any row of the snapshot (its largest
//! tablet), the shell replays the log's records to know what they added,
//! and a write whose row could come near the limit runs on the whole
//! instance instead ([`fits_rows`]).

use std::io;

use tabletop_core::{CreateTableRequest, Instance, MAX_ROW_BYTES};

/// The shell of `db` as snapshot bytes, and a bound on its rows' bytes.
pub fn of(db: &Instance) -> io::Result<(Vec<u8>, u64)> {
    let mut shell = Instance::new(db.config().clone());
    shell
        .switch_fidelity(db.fidelity())
        .map_err(io::Error::other)?;
    let mut row_bound = 0;
    for table in db.list_tables() {
        for tablet in db.tablets(&table.id).map_err(io::Error::other)? {
            row_bound = row_bound.max(tablet.bytes);
        }
        shell
            .create_table(CreateTableRequest {
                table_id: table.id,
                schema: table.schema,
                initial_splits: Vec::new(),
            })
            .map_err(io::Error::other)?;
    }
    shell.set_now(db.now_micros());
    Ok((shell.snapshot(), row_bound))
}

/// Whether every row stays within the limit: the snapshot's bound plus all
/// the shell holds (what the log's writes and this one added).
pub fn fits_rows(shell: &Instance, row_bound: u64) -> bool {
    let added: u64 = shell.list_tables().iter().map(|t| t.bytes).sum();
    row_bound.saturating_add(added) <= MAX_ROW_BYTES as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_core::cbt;

    #[test]
    fn the_shell_has_the_tables_and_clock_but_no_rows() {
        let mut db = Instance::default();
        cbt::run_line(&mut db, "createtable t families=cf").unwrap();
        cbt::run_line(&mut db, "createfamily t sum:never:intsum").unwrap();
        cbt::run_line(&mut db, "set t r cf:q=0123456789").unwrap();
        db.set_now(1_700_000_000_000_000);
        let (bytes, bound) = of(&db).unwrap();
        assert!(bound >= 10, "{bound}");
        let mut shell = Instance::restore(&bytes).unwrap();
        assert_eq!(shell.now_micros(), db.now_micros());
        assert_eq!(shell.config(), db.config());
        assert_eq!(cbt::run_line(&mut shell, "count t").unwrap(), "0\n");
        assert_eq!(
            shell.get_table("t").unwrap().schema,
            db.get_table("t").unwrap().schema
        );
        // The same outcomes for writes: an unknown family, a set on an
        // aggregate family.
        for line in [
            "set t r nope:q=v",
            "set t r sum:q=v",
            "addtocell t r sum:q=1",
        ] {
            assert_eq!(
                cbt::run_line(&mut shell, line).map_err(|e| e.message().to_string()),
                cbt::run_line(&mut db, line).map_err(|e| e.message().to_string()),
                "{line}"
            );
        }
        assert!(fits_rows(&shell, bound));
        assert!(!fits_rows(&shell, MAX_ROW_BYTES as u64));
    }
}
