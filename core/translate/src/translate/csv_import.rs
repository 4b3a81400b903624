//! CSV in `cbt import`'s format into an instance: the web app's upload
//! and the way back for an export's CSV files. The import itself is the
//! `cbt` interpreter's (same rules, same messages); this adds creating the
//! table from the header's families when it does not exist yet.

use tabletop_sql::Instance;
use tabletop_store::{Error, Result};
use tabletop_wire::cbt::{self, MemFiles};

/// How [`import_cbt_csv`] reads the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CsvImportOptions {
    /// Read `value@timestamp` cells (`cbt import ... timestamp=value-encoded`,
    /// what exports write); otherwise every cell gets the instance clock.
    pub value_encoded_timestamps: bool,
    /// Create the table, with the families named in the header, when it
    /// does not exist.
    pub create_table: bool,
}

impl Default for CsvImportOptions {
    fn default() -> CsvImportOptions {
        CsvImportOptions {
            value_encoded_timestamps: true,
            create_table: true,
        }
    }
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CsvImportReport {
    /// Whether the table was created first.
    pub created_table: bool,
    /// The families it was created with.
    pub families: Vec<String>,
    /// What `cbt import` logged (batches, skipped rows, the total).
    pub log: String,
}

/// The fields of the first CSV record, read by `cbt import`'s own reader
/// (Go's rules); a header that reader refuses reads as no fields, so the
/// import asks for a family header.
fn first_record(csv: &[u8]) -> Vec<Vec<u8>> {
    cbt::csv_record(csv).unwrap_or_default()
}

/// Imports `csv` (in `cbt import`'s format: a family row, a qualifier row,
/// then a row key and values per line) into `table`. With
/// [`CsvImportOptions::create_table`], a missing table is created with the
/// families of the header's first row. Errors are `cbt`'s messages (with
/// the CSV line and column for a malformed file).
pub fn import_cbt_csv(
    db: &mut Instance,
    table: &str,
    csv: &[u8],
    options: &CsvImportOptions,
) -> Result<CsvImportReport> {
    let mut report = CsvImportReport::default();
    let mut host = MemFiles::default();
    if db.get_table(table).is_err() && options.create_table {
        let header = first_record(csv);
        if header.first().is_none_or(|f| !f.is_empty()) {
            return Err(Error::invalid(
                "CSV line 1: the first row must be the family header (its first field empty) to create the table from it",
            ));
        }
        let mut families: Vec<String> = Vec::new();
        for f in header.iter().skip(1).filter(|f| !f.is_empty()) {
            let name = String::from_utf8_lossy(f).into_owned();
            tabletop_store::validate_family_name(&name)?;
            if !families.contains(&name) {
                families.push(name);
            }
        }
        if families.is_empty() {
            return Err(Error::invalid(
                "CSV line 1: the family header names no family",
            ));
        }
        let args = vec![
            "createtable".to_string(),
            table.to_string(),
            format!("families={}", families.join(",")),
        ];
        let out = cbt::exec_args(db, &args, &mut host);
        out.status?;
        report.created_table = true;
        report.families = families;
    }
    host.insert("upload.csv", csv.to_vec());
    let mut args = vec![
        "import".to_string(),
        table.to_string(),
        "upload.csv".to_string(),
    ];
    if options.value_encoded_timestamps {
        args.push("timestamp=value-encoded".to_string());
    }
    let out = cbt::exec_args(db, &args, &mut host);
    report.log = out.stderr_lossy();
    if let Err(e) = out.status {
        if report.created_table {
            let _ = db.delete_table(table);
        }
        return Err(e);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_read_like_go() {
        assert_eq!(
            first_record(b"\n,cf,\"a,b\"\r\n,q1,q2\n"),
            vec![b"".to_vec(), b"cf".to_vec(), b"a,b".to_vec()]
        );
    }

    #[test]
    fn a_table_is_created_from_the_header() {
        let mut db = Instance::default();
        let r = import_cbt_csv(
            &mut db,
            "t",
            b",cf,,other\n,a,b,c\nr1,x@1000,y@2000,\nr2,,,z@3000\n",
            &CsvImportOptions::default(),
        )
        .unwrap();
        assert!(r.created_table);
        assert_eq!(r.families, ["cf", "other"]);
        assert!(r.log.contains("Done importing 2 rows."), "{}", r.log);
        let read = cbt::run_line(&mut db, "read t").unwrap();
        assert!(read.contains("other:c"), "{read}");
        let e = import_cbt_csv(&mut db, "u", b"k,cf\n", &CsvImportOptions::default()).unwrap_err();
        assert!(e.message().contains("family header"), "{e}");
        let e = import_cbt_csv(
            &mut db,
            "t",
            b",cf\n,a\n\"bad\n",
            &CsvImportOptions::default(),
        )
        .unwrap_err();
        assert!(e.message().contains("line"), "{e}");
    }
}
