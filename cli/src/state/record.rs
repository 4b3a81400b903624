//! What one record of the state file's log holds: a command the CLI
//! committed, in the core's own input languages, with the instance clock
//! it ran at, so that replaying it on the same state gives the same cells.
//!
//! - **The command as the core took it.** A `cbt` command's arguments
//!   (run again by [`cbt::exec_args`]) or a REST JSON request line (run
//!   again by [`api::handle`]; it names its table by full resource name,
//!   `projects/P/instances/I/tables/T`). Every record also names the
//!   project and instance it ran against.
//! - **Time resolved.** The core reads no clock: cells written without a
//!   timestamp get the instance clock, which the record carries as it
//!   was when the command ran, so replay writes the same timestamps.
//! - **Background work kept in step.** When the clock moved before the
//!   command did engine work (flushes, compactions with GC, splits, or
//!   materialized views' maintenance), replay does it at the same time.
//! - **Traffic follows.** A replayed write notes the same traffic at the
//!   same time as the original. Runs that did anything the log cannot
//!   hold (reads, whose traffic a saving run keeps; clock or SQL
//!   changes; imports) write a new snapshot instead.
//! - **Host notes kept.** A schema change a host annotated (`tabletop
//!   serve` keeps how each client spelled its families as a note on the
//!   table) carries the table's notes as they were after it; replay sets
//!   them again, so nothing the snapshot would have kept is lost.
//!
//! Only commands whose effect on the instance is a function of the
//! instance and the clock are logged. Data writes: `set`, `addtocell`,
//! `deletecolumn`, `deleterow`, `deleteallrows`; `mutateRow`,
//! `mutateRows`, `checkAndMutateRow`, `readModifyWriteRow`,
//! `dropRowRange`. Schema changes: `createtable`, `createfamily`,
//! `deletefamily`, `setgcpolicy`, `deletetable`; `createTable`,
//! `deleteTable`, `modifyColumnFamilies`, `updateTable` (change stream,
//! deletion protection), and the create, update and delete methods of
//! authorized and logical views.
//!
//! Payload: version (1), kind (1 `cbt`, 2 JSON), flags (bit 0: engine
//! work first; bit 1: table notes follow), the clock (i64 LE), project
//! and instance (varint length and bytes), then the arguments (a varint
//! count, each a varint length and bytes) or the request line (varint
//! length and bytes), then, with bit 1, the table's id and its notes as a
//! JSON object (each a varint length and bytes). A build from before
//! schema records reads every record without bit 1 (its own kinds and
//! commands) and refuses, with its reason, a log holding one with it.

use tabletop_core::{Instance, Instances, Traces, api, cbt, views};

use super::codec::{get_bytes, get_uint, put_bytes, put_uint};

const VERSION: u8 = 1;
const KIND_CBT: u8 = 1;
const KIND_JSON: u8 = 2;
const FLAG_WORK: u8 = 1;
const FLAG_NOTES: u8 = 2;

/// The `cbt` data writes the log holds; the shell decides them.
const CBT_WRITES: &[&[u8]] = &[
    b"set",
    b"addtocell",
    b"deletecolumn",
    b"deleterow",
    b"deleteallrows",
];

/// The `cbt` schema changes the log holds. They run on the whole
/// instance (deletion protection, which the shell lacks, may refuse
/// them) and replay on the shell.
const CBT_SCHEMA: &[&[u8]] = &[
    b"createtable",
    b"createfamily",
    b"deletefamily",
    b"setgcpolicy",
    b"deletetable",
];

/// The JSON methods whose outcome the shell decides (`state::shell`):
/// what they do depends on the tables, families and clock, not on rows.
const JSON_SHELL: &[&str] = &["mutateRow", "mutateRows", "dropRowRange"];

/// The method a request line names, if it is a JSON object with one.
pub fn method_of(line: &str) -> Option<String> {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(line) else {
        return None;
    };
    map.get("method")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
}

/// Whether the shell decides a request of this JSON method.
pub fn json_on_shell(method: &str) -> bool {
    JSON_SHELL.contains(&method)
}

/// Whether the shell decides the `cbt` command named `word` (the data
/// writes the log holds).
pub fn cbt_on_shell(word: &[u8]) -> bool {
    CBT_WRITES.contains(&word)
}

/// Whether a record of this command replays on the shell, keeping it what
/// the whole instance is without its rows: the writes the shell decides,
/// and the schema changes (their outcome was decided on the whole
/// instance; the shell has what they change, or the replay fails and the
/// whole instance is loaded instead).
pub fn replays_on_shell(command: &Command) -> bool {
    match command {
        Command::Cbt(_) => true,
        Command::Json(line) => {
            method_of(line).is_some_and(|m| json_on_shell(&m) || json_schema_change(&m))
        }
    }
}

