//! The playground's state as text, for share links (the URL fragment) and
//! autosave (localStorage).
//!
//! # Format
//!
//! `v1.` followed by the base64url (no padding) of the raw DEFLATE of a
//! JSON object. The prefix names the format version: a later version gets
//! a new prefix and this decoder stays, so links made today keep opening.
//! Fields of the JSON object (all optional; unknown ones are ignored, so a
//! newer app can add fields that older links lack):
//!
//! - `tables`: the tables as Bigtable `createTable` request bodies in
//!   proto3 JSON (`tableId`, `table.columnFamilies`, `initialSplits`), the
//!   format the admin API itself defines;
//! - `loads`: the data generator runs, in order (`table`, `rows`, `seed`);
//! - `generator`: the generator form's settings;
//! - `snapshot`: the whole instance as `Instance::snapshot()` bytes in
//!   base64, only when small (rows typed by hand travel this way); the
//!   tables' recorded traffic is in it only while the snapshot with it
//!   stays under the same limit, else it is left out
//!   (`snapshot_without_traffic()`);
//! - `layout`, `selected`, `tab`, `input`: the screen;
//! - `history`: console history (autosave only, never in links);
//! - `sim`: the simulation (added within v1: older links simply lack it):
//!   `scenario` (a shipped file's name) or `design` (the edited design as
//!   scenario TOML), `source`, `seconds` run, `speed`, `keyviz` (`metric`,
//!   `scale`, `mode`, `zoom`, `table`) and `tablets` (which view);
//! - `live`: the live Key Visualizer (added within v1): `view` (`live` or
//!   `simulation`, when the person picked one), `active` (operations had
//!   been run on a real table) and `keyviz` (as the simulation's);
//! - `home` and `replaced` (autosave only, added within v1): the user's own
//!   work set aside while a lesson holds the playground, and the work the
//!   last snapshot import or link replaced (kept for an undo), each as
//!   `{"why": {"lesson": id} | {"replaced": what}, "work": <state>}` where
//!   the work is an object of this same format (its screen fields unused);
//! - `link` (autosave only): a hash of the share link written at the same
//!   moment, so a reload can tell its own link from someone else's;
//! - `emulator_parity` (added within v1; only when true): the instance
//!   answers as Google's Bigtable emulator does where it differs from
//!   production (the CLI's `--emulator-parity`).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tabletop_core::{CreateTableRequest, Instance, api};

use crate::state::generator::GeneratorSpec;
use crate::state::layout::Layout;
use crate::view_model::schema::create_table_line;

/// The prefix of version 1.
pub const V1_PREFIX: &str = "v1.";
/// Largest instance (logical bytes of all tables) whose snapshot goes into
/// a share link.
pub const LINK_SNAPSHOT_BYTES: u64 = 48 * 1024;
/// Largest instance whose snapshot goes into autosave.
pub const SAVE_SNAPSHOT_BYTES: u64 = 768 * 1024;
/// Longest encoded text accepted (a guard against pasted garbage).
pub const MAX_ENCODED: usize = 8 * 1024 * 1024;

/// Everything a link or an autosave holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SharedState {
    /// Tables as `createTable` request bodies.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<Value>,
    /// Generator runs, in the order they were made.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loads: Vec<GeneratorSpec>,
    /// The generator form.
    pub generator: GeneratorSpec,
    /// The whole instance, base64 snapshot bytes, when small.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// Panel sizes.
    pub layout: Layout,
    /// The selected table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected: Option<String>,
    /// The console tab (`cbt`, `json` or `sql`).
    pub tab: String,
    /// What was typed in the console's cbt, JSON and SQL tabs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub input: Vec<String>,
    /// Console history as `[tab, command]` pairs (autosave only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<(String, String)>,
    /// The simulation: its design, progress, speed and Key Visualizer
    /// settings (absent in links made before it existed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim: Option<crate::state::sim::SimShared>,
    /// The live Key Visualizer: the view picked, whether the person had
    /// worked on a real table, and the live map's settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<crate::state::live::LiveShared>,
    /// The A/B view's two designs and map settings (absent in links made
    /// before it existed, and when they are the defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ab: Option<crate::state::ab::AbShared>,
    /// The user's own work, set aside while a lesson runs (autosave only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub home: Option<Box<SharedAside>>,
    /// The work the last snapshot import or link replaced, kept for an
    /// undo (autosave only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<Box<SharedAside>>,
    /// [`link_hash`] of the share link written together with this autosave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// The instance answers as Google's emulator does (added within v1:
    /// absent, and false, in older links). A snapshot carries it too; this
    /// field keeps it when the rows are too big to travel.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub emulator_parity: bool,
    /// How many changes made by hand the snapshot holds beyond what the
    /// tables and loads rebuild (see `AppState::hand_changes`; added within
    /// v1: absent, and zero, in older links and in states without a
    /// snapshot).
    #[serde(skip_serializing_if = "is_zero")]
    pub hand_changes: u64,
    /// The writes made by hand since the last data load, to run again after
    /// the loads when there is no snapshot (autosave only; absent when it
    /// does not hold every change made by hand).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hand_log: Vec<crate::state::hand_log::HandWrite>,
}

