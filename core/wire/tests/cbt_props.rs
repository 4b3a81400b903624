#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Property tests for the `cbt` language: whatever a person types (or a
// host passes as arguments), splitting, parsing and running never panic,
// and every failure is reported as an error with a non-empty message.

use tabletop_sql::Instance;
use tabletop_store::InstanceConfig;
use tabletop_wire::cbt::{MemFiles, Outcome, exec_line};
#[cfg(not(target_arch = "wasm32"))]
use tabletop_wire::cbt::{exec_args, tokenize};

fn fresh_instance() -> (Instance, MemFiles) {
    let config = InstanceConfig {
        project: "p".into(),
        instance: "i".into(),
        ..InstanceConfig::default()
    };
    let mut db = Instance::new(config);
    db.set_now(1_600_000_000_000_000);
    let mut files = MemFiles::default();
    files.insert("data.csv", ",cf,,agg\n,a,b,c\nr1,x,y,1\nr2,,z,\n");
    files.insert("bad.csv", "\"");
    for line in [
        "createtable t families=cf:maxversions=2,agg:never:intsum splits=m",
        "set t r1 cf:a=1@1000 cf:a=2@2000 cf:b=x@1000",
        "set t r2 cf:a=3@1000",
        "addtocell t r1 agg:n=5@1000",
    ] {
        let out = exec_line(&mut db, line, &mut files);
        assert!(out.status.is_ok(), "{line}: {:?}", out.status);
    }
    (db, files)
}

fn check(out: &Outcome) {
    if let Err(e) = &out.status {
        assert!(!e.message().is_empty(), "an error needs a message");
        assert!(!out.stderr.is_empty(), "a failing command writes to stderr");
        assert_eq!(out.exit_code(), 1);
    } else {
        assert_eq!(out.exit_code(), 0);
    }
}

#[test]
fn known_commands_run_on_fixed_input() {
    let (mut db, mut files) = fresh_instance();
    for line in [
        "read t",
        "read t regex=r.* columns=cf:a cells-per-column=1 keys-only=true count=1 reversed=true",
        "lookup t r1 columns=cf: include-stats=full",
        "import t data.csv",
        "import t bad.csv",
        "count t prefix=r",
        "ls t",
        "compact",
        "clock 1d",
        "help",
        "cbt -project p -instance=i ls",
        "",
        "# just a comment",
    ] {
        check(&exec_line(&mut db, line, &mut files));
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use proptest::prelude::*;

    use super::*;

    /// Words a cbt line is made of, plus noise.
    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("t".to_string()),
            Just("nope".to_string()),
            Just("r1".to_string()),
            Just("cf".to_string()),
            Just("a".to_string()),
            Just("data.csv".to_string()),
            Just("bad.csv".to_string()),
            Just("force".to_string()),
            Just("never".to_string()),
            Just("and".to_string()),
            Just("or".to_string()),
            proptest::sample::select(tabletop_wire::cbt::command_names()).prop_map(str::to_string),
            proptest::sample::select(vec![
                "start=",
                "end=",
                "prefix=",
                "regex=",
                "columns=",
                "count=",
                "cells-per-column=",
                "keys-only=",
                "reversed=",
                "include-stats=",
                "app-profile=",
                "format-file=",
                "families=",
                "splits=",
                "column-family=",
                "batch-size=",
                "workers=",
                "timestamp=",
                "maxage=",
                "maxversions=",
                "authorized-view=",
                "limit=",
            ])
            .prop_flat_map(|k| "[ -~]{0,12}".prop_map(move |v| format!("{k}{v}"))),
            "(cf|agg|nofam|)(:[a-z]{0,3}){0,3}=[ -~]{0,8}(@-?[0-9x_]{0,20})?",
            "[ -~]{0,16}",
            "\\PC{0,8}",
            "'[^']{0,8}'",
            "\"[^\"]{0,8}\"",
            "\\$'(\\\\x[0-9a-f]{2}|\\\\[0-7]{1,3}|\\\\u[0-9a-f]{1,4}|[a-z]){0,6}'",
        ]
    }

    fn line() -> impl Strategy<Value = String> {
        prop::collection::vec(word(), 0..7).prop_map(|w| w.join(" "))
    }

    proptest! {
        // 512 cases by default; PROPTEST_CASES=100000 for a long hunt.
        #![proptest_config(ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(512),
            ..ProptestConfig::default()
        })]

        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,80}") {
            let _ = tokenize(&s);
            let _ = tabletop_wire::cbt::tokenize_script(&s);
            let (mut db, mut files) = fresh_instance();
            check(&exec_line(&mut db, &s, &mut files));
        }

        #[test]
        fn command_shaped_lines_never_panic(lines in prop::collection::vec(line(), 1..6)) {
            let (mut db, mut files) = fresh_instance();
            for l in &lines {
                check(&exec_line(&mut db, l, &mut files));
            }
            // The instance still answers.
            check(&exec_line(&mut db, "ls", &mut files));
        }

        #[test]
        fn arbitrary_argument_bytes_never_panic(
            name in proptest::sample::select(tabletop_wire::cbt::command_names()),
            args in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..12), 0..6),
        ) {
            let (mut db, mut files) = fresh_instance();
            let mut argv: Vec<Vec<u8>> = vec![name.as_bytes().to_vec()];
            if !args.is_empty() {
                argv.push(b"t".to_vec());
            }
            argv.extend(args);
            check(&exec_args(&mut db, &argv, &mut files));
        }
    }
}