/// Whether the log can hold the `cbt` command named `word`.
pub fn cbt_logged(word: &[u8]) -> bool {
    CBT_WRITES.contains(&word) || CBT_SCHEMA.contains(&word)
}

/// Whether the log can hold a request of this JSON method.
pub fn json_logged(method: &str) -> bool {
    api::is_bigtable_write(method)
}

/// Whether a JSON method is a schema change: like the `cbt` ones, it runs
/// on the whole instance and replays on the shell.
fn json_schema_change(method: &str) -> bool {
    api::is_bigtable_write(method) && !api::writes_rows_only(method)
}

/// The JSON schema changes whose table a host may annotate
/// ([`TableNotes`]): the ones that make or change a table's families.
pub fn json_annotates_table(method: &str) -> bool {
    matches!(method, "createTable" | "modifyColumnFamilies")
}

/// A committed command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// A `cbt` command's arguments.
    Cbt(Vec<Vec<u8>>),
    /// A REST JSON request line.
    Json(String),
}

/// Where and when a command ran: taken just before it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct At {
    pub project: String,
    pub instance: String,
    pub now_micros: i64,
    /// The clock's move before the command did engine work.
    pub engine_work: bool,
}

impl At {
    /// The instance's names and clock now; `engine_work`: whether moving
    /// the clock since the last record did engine work.
    pub fn of(db: &Instance, engine_work: bool) -> At {
        At {
            project: db.config().project.clone(),
            instance: db.config().instance.clone(),
            now_micros: db.now_micros(),
            engine_work,
        }
    }
}

/// A table's host notes as a command left them (see
/// `Instance::table_notes`): replay sets exactly these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableNotes {
    pub table: String,
    pub notes: serde_json::Map<String, serde_json::Value>,
}

impl TableNotes {
    /// The notes of `table` in `db` now (an empty map when it has none).
    pub fn of(db: &Instance, table: &str) -> TableNotes {
        TableNotes {
            table: table.to_string(),
            notes: db
                .table_notes(table)
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }

    /// Makes `table`'s notes in `db` exactly these.
    fn apply(&self, db: &mut Instance) -> Result<(), String> {
        let stale: Vec<String> = db
            .table_notes(&self.table)
            .map(|(k, _)| k.to_string())
            .filter(|k| !self.notes.contains_key(k))
            .collect();
        let set = stale
            .into_iter()
            .map(|k| (k, None))
            .chain(self.notes.iter().map(|(k, v)| (k.clone(), Some(v.clone()))));
        for (key, value) in set {
            db.set_table_note(&self.table, &key, value)
                .map_err(|e| e.message().to_string())?;
        }
        Ok(())
    }
}

/// One log record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub at: At,
    pub command: Command,
    /// The notes of the table the command changed, when the host keeps
    /// any there.
    pub table_notes: Option<TableNotes>,
}