/// Whether a count is zero (left out of the text).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Why work was set aside.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Why {
    /// A lesson (its id) holds the playground; the work comes back when
    /// the learner leaves it.
    Lesson(String),
    /// Something replaced the work (what, in words: "the snapshot
    /// `x.tabletop`", "a shared link"); it comes back on undo.
    Replaced(String),
}

/// Work set aside, as autosave keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharedAside {
    /// Why it was set aside.
    pub why: Why,
    /// The work: tables, rows (when small), loads, selection, design.
    pub work: SharedState,
}

/// A short fingerprint of a share link's text (FNV-1a, 64 bits, in hex):
/// enough to recognise the page's own link after a reload.
pub fn link_hash(text: &str) -> String {
    let text = text.trim().trim_start_matches('#');
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// Why a text could not be read as a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Encodes a state as `v1.<base64url(deflate(json))>`.
pub fn encode(state: &SharedState) -> String {
    let json = serde_json::to_vec(state).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    let mut text = String::from(V1_PREFIX);
    text.extend(api::encode_base64(&packed).chars().filter_map(|c| match c {
        '+' => Some('-'),
        '/' => Some('_'),
        '=' => None,
        c => Some(c),
    }));
    text
}

/// Decodes what [`encode`] made, with or without a leading `#`.
pub fn decode(text: &str) -> Result<SharedState, DecodeError> {
    let text = text.trim().trim_start_matches('#');
    if text.len() > MAX_ENCODED {
        return Err(DecodeError(
            "the link is too long to be a Tabletop state".into(),
        ));
    }
    let Some(body) = text.strip_prefix(V1_PREFIX) else {
        return Err(DecodeError(match text.split_once('.') {
            Some((version, _)) if version.starts_with('v') => format!(
                "this link was made by a newer Tabletop (format {version}); this one reads v1"
            ),
            _ => "this is not a Tabletop link (it should start with v1.)".into(),
        }));
    };
    let packed = api::decode_base64(body)
        .map_err(|e| DecodeError(format!("the link is damaged: {}", e.message())))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, 64 * 1024 * 1024)
        .map_err(|_| DecodeError("the link is damaged: its data does not unpack".into()))?;
    serde_json::from_slice(&json)
        .map_err(|e| DecodeError(format!("the link's data is not a Tabletop state: {e}")))
}

/// The tables of `instance` as `createTable` request bodies.
pub fn table_requests(instance: &mut Instance) -> Vec<Value> {
    let parent = instance.name();
    instance
        .list_tables()
        .into_iter()
        .filter_map(|info| {
            let request = CreateTableRequest {
                table_id: info.id,
                schema: info.schema,
                initial_splits: info.initial_splits,
            };
            let line: Value = serde_json::from_str(&create_table_line(&parent, &request)).ok()?;
            let mut body = line.get("request")?.clone();
            // The parent is the one instance's; links leave it out.
            body.as_object_mut()?.remove("parent");
            // A change stream is set on createTable too (Table.changeStreamConfig).
            if let Some(c) = info.change_stream {
                body["table"]["changeStreamConfig"] =
                    json!({ "retentionPeriod": retention_period(c.retention_micros) });
            }
            Some(body)
        })
        .collect()
}

