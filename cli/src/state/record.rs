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
//!   hold (reads, whose traffic a saving run keeps; schema, clock or SQL
//!   changes; imports) write a new snapshot instead.
//!
//! Only commands whose effect on the instance is a function of the
//! instance and the clock are logged: `set`, `addtocell`, `deletecolumn`,
//! `deleterow`, `deleteallrows`; `mutateRow`, `mutateRows`,
//! `checkAndMutateRow`, `readModifyWriteRow`, `dropRowRange`.
//!
//! Payload: version (1), kind (1 `cbt`, 2 JSON), flags (bit 0: engine
//! work first), the clock (i64 LE), project and instance (varint length
//! and bytes), then the arguments (a varint count, each a varint length
//! and bytes) or the request line (varint length and bytes).

use tabletop_core::{Instance, Instances, Traces, api, cbt, views};

use super::codec::{get_bytes, get_uint, put_bytes, put_uint};

const VERSION: u8 = 1;
const KIND_CBT: u8 = 1;
const KIND_JSON: u8 = 2;
const FLAG_WORK: u8 = 1;

/// The `cbt` commands the log holds.
const CBT_LOGGED: &[&[u8]] = &[
    b"set",
    b"addtocell",
    b"deletecolumn",
    b"deleterow",
    b"deleteallrows",
];

/// The JSON methods the log holds.
const JSON_LOGGED: &[&str] = &[
    "mutateRow",
    "mutateRows",
    "checkAndMutateRow",
    "readModifyWriteRow",
    "dropRowRange",
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

/// Whether the shell decides this command (every logged `cbt` command
/// does; of the JSON ones, those of [`json_on_shell`]).
pub fn on_shell(command: &Command) -> bool {
    match command {
        Command::Cbt(_) => true,
        Command::Json(line) => method_of(line).is_some_and(|m| json_on_shell(&m)),
    }
}

/// Whether the log can hold the `cbt` command named `word`.
pub fn cbt_logged(word: &[u8]) -> bool {
    CBT_LOGGED.contains(&word)
}

/// Whether the log can hold a request of this JSON method.
pub fn json_logged(method: &str) -> bool {
    JSON_LOGGED.contains(&method)
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

/// One log record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub at: At,
    pub command: Command,
}

impl Record {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.push(VERSION);
        out.push(match self.command {
            Command::Cbt(_) => KIND_CBT,
            Command::Json(_) => KIND_JSON,
        });
        out.push(if self.at.engine_work { FLAG_WORK } else { 0 });
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
        out
    }

    /// Reads a payload; the error says what is wrong with it.
    pub fn decode(bytes: &[u8]) -> Result<Record, String> {
        let bad = || "the record is not one this version of tabletop writes".to_string();
        let [version, kind, flags, ..] = *bytes else {
            return Err(bad());
        };
        if version != VERSION || flags & !FLAG_WORK != 0 {
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
        if pos != bytes.len() {
            return Err(bad());
        }
        let at = At {
            project,
            instance,
            now_micros: i64::from_le_bytes(now),
            engine_work: flags & FLAG_WORK != 0,
        };
        Ok(Record { at, command })
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
                outcome.status.map_err(|e| e.message().to_string())
            }
            Command::Json(line) => {
                let answer = api::answer_traced(db, line, &mut Traces::off());
                if answer.ok { Ok(()) } else { Err(answer.line) }
            }
        }
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
            let r = Record { at: at(), command };
            assert_eq!(Record::decode(&r.encode()).unwrap(), r);
        }
    }

    #[test]
    fn damaged_payloads_are_refused() {
        let bytes = Record {
            at: at(),
            command: Command::Cbt(vec![b"set".to_vec()]),
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
        };
        set.replay(&mut db).unwrap();
        db.set_now(1_700_000_000_500_000);
        let line = r#"{"method": "mutateRow", "request": {"tableName": "projects/tabletop/instances/playground/tables/t", "rowKey": "cg==", "mutations": [{"setCell": {"familyName": "cf", "columnQualifier": "cg==", "timestampMicros": "-1", "value": "dw=="}}]}}"#;
        let json = Record {
            at: At::of(&db, true),
            command: Command::Json(line.into()),
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
        };
        assert!(bad.replay(&mut again).is_err());
    }
}