impl Record {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.push(VERSION);
        out.push(match self.command {
            Command::Cbt(_) => KIND_CBT,
            Command::Json(_) => KIND_JSON,
        });
        let mut flags = 0;
        if self.at.engine_work {
            flags |= FLAG_WORK;
        }
        if self.table_notes.is_some() {
            flags |= FLAG_NOTES;
        }
        out.push(flags);
        out.extend_from_slice(&self.at.now_micros.to_le_bytes());
        put_bytes(&mut out, self.at.project.as_bytes());
        put_bytes(&mut out, self.at.instance.as_bytes());
        match &self.command {
            Command::Cbt(args) => {
                put_uint(&mut out, args.len() as u64);
                for a in args {
                    put_bytes(&mut out, a);
                }
            }
            Command::Json(line) => put_bytes(&mut out, line.as_bytes()),
        }
        if let Some(notes) = &self.table_notes {
            put_bytes(&mut out, notes.table.as_bytes());
            let json = serde_json::Value::Object(notes.notes.clone()).to_string();
            put_bytes(&mut out, json.as_bytes());
        }
        out
    }

    /// Reads a payload; the error says what is wrong with it.
    pub fn decode(bytes: &[u8]) -> Result<Record, String> {
        let bad = || "the record is not one this version of tabletop writes".to_string();
        let [version, kind, flags, ..] = *bytes else {
            return Err(bad());
        };
        if version != VERSION || flags & !(FLAG_WORK | FLAG_NOTES) != 0 {
            return Err(bad());
        }
        let mut now = [0u8; 8];
        now.copy_from_slice(bytes.get(3..11).ok_or_else(bad)?);
        let mut pos = 11;
        let text = |pos: &mut usize| {
            let r = get_bytes(bytes, pos).ok_or_else(bad)?;
            String::from_utf8(bytes[r].to_vec()).map_err(|_| bad())
        };
        let project = text(&mut pos)?;
        let instance = text(&mut pos)?;
        let command = match kind {
            KIND_CBT => {
                let n = get_uint(bytes, &mut pos).ok_or_else(bad)?;
                let mut args = Vec::new();
                for _ in 0..n {
                    let r = get_bytes(bytes, &mut pos).ok_or_else(bad)?;
                    args.push(bytes[r].to_vec());
                }
                Command::Cbt(args)
            }
            KIND_JSON => Command::Json(text(&mut pos)?),
            _ => return Err(bad()),
        };
        let table_notes = if flags & FLAG_NOTES == 0 {
            None
        } else {
            let table = text(&mut pos)?;
            let notes = match serde_json::from_str(&text(&mut pos)?) {
                Ok(serde_json::Value::Object(map)) => map,
                _ => return Err(bad()),
            };
            Some(TableNotes { table, notes })
        };
        if pos != bytes.len() {
            return Err(bad());
        }
        let at = At {
            project,
            instance,
            now_micros: i64::from_le_bytes(now),
            engine_work: flags & FLAG_WORK != 0,
        };
        Ok(Record {
            at,
            command,
            table_notes,
        })
    }

    /// Runs the command again on `db` as it first ran: same clock, same
    /// engine work before it. It succeeded then, so it must now.
    ///
    /// `db` is the instance the record names ([`Record::replay_in`] picks
    /// it out of every instance).
    pub fn replay(&self, db: &mut Instance) -> Result<(), String> {
        if self.at.engine_work {
            db.tick(self.at.now_micros);
        } else {
            db.set_now(self.at.now_micros);
        }
        match &self.command {
            Command::Cbt(args) => {
                let outcome = cbt::exec_args(db, args, &mut cbt::NoHost);
                outcome.status.map_err(|e| e.message().to_string())?;
            }
            Command::Json(line) => {
                let answer = api::answer_traced(db, line, &mut Traces::off());
                if !answer.ok {
                    return Err(answer.line);
                }
            }
        }
        match &self.table_notes {
            Some(notes) => notes.apply(db),
            None => Ok(()),
        }
    }

    /// Whether the record ran against the instance `project`/`instance`.
    pub fn ran_in(&self, project: &str, instance: &str) -> bool {
        self.at.project == project && self.at.instance == instance
    }
}

impl Record {
    /// [`Record::replay`] on the instance the record names, made if the
    /// state holds none of that name yet.
    pub fn replay_in(&self, all: &mut Instances) -> Result<(), String> {
        let db = all
            .select(&self.at.project, &self.at.instance)
            .map_err(|e| e.message().to_string())?;
        self.replay(db)
    }
}