/// A retention in microseconds as a proto3 JSON Duration (`"86400s"`,
/// `"86400.5s"`).
fn retention_period(micros: i64) -> String {
    let (secs, frac) = (micros / 1_000_000, micros % 1_000_000);
    if frac == 0 {
        format!("{secs}s")
    } else {
        format!("{secs}.{frac:06}s")
    }
}

/// The snapshot of `instance` in base64, when its tables hold at most
/// `max_bytes`. The tables' traffic (what the live Key Visualizer draws)
/// rides along only while the whole snapshot stays within `max_bytes`:
/// whether the rows travel never depends on it, the traffic goes first.
pub fn small_snapshot(instance: &mut Instance, max_bytes: u64) -> Option<String> {
    let bytes: u64 = instance.list_tables().iter().map(|t| t.bytes).sum();
    if bytes > max_bytes {
        return None;
    }
    let with_traffic = instance.snapshot();
    let chosen = if with_traffic.len() as u64 <= max_bytes {
        with_traffic
    } else {
        instance.snapshot_without_traffic()
    };
    Some(api::encode_base64(&chosen))
}

/// The snapshot of `instance` in base64 without the tables' traffic, when
/// its tables hold at most `max_bytes` (autosave falls back to it when the
/// browser's storage is full, before it gives up the rows).
pub fn snapshot_without_traffic(instance: &mut Instance, max_bytes: u64) -> Option<String> {
    let bytes: u64 = instance.list_tables().iter().map(|t| t.bytes).sum();
    (bytes <= max_bytes).then(|| api::encode_base64(&instance.snapshot_without_traffic()))
}

/// Creates the tables of a shared state in `instance` (through the JSON
/// protocol, exactly as a `createTable` request would), returning the
/// core's error messages for any that failed.
pub fn create_tables(instance: &mut Instance, tables: &[Value]) -> Vec<String> {
    let parent = instance.name();
    let mut errors = Vec::new();
    for body in tables {
        let mut body = body.clone();
        if let Some(object) = body.as_object_mut() {
            object.insert("parent".into(), json!(parent));
        }
        let line = api::to_line(&json!({ "method": "createTable", "request": body }));
        let answer: Value = serde_json::from_str(&api::handle(instance, &line)).unwrap_or_default();
        if let Some(message) = answer.pointer("/error/message").and_then(Value::as_str) {
            errors.push(message.to_string());
        }
    }
    errors
}

/// Restores the instance a shared state's snapshot holds.
pub fn restore_snapshot(encoded: &str) -> Result<Instance, String> {
    let bytes = api::decode_base64(encoded).map_err(|e| e.message().to_string())?;
    Instance::restore(&bytes).map_err(|e| e.message().to_string())
}

#[cfg(test)]
mod tests {
    use tabletop_core::cbt;

    use super::*;

    fn sample() -> SharedState {
        let mut db = Instance::default();
        cbt::run_line(
            &mut db,
            "createtable mobile families=stats_summary:maxversions=1,stats_detail splits=phone,tablet",
        )
        .unwrap();
        cbt::run_line(&mut db, "createfamily mobile counts:never:intsum").unwrap();
        SharedState {
            tables: table_requests(&mut db),
            loads: vec![GeneratorSpec {
                table: "mobile".into(),
                rows: 1000,
                seed: 3,
            }],
            generator: GeneratorSpec::default(),
            snapshot: None,
            layout: Layout {
                left: 333,
                ..Layout::default()
            },
            selected: Some("mobile".into()),
            tab: "json".into(),
            input: vec!["read mobile".into(), String::new()],
            history: Vec::new(),
            sim: None,
            ..SharedState::default()
        }
    }

    #[test]
    fn states_round_trip_through_text() {
        let state = sample();
        let text = encode(&state);
        assert!(text.starts_with("v1."));
        assert!(
            text[3..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
            "{text}"
        );
        assert_eq!(decode(&text).unwrap(), state);
        assert_eq!(decode(&format!("#{text}")).unwrap(), state);
    }

    #[test]
    fn tables_come_back_with_families_types_and_splits() {
        let state = sample();
        let mut db = Instance::default();
        assert_eq!(create_tables(&mut db, &state.tables), Vec::<String>::new());
        let info = db.get_table("mobile").unwrap();
        let families: Vec<String> = info
            .schema
            .families
            .iter()
            .map(|(n, f)| format!("{n}:{:?}:{:?}", f.gc_rule, f.value_type))
            .collect();
        assert_eq!(
            families,
            [
                "counts:None:Aggregate(Sum)",
                "stats_detail:None:Bytes",
                "stats_summary:Some(MaxNumVersions(1)):Bytes"
            ]
        );
        assert_eq!(info.initial_splits, [b"phone".to_vec(), b"tablet".to_vec()]);
        // Creating them again reports the core's message.
        let errors = create_tables(&mut db, &state.tables);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains("already exists"), "{errors:?}");
    }

