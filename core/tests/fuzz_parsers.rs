//! Seeded fuzzing of every text parser a user can reach: the JSON
//! protocol, `cbt` (its command lines, and the CSV files and format files
//! it reads), SQL, the scenario TOML, Oracle DDL and DynamoDB JSON.
//!
//! Each target takes a small corpus of valid inputs from the repository's
//! own examples and mutates them with a seeded generator, aware of tokens:
//! byte flips, token deletion, duplication and insertion (huge numbers,
//! unicode, NUL bytes, very long tokens, deep nesting), splices of two
//! inputs and truncation. Every input must be answered with a result or a
//! clean error, never a panic; for the JSON protocol and `cbt` a request
//! answered with an error must leave the instance as it was.
//!
//! The count per target is small enough for `cargo test`; set
//! `TABLETOP_FUZZ_ITERS` (iterations per target) and `TABLETOP_FUZZ_SEED`
//! to run longer or to replay. Native only: it catches panics to report
//! the input that caused them.
#![cfg(not(target_arch = "wasm32"))]

use std::panic::{AssertUnwindSafe, catch_unwind};

use tabletop_core::cbt::{self, MemFiles};
use tabletop_core::sim::Scenario;
use tabletop_core::translate::{self, Options};
use tabletop_core::{Instance, InstanceConfig, api, sql};

/// xorshift64*: small, seeded, the same on every platform.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

fn iterations(default: usize) -> usize {
    std::env::var("TABLETOP_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn seed() -> u64 {
    std::env::var("TABLETOP_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x7AB1_E70F)
}

/// Tokens a mutation may insert: edge-case numbers, unicode, control
/// characters, punctuation the grammars care about.
const INSERTS: &[&str] = &[
    "99999999999999999999",
    "18446744073709551616",
    "9223372036854775808",
    "-9223372036854775809",
    "-1",
    "0",
    "1e400",
    "NaN",
    "0x",
    "\0",
    "\u{FFFD}",
    "é",
    "😀",
    "\u{202E}",
    "\"",
    "'",
    "`",
    "\\",
    "\\u0000",
    "\\ud800",
    "=",
    ":",
    ",",
    ";",
    "@",
    "#",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "\n",
    "\t",
    " ",
    "null",
    "true",
    "{}",
    "[]",
    "\"\"",
    "SELECT",
    "FROM",
    "WHERE",
    "LIMIT",
    "CAST",
    "CREATE",
    "TABLE",
    "[[",
    "]]",
    "=[",
    "*",
    "%",
    "..",
    "/",
];

/// Splits text into tokens: runs of letters, digits and `_`, runs of
/// spaces, and single other characters.
fn tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            1
        } else if c == ' ' {
            2
        } else {
            0
        }
    };
    let mut last = 0;
    for c in text.chars() {
        let k = class(c);
        match out.last_mut() {
            Some(t) if k != 0 && k == last => t.push(c),
            _ => out.push(c.to_string()),
        }
        last = k;
    }
    out
}

fn nesting(rng: &mut Rng) -> String {
    let open = rng.pick(&["[", "{", "(", "[[", "{\"a\":", "(SELECT ", "NOT ", "-"]);
    let depth = [8, 64, 300, 3000][rng.below(4)];
    open.repeat(depth)
}

fn long_token(rng: &mut Rng) -> String {
    let unit = rng.pick(&["a", "9", "é", "\0", "😀", "%"]);
    unit.repeat([100, 5000, 70_000][rng.below(3)])
}