/// Whether moving the clock did work the log must repeat: the engine
/// reported events, or there are materialized views (their maintenance
/// depends on the time of every tick).
pub fn did_engine_work(db: &Instance, events: usize) -> bool {
    events > 0 || !views::list_views(db).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> At {
        At {
            project: "p".into(),
            instance: "i".into(),
            now_micros: -5,
            engine_work: true,
        }
    }

    #[test]
    fn records_round_trip() {
        for command in [
            Command::Cbt(vec![b"set".to_vec(), b"t".to_vec(), vec![0xff, 0], vec![]]),
            Command::Json("{\"method\": \"mutateRow\"}".into()),
        ] {
            let r = Record {
                at: at(),
                command,
                table_notes: None,
            };
            assert_eq!(Record::decode(&r.encode()).unwrap(), r);
        }
    }

    #[test]
    fn damaged_payloads_are_refused() {
        let bytes = Record {
            at: at(),
            command: Command::Cbt(vec![b"set".to_vec()]),
            table_notes: None,
        }
        .encode();
        for cut in 0..bytes.len() {
            assert!(Record::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Record::decode(&longer).is_err());
        let mut other = bytes;
        other[0] = 9;
        assert!(Record::decode(&other).is_err());
    }

    #[test]
    fn replay_gives_the_same_cells_at_the_recorded_time() {
        let mut db = Instance::default();
        cbt::run_line(&mut db, "createtable t families=cf").unwrap();
        let start = db.snapshot();
        db.set_now(1_700_000_000_000_000);
        let set = Record {
            at: At::of(&db, false),
            command: Command::Cbt(vec![
                b"set".to_vec(),
                b"t".to_vec(),
                b"r".to_vec(),
                b"cf:q=v".to_vec(),
            ]),
            table_notes: None,
        };
        set.replay(&mut db).unwrap();
        db.set_now(1_700_000_000_500_000);
        let line = r#"{"method": "mutateRow", "request": {"tableName": "projects/tabletop/instances/playground/tables/t", "rowKey": "cg==", "mutations": [{"setCell": {"familyName": "cf", "columnQualifier": "cg==", "timestampMicros": "-1", "value": "dw=="}}]}}"#;
        let json = Record {
            at: At::of(&db, true),
            command: Command::Json(line.into()),
            table_notes: None,
        };
        json.replay(&mut db).unwrap();
        let want = cbt::run_line(&mut db, "read t").unwrap();
        // Much later, on the snapshot from before: the same cells.
        let mut again = Instance::restore(&start).unwrap();
        again.set_now(1_800_000_000_000_000);
        for r in [&set, &json] {
            let r = Record::decode(&r.encode()).unwrap();
            r.replay(&mut again).unwrap();
        }
        assert_eq!(cbt::run_line(&mut again, "read t").unwrap(), want);
        assert!(want.contains("@ 2023/11/14-22:13:20.500000"), "{want}");
        // A command that fails on replay is an error, not a silent skip.
        let bad = Record {
            at: At::of(&again, false),
            command: Command::Cbt(vec![
                b"set".to_vec(),
                b"nope".to_vec(),
                b"r".to_vec(),
                b"cf:q=v".to_vec(),
            ]),
            table_notes: None,
        };
        assert!(bad.replay(&mut again).is_err());
    }

    #[test]
    fn table_notes_round_trip_and_replay_sets_exactly_them() {
        let mut db = Instance::default();
        cbt::run_line(&mut db, "createtable t families=cf").unwrap();
        db.set_table_note("t", "stale", Some(serde_json::json!(1)))
            .unwrap();
        let mut notes = serde_json::Map::new();
        notes.insert(
            "spelled".into(),
            serde_json::json!({"cf": {"emptyGcRule": true}}),
        );
        let record = Record {
            at: At::of(&db, false),
            command: Command::Cbt(vec![b"createfamily".to_vec(), b"t".to_vec(), b"f".to_vec()]),
            table_notes: Some(TableNotes {
                table: "t".into(),
                notes,
            }),
        };
        let bytes = record.encode();
        assert_eq!(Record::decode(&bytes).unwrap(), record);
        for cut in 0..bytes.len() {
            assert!(Record::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        record.replay(&mut db).unwrap();
        assert_eq!(
            TableNotes::of(&db, "t"),
            record.table_notes.clone().unwrap()
        );
        assert!(db.get_table("t").unwrap().schema.families.contains_key("f"));
        // A record with no notes leaves the table's as they are.
        let plain = Record {
            table_notes: None,
            command: Command::Cbt(vec![b"createfamily".to_vec(), b"t".to_vec(), b"g".to_vec()]),
            ..record.clone()
        };
        plain.replay(&mut db).unwrap();
        assert_eq!(
            TableNotes::of(&db, "t"),
            record.table_notes.clone().unwrap()
        );
    }

    #[test]
    fn schema_changes_are_logged_and_replay_on_the_shell_but_only_writes_run_there() {
        for word in [
            &b"createtable"[..],
            b"createfamily",
            b"deletefamily",
            b"setgcpolicy",
            b"deletetable",
        ] {
            assert!(cbt_logged(word) && !cbt_on_shell(word));
        }
        assert!(cbt_on_shell(b"set") && cbt_logged(b"set"));
        assert!(!cbt_logged(b"import") && !cbt_logged(b"compact") && !cbt_logged(b"clock"));
        for method in [
            "createTable",
            "modifyColumnFamilies",
            "updateTable",
            "createLogicalView",
        ] {
            assert!(json_logged(method) && !json_on_shell(method));
            let line = format!("{{\"method\": \"{method}\", \"request\": {{}}}}");
            assert!(replays_on_shell(&Command::Json(line)));
        }
        let rows_first = r#"{"method": "checkAndMutateRow", "request": {}}"#;
        assert!(json_logged("checkAndMutateRow"));
        assert!(!replays_on_shell(&Command::Json(rows_first.into())));
        assert!(!json_logged("sql"));
    }
}