    #[test]
    fn a_change_stream_comes_back_with_its_table() {
        let mut db = Instance::default();
        let line = r#"{"method": "createTable", "request": {"parent": "projects/tabletop/instances/playground", "tableId": "orders", "table": {"columnFamilies": {"cf": {}}, "changeStreamConfig": {"retentionPeriod": "86400.5s"}}}}"#;
        assert!(api::handle(&mut db, line).contains("response"));
        cbt::run_line(&mut db, "createtable plain families=cf").unwrap();
        let tables = table_requests(&mut db);
        let mut back = Instance::default();
        assert_eq!(create_tables(&mut back, &tables), Vec::<String>::new());
        assert_eq!(
            back.get_table("orders").unwrap().change_stream,
            db.get_table("orders").unwrap().change_stream
        );
        assert!(back.get_table("orders").unwrap().change_stream.is_some());
        assert_eq!(back.get_table("plain").unwrap().change_stream, None);
        assert_eq!(retention_period(86_400_000_000), "86400s");
    }

    #[test]
    fn the_parity_setting_travels_only_when_on() {
        let mut state = sample();
        assert!(!encode(&state).is_empty());
        let off = serde_json::to_string(&state).unwrap();
        assert!(!off.contains("emulator_parity"), "{off}");
        state.emulator_parity = true;
        let back = decode(&encode(&state)).unwrap();
        assert!(back.emulator_parity);
        // A link from before the setting answers as production.
        let old: SharedState = serde_json::from_str(&off).unwrap();
        assert!(!old.emulator_parity);
    }

    #[test]
    fn small_instances_travel_as_snapshots() {
        let mut db = Instance::default();
        db.set_now(1_600_000_000_000_000);
        cbt::run_line(&mut db, "createtable t families=cf").unwrap();
        cbt::run_line(&mut db, "set t 'a<b' cf:q=v").unwrap();
        let encoded = small_snapshot(&mut db, LINK_SNAPSHOT_BYTES).unwrap();
        let mut back = restore_snapshot(&encoded).unwrap();
        assert_eq!(
            cbt::run_line(&mut back, "read t").unwrap(),
            cbt::run_line(&mut db, "read t").unwrap()
        );
        assert_eq!(small_snapshot(&mut db, 10), None);
        assert!(restore_snapshot("AAAA").is_err());
    }