/// One mutation of `input`, with `other` for splicing.
fn mutate_once(rng: &mut Rng, input: &str, other: &str) -> String {
    let mut t = tokens(input);
    match rng.below(10) {
        0 => {
            // A bit flip in the bytes, read back leniently.
            let mut bytes = input.as_bytes().to_vec();
            if !bytes.is_empty() {
                let i = rng.below(bytes.len());
                bytes[i] ^= 1 << rng.below(8);
            }
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        1 if !t.is_empty() => {
            let i = rng.below(t.len());
            t.remove(i);
        }
        2 if !t.is_empty() => {
            let i = rng.below(t.len());
            let n = 1 + rng.below(3);
            for _ in 0..n {
                t.insert(i, t[i].clone());
            }
        }
        3 => {
            let i = rng.below(t.len() + 1);
            t.insert(i, rng.pick(INSERTS).to_string());
        }
        4 => {
            // Splice: a prefix of this input and a suffix of the other.
            let o = tokens(other);
            let a = rng.below(t.len() + 1);
            let b = rng.below(o.len() + 1);
            t.truncate(a);
            t.extend_from_slice(&o[b..]);
        }
        5 => {
            let n = rng.below(t.len() + 1);
            t.truncate(n);
        }
        6 => {
            // A number token becomes a huge or odd one.
            let numbers: Vec<usize> = (0..t.len())
                .filter(|&i| t[i].starts_with(|c: char| c.is_ascii_digit()))
                .collect();
            if !numbers.is_empty() {
                let i = numbers[rng.below(numbers.len())];
                t[i] = rng.pick(&INSERTS[..8]).to_string();
            }
        }
        7 => {
            let i = rng.below(t.len() + 1);
            t.insert(i, nesting(rng));
        }
        8 => {
            let i = rng.below(t.len() + 1);
            t.insert(i, long_token(rng));
        }
        _ if t.len() >= 2 => {
            // Swap two tokens.
            let i = rng.below(t.len());
            let j = rng.below(t.len());
            t.swap(i, j);
        }
        _ => {}
    }
    t.concat()
}

/// Applies one to four mutations to a corpus entry.
fn generate(rng: &mut Rng, corpus: &[&str]) -> String {
    let mut s = rng.pick(corpus).to_string();
    for _ in 0..1 + rng.below(4) {
        let other = rng.pick(corpus);
        s = mutate_once(rng, &s, other);
    }
    s
}

/// Runs `check` on `n` generated inputs; a panic is reported with the
/// target, seed, iteration and input, then fails the test.
fn run(target: &str, default_iters: usize, corpus: &[&str], mut check: impl FnMut(&str)) {
    let n = iterations(default_iters);
    let seed = seed();
    let mut rng = Rng::new(seed ^ (target.len() as u64 * 0x9E37_79B9));
    let start = std::time::Instant::now();
    // The corpus itself first: valid inputs must pass the same checks.
    for (i, input) in corpus
        .iter()
        .map(|s| s.to_string())
        .chain(std::iter::from_fn(|| Some(generate(&mut rng, corpus))))
        .take(corpus.len() + n)
        .enumerate()
    {
        if catch_unwind(AssertUnwindSafe(|| check(&input))).is_err() {
            let shown: String = input.chars().take(2000).collect();
            panic!("{target}: input {i} (seed {seed}) panicked: {shown:?}");
        }
    }
    println!(
        "fuzz {target}: {n} inputs, seed {seed}, {:?}",
        start.elapsed()
    );
}

fn instance() -> (Instance, MemFiles) {
    let config = InstanceConfig {
        project: "p".into(),
        instance: "i".into(),
        ..InstanceConfig::default()
    };
    let mut db = Instance::new(config);
    db.set_now(1_600_000_000_000_000);
    let mut files = MemFiles::default();
    files.insert("data.csv", ",cf,,agg\n,a,b,c\nr1,x,y,1\nr2,,z,\n");
    for line in [
        "createtable t families=cf:maxversions=2,agg:never:intsum splits=m",
        "set t r1 cf:a=1@1000 cf:a=2@2000 cf:b=x@1000",
        "set t r2 cf:a=3@1000",
        "addtocell t r1 agg:n=5@1000",
    ] {
        let out = cbt::exec_line(&mut db, line, &mut files);
        assert!(out.status.is_ok(), "{line}: {:?}", out.status);
    }
    (db, files)
}

const TABLE: &str = "projects/p/instances/i/tables/t";

const API_CORPUS: &[&str] = &[
    r#"{"method":"createTable","request":{"parent":"projects/p/instances/i","tableId":"u","initialSplits":[{"key":"bQ=="}],"table":{"columnFamilies":{"cf":{"gcRule":{"union":{"rules":[{"maxNumVersions":2},{"maxAge":"60s"}]}}},"s":{"valueType":{"aggregateType":{"inputType":{"int64Type":{}},"sum":{}}}}}}}}"#,
    r#"{"method":"getTable","request":{"name":"projects/p/instances/i/tables/t","view":"FULL"}}"#,
    r#"{"method":"listTables","request":{"parent":"projects/p/instances/i","pageSize":1}}"#,
    r#"{"method":"modifyColumnFamilies","request":{"name":"projects/p/instances/i/tables/t","modifications":[{"id":"n","create":{}},{"id":"cf","update":{"gcRule":{"maxAge":"1s"}}}]}}"#,
    r#"{"method":"dropRowRange","request":{"name":"projects/p/instances/i/tables/t","rowKeyPrefix":"YQ=="}}"#,
    r#"{"method":"mutateRow","request":{"tableName":"projects/p/instances/i/tables/t","rowKey":"YQ==","mutations":[{"setCell":{"familyName":"cf","columnQualifier":"cQ==","timestampMicros":"-1","value":"dg=="}},{"addToCell":{"familyName":"agg","columnQualifier":{"rawValue":"cQ=="},"timestamp":{"rawTimestampMicros":"0"},"input":{"intValue":"1"}}},{"deleteFromColumn":{"familyName":"cf","columnQualifier":"cQ==","timeRange":{"startTimestampMicros":"0"}}}]}}"#,
    r#"{"method":"mutateRows","request":{"tableName":"projects/p/instances/i/tables/t","entries":[{"rowKey":"YQ==","mutations":[{"deleteFromRow":{}}]},{"rowKey":"Yg==","mutations":[{"setCell":{"familyName":"cf","value":"dg=="}}]}]}}"#,
    r#"{"method":"checkAndMutateRow","request":{"tableName":"projects/p/instances/i/tables/t","rowKey":"cjE=","predicateFilter":{"chain":{"filters":[{"familyNameRegexFilter":"cf"},{"cellsPerColumnLimitFilter":1}]}},"trueMutations":[{"deleteFromFamily":{"familyName":"cf"}}],"falseMutations":[{"setCell":{"familyName":"cf","value":"dg=="}}]}}"#,
    r#"{"method":"readModifyWriteRow","request":{"tableName":"projects/p/instances/i/tables/t","rowKey":"YQ==","rules":[{"familyName":"cf","columnQualifier":"bg==","incrementAmount":"1"},{"familyName":"cf","appendValue":"eA=="}]}}"#,
    r#"{"method":"readRows","request":{"tableName":"projects/p/instances/i/tables/t","rows":{"rowKeys":["YQ=="],"rowRanges":[{"startKeyOpen":"YQ==","endKeyClosed":"eg=="}]},"filter":{"condition":{"predicateFilter":{"valueRangeFilter":{"startValueClosed":"YQ=="}},"trueFilter":{"stripValueTransformer":true},"falseFilter":{"interleave":{"filters":[{"timestampRangeFilter":{"startTimestampMicros":"0","endTimestampMicros":"5000"}},{"rowSampleFilter":0.5}]}}}},"rowsLimit":"3","reversed":true}}"#,
    r#"{"method":"readRows","request":{"tableName":"projects/p/instances/i/tables/t","filter":{"rowKeyRegexFilter":"cjE="}}}"#,
    r#"{"method":"sampleRowKeys","request":{"tableName":"projects/p/instances/i/tables/t"}}"#,
    r#"{"method":"compact","request":{"tableName":"projects/p/instances/i/tables/t"}}"#,
    r#"{"method":"advanceClock","request":{"seconds":1.5}}"#,
    r#"{"method":"listTablets","request":{"tableName":"projects/p/instances/i/tables/t"}}"#,
    // Change streams: on, its partitions, a read by time and by token, off.
    r#"{"method":"updateTable","request":{"table":{"name":"projects/p/instances/i/tables/t","changeStreamConfig":{"retentionPeriod":"86400s"}},"updateMask":"changeStreamConfig"}}"#,
    r#"{"method":"generateInitialChangeStreamPartitions","request":{"tableName":"projects/p/instances/i/tables/t"}}"#,
    r#"{"method":"readChangeStream","request":{"tableName":"projects/p/instances/i/tables/t","partition":{"rowRange":{"startKeyClosed":"","endKeyOpen":""}},"startTime":"2020-09-13T12:26:40Z","endTime":"2020-09-13T12:27:40.5Z","heartbeatDuration":"5s"}}"#,
    r#"{"method":"readChangeStream","request":{"tableName":"projects/p/instances/i/tables/t","partition":{"rowRange":{}},"continuationTokens":{"tokens":[{"partition":{"rowRange":{}},"token":"cs1.0"}]}}}"#,
    r#"{"method":"updateTable","request":{"table":{"name":"projects/p/instances/i/tables/t"},"updateMask":"change_stream_config"}}"#,
    // Authorized views: create, read through, describe, list, change, delete.
    r#"{"method":"createAuthorizedView","request":{"parent":"projects/p/instances/i/tables/t","authorizedViewId":"v","authorizedView":{"subsetView":{"rowPrefixes":["cg=="],"familySubsets":{"cf":{"qualifiers":["YQ=="],"qualifierPrefixes":[""]}}},"deletionProtection":false}}}"#,
    r#"{"method":"readRows","request":{"authorizedViewName":"projects/p/instances/i/tables/t/authorizedViews/v","rowsLimit":"2","filter":{"cellsPerColumnLimitFilter":1}}}"#,
    r#"{"method":"mutateRow","request":{"authorizedViewName":"projects/p/instances/i/tables/t/authorizedViews/v","rowKey":"cjM=","mutations":[{"setCell":{"familyName":"cf","columnQualifier":"YQ==","value":"dg=="}}]}}"#,
    r#"{"method":"getAuthorizedView","request":{"name":"projects/p/instances/i/tables/t/authorizedViews/v","view":"FULL"}}"#,
    r#"{"method":"listAuthorizedViews","request":{"parent":"projects/p/instances/i/tables/t","pageSize":1,"view":"NAME_ONLY"}}"#,
    r#"{"method":"updateAuthorizedView","request":{"authorizedView":{"name":"projects/p/instances/i/tables/t/authorizedViews/v","subsetView":{"rowPrefixes":["cjE="]},"deletionProtection":true},"updateMask":"subset_view,deletionProtection"}}"#,
    r#"{"method":"deleteAuthorizedView","request":{"name":"projects/p/instances/i/tables/t/authorizedViews/v"}}"#,
    // Logical views: create, query through SQL, describe, list, change, delete.
    r#"{"method":"createLogicalView","request":{"parent":"projects/p/instances/i","logicalViewId":"lv","logicalView":{"query":"SELECT _key, cf['a'] AS a FROM t WHERE _key >= 'r'"}}}"#,
    r#"{"method":"sql","request":{"instanceName":"projects/p/instances/i","query":"SELECT a FROM lv WHERE _key = 'r1' LIMIT 1"}}"#,
    r#"{"method":"getLogicalView","request":{"name":"projects/p/instances/i/logicalViews/lv"}}"#,
    r#"{"method":"listLogicalViews","request":{"parent":"projects/p/instances/i","pageSize":1,"pageToken":""}}"#,
    r#"{"method":"updateLogicalView","request":{"logicalView":{"name":"projects/p/instances/i/logicalViews/lv","query":"SELECT _key FROM t","deletionProtection":true},"updateMask":"query,deletion_protection"}}"#,
    r#"{"method":"deleteLogicalView","request":{"name":"projects/p/instances/i/logicalViews/lv"}}"#,
    r#"{"method":"explain","request":{"tableName":"projects/p/instances/i/tables/t","rows":{"rowRanges":[{"startKeyClosed":"cg=="}]},"filter":{"familyNameRegexFilter":"cf"}}}"#,
    r#"{"method":"deleteTable","request":{"name":"projects/p/instances/i/tables/u"}}"#,
];

/// Every method of the protocol has at least one seed, so a new method
/// is fuzzed from the start.
#[test]
fn every_json_method_has_a_fuzz_seed() {
    for m in api::METHODS {
        let quoted = format!(r#""method":"{}""#, m.name);
        assert!(
            API_CORPUS.iter().any(|seed| seed.contains(&quoted)),
            "no fuzz seed calls {}",
            m.name
        );
    }
}

#[test]
fn fuzz_json_protocol() {
    let (base, _) = instance();
    let mut db = base.clone();
    run("json protocol", 1500, API_CORPUS, |line| {
        let before = db.snapshot_without_traffic();
        let out = api::handle(&mut db, line);
        let answer: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
        assert!(!out.contains('\n'), "{out}");
        if let Some(error) = answer.get("error") {
            let message = error["message"].as_str().unwrap_or("");
            assert!(!message.is_empty(), "an error needs a message: {out}");
            assert_eq!(
                before,
                db.snapshot_without_traffic(),
                "an error changed the instance: {line} -> {out}"
            );
        } else {
            assert!(answer.get("response").is_some(), "{out}");
        }
        // Keep the instance small and its table present.
        if db.list_tables().len() != 1 || line.contains("createTable") {
            db = base.clone();
        }
    });
    // Still usable.
    let out = api::handle(
        &mut db,
        &serde_json::json!({"method": "readRows", "request": {"tableName": TABLE}}).to_string(),
    );
    assert!(out.starts_with(r#"{"response""#), "{out}");
}

const CBT_CORPUS: &[&str] = &[
    "ls",
    "ls t",
    "read t",
    "read t prefix=r count=1 columns=cf:a cells-per-column=1",
    "read t start=r1 end=r3 regex=r.* keys-only=true",
    "lookup t r1 columns=cf",
    "count t",
    "set t r3 cf:a=hello@3000 cf:b=x",
    "addtocell t r1 agg:n=7@1000",
    "deleterow t r2",
    "deletecolumn t r1 cf a",
    "deletefamily t cf2",
    "createfamily t cf2",
    "setgcpolicy t cf maxage=1d or maxversions=3",
    "createtable u families=cf:maxversions=1 splits=a,b",
    "deletetable u",
    "droprowrange t prefix=r",
    "import t data.csv column-family=cf",
    "help read",
    "sql SELECT _key, cf['a'] FROM t WHERE _key >= 'r1' LIMIT 2",
    "createauthorizedview t v families=cf",
    "set t \"r 4\" cf:'q x'=\"v\\\"y\"",
];

#[test]
fn fuzz_cbt() {
    let (base, base_files) = instance();
    let mut db = base.clone();
    let mut files = base_files.clone();
    run("cbt", 1500, CBT_CORPUS, |line| {
        let before = db.snapshot_without_traffic();
        let out = cbt::exec_line(&mut db, line, &mut files);
        match &out.status {
            Err(e) => {
                assert!(!e.message().is_empty(), "{line}: an error needs a message");
                assert!(!out.stderr.is_empty(), "{line}: a failure writes to stderr");
                assert_eq!(out.exit_code(), 1);
                // `import` writes in batches that, as with production's
                // MutateRows, may fail for some rows after others landed.
                let bulk = line.trim_start().starts_with("import");
                assert!(
                    bulk || before == db.snapshot_without_traffic(),
                    "an error changed the instance: {line} -> {:?}",
                    out.stderr_lossy()
                );
            }
            Ok(()) => assert_eq!(out.exit_code(), 0),
        }
        if db.list_tables().len() != 1 {
            db = base.clone();
            files = base_files.clone();
        }
    });
}

/// CSV files for `cbt import`: with and without a family header row,
/// quoting, value-encoded timestamps, aggregate cells, blank cells.
const CSV_CORPUS: &[&str] = &[
    ",cf,,agg\n,a,b,c\nr1,x,y,1\nr2,,z,\n",
    ",cf,cf\n,\"a,b\",\"q\"\"x\"\nr1,\"multi\nline\",2\n\"r,2\",,\n",
    ",cf\n,a\nr1,v@1000\nr2,w@-1\nr3,x@99999999999999999999\nr4,@\n",
    "a,b\nr1,1,2\nr2,3\n",
    ",agg\n,n\nr1,5\nr1,-9223372036854775808\nr2,x\n",
    ",cf\r\n,a\r\nr1,v\r\n\r\n",
];

/// `cbt import` of mutated CSV files: every file is imported or refused
/// with a message, never a panic.
#[test]
fn fuzz_cbt_import_csv() {
    let (base, base_files) = instance();
    let imports = [
        "import t data.csv",
        "import t data.csv column-family=cf",
        "import t data.csv timestamp=value-encoded",
        "import t data.csv column-family=agg timestamp=value-encoded batch-size=1",
    ];
    let mut n = 0usize;
    run("cbt import csv", 600, CSV_CORPUS, |csv| {
        let mut db = base.clone();
        let mut files = base_files.clone();
        files.insert("data.csv", csv);
        let line = imports[n % imports.len()];
        n += 1;
        let out = cbt::exec_line(&mut db, line, &mut files);
        if let Err(e) = &out.status {
            assert!(!e.message().is_empty(), "{line}: an error needs a message");
            assert!(!out.stderr.is_empty(), "{line}: a failure writes to stderr");
        }
    });
}

/// Format files for `read format-file=`: YAML in block and flow forms,
/// per-family and per-column encodings and types.
const FORMAT_CORPUS: &[&str] = &[
    "default_encoding: hex\ncolumns:\n  a: {encoding: BigEndian, type: uint32}\n",
    "families:\n  cf:\n    default_encoding: json\n    columns:\n      b: {encoding: hex}\n  agg:\n    default_encoding: bigendian\n    default_type: int64\n",
    "default_encoding: littleendian\ndefault_type: float64 # trailing comment\n",
    "columns:\n  a:\n    encoding: b\n    type: int8\n  n: {encoding: 'BigEndian', type: \"int64\"}\n",
    "protocol_buffer_definitions: [a.proto]\nprotocol_buffer_paths: [.]\n",
    "{default_encoding: h, columns: {a: {encoding: j}}}\n",
    "families:\n\t cf:\n  - x\n  -\n",
];

/// `read format-file=` with mutated format files: every file formats the
/// rows or is refused with a message, never a panic.
#[test]
fn fuzz_cbt_format_file() {
    let (base, base_files) = instance();
    let mut db = base.clone();
    run("cbt format file", 600, FORMAT_CORPUS, |yaml| {
        let mut files = base_files.clone();
        files.insert("fmt.yaml", yaml);
        let out = cbt::exec_line(&mut db, "read t format-file=fmt.yaml", &mut files);
        if let Err(e) = &out.status {
            assert!(!e.message().is_empty(), "an error needs a message");
        }
    });
}

const SQL_CORPUS: &[&str] = &[
    "SELECT _key, cf['a'] AS a FROM t WHERE _key >= 'r1' AND _key < 'r9' LIMIT 10",
    "SELECT * FROM t(with_history => TRUE, latest_n => 2)",
    "SELECT _key, CAST(CAST(cf['a'] AS STRING) AS INT64) + 1 FROM t ORDER BY _key DESC LIMIT 1 OFFSET 1",
    "SELECT COUNT(*), SUM(agg['n']) FROM t GROUP BY _key",
    "SELECT SPLIT('a,b,c', ',')[SAFE_OFFSET(1)], CONCAT('x', 'y'), LENGTH(b'abc')",
    "SELECT TIMESTAMP '2020-05-01 00:00:00+00', 0x1F, 1.5e3, -9223372036854775807 - 1",
    "SELECT _key FROM t WHERE REGEXP_CONTAINS(_key, r'^r[0-9]+$') AND cf['b'] IS NOT NULL",
    "SELECT IF(_key = 'r1', 'one', 'other'), CASE WHEN _key LIKE 'r%' THEN 1 ELSE 0 END FROM t",
    "SELECT * FROM UNPACK((SELECT * FROM t(with_history => TRUE)))",
    "SELECT MAP_KEYS(cf), ARRAY_LENGTH([1, 2, 3]) FROM t",
    "CREATE MATERIALIZED VIEW mv AS SELECT _key, cf['a'] AS a FROM t",
    "SELECT _key FROM t WHERE _key IN ('r1', 'r2') /* comment */ -- tail",
];

#[test]
fn fuzz_sql() {
    let (base, _) = instance();
    let mut db = base.clone();
    run("sql", 2500, SQL_CORPUS, |statement| {
        if let Err(e) = sql::execute(&mut db, statement) {
            assert!(
                !e.message().is_empty(),
                "{statement}: an error needs a message"
            );
        }
        if db.list_tables().len() != 1 {
            db = base.clone();
        }
    });
}

const SCENARIO_CORPUS: &[&str] = &[
    include_str!("../../static/scenarios/mobile_device_first.toml"),
    include_str!("../../static/scenarios/hot_row_counter.toml"),
    include_str!("../../static/scenarios/multi_tenant.toml"),
    include_str!("../../static/scenarios/spike_event.toml"),
    include_str!("../../static/scenarios/lesson_oracle_products.toml"),
];

#[test]
fn fuzz_scenario_toml() {
    run("scenario toml", 1500, SCENARIO_CORPUS, |text| {
        if let Err(e) = Scenario::from_toml(text) {
            assert!(!e.message().is_empty(), "an error needs a message");
        }
    });
}

const ORACLE_DDL: &str = include_str!("translate_fixtures/oracle_shop.ddl");
const ORACLE_ROWS: &str = include_str!("translate_fixtures/oracle_shop_rows.json");

fn options() -> Options {
    Options {
        now_micros: 1_694_390_400_000_000,
        ..Options::default()
    }
}

#[test]
fn fuzz_oracle_ddl() {
    let statements: Vec<&str> = ORACLE_DDL
        .split_inclusive(';')
        .filter(|s| !s.trim().is_empty())
        .collect();
    let mut corpus = vec![ORACLE_DDL];
    corpus.extend(statements);
    let options = options();
    run("oracle ddl", 400, &corpus, |ddl| {
        if let Err(e) = translate::from_oracle_ddl(ddl, "", &options) {
            assert!(!e.message().is_empty(), "an error needs a message");
        }
    });
    // The sample rows are parsed too.
    run("oracle rows", 300, &[ORACLE_ROWS], |rows| {
        if let Err(e) = translate::from_oracle_ddl(ORACLE_DDL, rows, &options) {
            assert!(!e.message().is_empty(), "an error needs a message");
        }
    });
}

const DYNAMO_CORPUS: &[&str] = &[
    include_str!("translate_fixtures/product_catalog.json"),
    include_str!("translate_fixtures/video_single_table.json"),
    include_str!("translate_fixtures/invoices_adjacency.json"),
    include_str!("translate_fixtures/user_sessions.json"),
];

#[test]
fn fuzz_dynamodb_json() {
    let options = options();
    run("dynamodb json", 600, DYNAMO_CORPUS, |json| {
        if let Err(e) = translate::from_dynamodb(json, &options) {
            assert!(!e.message().is_empty(), "an error needs a message");
        }
    });
}