    #[test]
    fn bad_texts_say_what_is_wrong() {
        assert!(
            decode("hello")
                .unwrap_err()
                .0
                .contains("not a Tabletop link")
        );
        assert!(decode("v2.abc").unwrap_err().0.contains("newer Tabletop"));
        assert!(decode("v1.!!!").unwrap_err().0.contains("damaged"));
        assert!(decode("v1.AAAA").unwrap_err().0.contains("damaged"));
        // Valid deflate of something that is not a state.
        let packed = miniz_oxide::deflate::compress_to_vec(b"[1,2]", 6);
        let text = format!("v1.{}", api::encode_base64(&packed).trim_end_matches('='));
        assert!(
            decode(&text)
                .unwrap_err()
                .0
                .contains("not a Tabletop state")
        );
        // Unknown fields are ignored; missing ones take defaults.
        let packed = miniz_oxide::deflate::compress_to_vec(br#"{"future": 1, "tab": "json"}"#, 6);
        let text = format!("v1.{}", api::encode_base64(&packed).trim_end_matches('='));
        let state = decode(&text).unwrap();
        assert_eq!(state.tab, "json");
        assert_eq!(state.layout, Layout::default());
    }

    /// A link made by version 1 of the app, frozen here forever: however
    /// the app changes, this link must keep opening into this state. (It
    /// holds a table `mobile` with three families, one of them an int64
    /// sum, split at `phone` and `tablet`; a generator load of 1,000 rows;
    /// a wider Schema panel; the JSON tab.)
    const FROZEN_V1_LINK: &str = "v1.VVDLbsJADPyVyucgBdJSCalXUC899MGlQpWTuMHtPtDGSxuh_Hu9CVA4xZ7MzM74AIKloRYW7wdgx8JoXnaGZUS-qYMFVKvtvrRvD9BnJ6heLblcrXPoN9loAYsDVN5E65Zo2XDyTEh0Mkx7NJFeu91AxKYJ1KCcAXa7KP-LzG-PS99n0EY7TMMsKO1HTYJsEnhClGMxdEneVM9xzGPx9ynaNYWWvdMU09FjyPtYaw3rS1ZqKmE81mPpY53TzwyC_0niPM_1NSIVFknRkKOA4kN66lo0EbY0aSmkM1wanB2mmsNg56MktaFP_RZFoVxutjrP5kotvYjX7rP7_Jg63XJ6l6faZKgSqi-DKkXXr9Y7XYaTaiEIhPXNmQOb_g8";

    #[test]
    fn a_frozen_v1_link_keeps_working() {
        let state = decode(FROZEN_V1_LINK).expect("old links keep decoding");
        assert_eq!(
            serde_json::to_value(&state.tables).unwrap(),
            json!([{
                "tableId": "mobile",
                "initialSplits": [{"key": "cGhvbmU="}, {"key": "dGFibGV0"}],
                "table": {"columnFamilies": {
                    "counts": {"valueType": {"aggregateType": {"inputType": {"int64Type": {}}, "sum": {}}}},
                    "stats_detail": {},
                    "stats_summary": {"gcRule": {"maxNumVersions": 1}},
                }},
            }])
        );
        assert_eq!(
            state.loads,
            [GeneratorSpec {
                table: "mobile".into(),
                rows: 1000,
                seed: 3
            }]
        );
        assert_eq!(state.generator, GeneratorSpec::default());
        assert_eq!(
            state.layout,
            Layout {
                left: 333,
                right: 260,
                bottom: 270,
                tablets: 150
            }
        );
        assert_eq!(state.selected.as_deref(), Some("mobile"));
        assert_eq!(state.tab, "json");
        assert_eq!(state.input, ["read mobile", ""]);
        assert_eq!(state.snapshot, None);
        assert!(state.history.is_empty());
        // And the tables it describes are created as they were.
        let mut db = Instance::default();
        assert!(create_tables(&mut db, &state.tables).is_empty());
        let info = db.get_table("mobile").unwrap();
        assert_eq!(info.schema.families.len(), 3);
        assert_eq!(info.initial_splits, [b"phone".to_vec(), b"tablet".to_vec()]);
    }

    /// A link the app made (the demo table with its rows, a wider Key
    /// Visualizer, a console command typed) just before the simulation
    /// added its field: it must open exactly as it did then.
    const FROZEN_PRE_SIM_LINK: &str = "v1.rVNdb5swFP0rFc-tREKylkh9MIFQspgOkkCgqiYDDphgQHwUkij_fXZbrenWTX0oFvKxfHzvuUc6R6FBQYZrYfJwfIHC5CiERdbSfIYoyQi_Owp1g5r6Z4QbRDJ-jkO7feFS1JstdXBVkyJnXOl0unyl1y2lqNr_nz84nfiL595GJEwEWgQkw1cNofiqxhUXcHq8FGKc4wo1RcWLvCr9iHspVEXH64rsY0owjngThnJU1knRsGeONoeOJltrcaRM7-zEo30W6XI3zZXa22R5SOVBQJeLQ711lG4K4h_flXhEZ0oxBYD9U-N5t3K8QwrQloErE-T22WJjl4G7bsKhs0eucwBxf4j0mRgO5J2_sRPkdgBY0AwlO4nuzG0oOU3gzvbYAgqwAFCUqEO63PpLKHoHq4fqeg_5Uo2O4Q5aFlCp-RTQceZJdubP5NR3-zo21H3s3c8Ty1OgBe69odwG1Ekj3dltpKj0KX2bIdZ6YCVPTBOJ3Kz22Sw3ha4Sb62rA8WGO62Fq11nqmCwSEFnAs0IJHPr5U4Z6EtwYy69bwZhdZh_q7mySLUxVK3OXI6YRrgJ9YTpW6emDkW4AgOY8gXYDAyrhgrAOA2G49Z3TdF37a03dOrgTANYaX_OKCHXL9_P-F7T22wfabLc35pcyDzVOkjOPYVf4Wn3SU977ilMEtFz57W_sVJvpZB7dUbNg3Xmk_YJn8DX-US4T1NbU13DFPFg2t3esiBlaF-0Dc9bhrdsl3igKhInDI-GDAdF0xRUmAyvxdcENzx51yKPG85w2ODoXylldHYVBg3DJC95nwehwii6-Jt-UVZ4S_rbMilyzPjC4-kX";

    #[test]
    fn a_link_from_before_the_simulation_opens_unchanged() {
        let state = decode(FROZEN_PRE_SIM_LINK).expect("old links keep decoding");
        assert_eq!(state.sim, None, "no simulation in it");
        assert_eq!(
            serde_json::to_value(&state.tables).unwrap(),
            json!([{
                "tableId": "mobile-time-series",
                "table": {"columnFamilies": {
                    "stats_detail": {"gcRule": {"maxNumVersions": 3}},
                    "stats_summary": {"gcRule": {"maxNumVersions": 1}},
                }},
            }])
        );
        assert_eq!(
            state.layout,
            Layout {
                left: 300,
                right: 420,
                bottom: 270,
                tablets: 170
            }
        );
        assert_eq!(state.selected.as_deref(), Some("mobile-time-series"));
        assert_eq!(state.tab, "cbt");
        assert_eq!(state.input, ["read mobile-time-series prefix=phone", ""]);
        assert!(state.loads.is_empty() && state.history.is_empty());
        // Its rows travel as a snapshot: the demo's four rows.
        let mut db = restore_snapshot(state.snapshot.as_deref().unwrap()).unwrap();
        let out = cbt::run_line(&mut db, "count mobile-time-series").unwrap();
        assert!(out.trim_end().ends_with('4'), "{out}");
        // Encoding it again gives the same text: nothing was added.
        assert_eq!(encode(&state), FROZEN_PRE_SIM_LINK);
    }

    #[test]
    fn traffic_travels_while_small_and_gives_way_to_the_rows() {
        let mut db = Instance::default();
        cbt::run_line(&mut db, "createtable t families=cf").unwrap();
        let t0 = 1_700_000_000_000_000;
        db.set_now(t0);
        cbt::run_line(&mut db, "set t r cf:q=v").unwrap();
        let rows = |db: &mut Instance| {
            let mut count = tabletop_core::CountRows::default();
            db.read_rows("t", &tabletop_core::ReadRowsRequest::default(), &mut count)
                .unwrap();
            count.rows
        };
        let small = small_snapshot(&mut db, LINK_SNAPSHOT_BYTES).unwrap();
        let back = restore_snapshot(&small).unwrap();
        assert!(!back.traffic("t").unwrap().is_empty(), "small: it travels");
        // Reads of many keys over many ten-second buckets: a log far
        // bigger than the one row.
        for b in 0..300 {
            db.set_now(t0 + b * 10_000_000);
            for k in 0..100 {
                db.read_row("t", format!("k{b:03}-{k:03}").as_bytes(), None)
                    .unwrap();
            }
        }
        assert!(db.snapshot().len() as u64 > LINK_SNAPSHOT_BYTES);
        let link = small_snapshot(&mut db, LINK_SNAPSHOT_BYTES).expect("the rows still travel");
        let mut back = restore_snapshot(&link).unwrap();
        assert!(
            back.traffic("t").unwrap().is_empty(),
            "the traffic stays home"
        );
        assert_eq!(rows(&mut back), 1);
        assert!(link.len() < small.len() * 2, "{} bytes", link.len());
        // Autosave's larger limit keeps it while it fits.
        let saved = small_snapshot(&mut db, SAVE_SNAPSHOT_BYTES).unwrap();
        let back = restore_snapshot(&saved).unwrap();
        assert_eq!(
            back.traffic("t").unwrap().buckets().count(),
            db.traffic("t").unwrap().buckets().count()
        );
        let bare = snapshot_without_traffic(&mut db, SAVE_SNAPSHOT_BYTES).unwrap();
        assert!(
            restore_snapshot(&bare)
                .unwrap()
                .traffic("t")
                .unwrap()
                .is_empty()
        );
    }
}
