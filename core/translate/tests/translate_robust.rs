#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// No input makes a translation, an export or a CSV import panic: random
// text, and the fixtures with random edits, give a result or an error with
// a position inside the input. Whatever translates also applies, exports
// and replays.

use tabletop_sql::Instance;
use tabletop_store::InstanceConfig;
use tabletop_translate::translate::{
    self, CsvImportOptions, DataFormat, ExportFormat, ExportOptions, KeyEncoding, Options,
    Translation,
};
use tabletop_wire::cbt::{self, MemFiles};

const FIXTURES: [&str; 5] = [
    include_str!("../../tests/translate_fixtures/oracle_shop.ddl"),
    include_str!("../../tests/translate_fixtures/product_catalog.json"),
    include_str!("../../tests/translate_fixtures/video_single_table.json"),
    include_str!("../../tests/translate_fixtures/invoices_adjacency.json"),
    include_str!("../../tests/translate_fixtures/user_sessions.json"),
];
const ROWS: &str = include_str!("../../tests/translate_fixtures/oracle_shop_rows.json");

fn options(binary: bool) -> Options {
    Options {
        now_micros: 1_694_390_400_000_000,
        key_encoding: if binary {
            KeyEncoding::Binary
        } else {
            KeyEncoding::Text
        },
        ..Options::default()
    }
}

/// Applies, exports in every format and replays the cbt script; none of it
/// may panic, and the replay must succeed when the apply did.
fn exercise(t: &Translation) {
    let mut db = Instance::new(InstanceConfig::default());
    db.set_now(1_694_390_400_000_000);
    if t.apply(&mut db).is_err() {
        return;
    }
    let _ = t.to_text();
    let _ = t.to_json();
    for format in [
        ExportFormat::Cbt,
        ExportFormat::Gcloud,
        ExportFormat::Terraform,
    ] {
        let e = translate::export(
            &mut db,
            &ExportOptions {
                format,
                data: DataFormat::Csv,
                ..ExportOptions::default()
            },
        )
        .unwrap();
        if format != ExportFormat::Cbt {
            continue;
        }
        let mut back = Instance::default();
        let mut files = MemFiles::default();
        for f in &e.files {
            files.insert(f.name.clone(), f.contents.clone());
        }
        for line in e.main.text.lines() {
            let out = cbt::exec_line(&mut back, line, &mut files);
            assert!(out.status.is_ok(), "{line}: {}", out.stderr_lossy());
        }
    }
}

fn check_position(text: &str, e: &translate::TranslateError) {
    let lines = text.split('\n').count().max(1);
    assert!(
        e.line() >= 1 && e.line() <= lines,
        "{e} (text has {lines} lines)"
    );
    assert!(e.column() >= 1, "{e}");
    assert!(!e.message().is_empty());
}

#[test]
fn the_fixtures_survive_the_round_trip() {
    for binary in [false, true] {
        let t = translate::from_oracle_ddl(FIXTURES[0], ROWS, &options(binary)).unwrap();
        exercise(&t);
        for model in &FIXTURES[1..] {
            exercise(&translate::from_dynamodb(model, &options(binary)).unwrap());
        }
    }
}

#[test]
fn truncated_inputs_fail_cleanly() {
    for text in FIXTURES {
        for cut in (0..text.len()).step_by(7) {
            let Some(part) = text.get(..cut) else {
                continue;
            };
            match translate::from_oracle_ddl(part, "", &options(false)) {
                Ok(t) => exercise(&t),
                Err(e) => check_position(part, &e),
            }
            match translate::from_dynamodb(part, &options(false)) {
                Ok(t) => exercise(&t),
                Err(e) => check_position(part, &e),
            }
        }
    }
    for cut in (0..ROWS.len()).step_by(5) {
        if let Some(part) = ROWS.get(..cut) {
            match translate::from_oracle_ddl(FIXTURES[0], part, &options(false)) {
                Ok(t) => exercise(&t),
                Err(e) => check_position(part, &e),
            }
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// A fixture with a few characters replaced, inserted or removed.
    fn edited(text: &'static str) -> impl Strategy<Value = String> {
        let n = text.chars().count();
        proptest::collection::vec((0..n, any::<char>(), 0u8..3), 1..6).prop_map(move |edits| {
            let mut chars: Vec<char> = text.chars().collect();
            for (at, c, op) in edits {
                let at = at.min(chars.len().saturating_sub(1));
                match op {
                    0 if !chars.is_empty() => chars[at] = c,
                    1 => chars.insert(at, c),
                    _ if !chars.is_empty() => {
                        chars.remove(at);
                    }
                    _ => {}
                }
            }
            chars.into_iter().collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn any_text_is_an_answer(text in "\\PC{0,200}", binary in any::<bool>()) {
            match translate::from_oracle_ddl(&text, &text, &options(binary)) {
                Ok(t) => exercise(&t),
                Err(e) => check_position(&text, &e),
            }
            match translate::from_dynamodb(&text, &options(binary)) {
                Ok(t) => exercise(&t),
                Err(e) => check_position(&text, &e),
            }
            let _ = translate::parse_time_micros(&text);
            let mut db = Instance::default();
            let _ = translate::import_cbt_csv(&mut db, "t", text.as_bytes(), &CsvImportOptions::default());
        }

        #[test]
        fn edited_ddl_is_an_answer(ddl in edited(FIXTURES[0]), binary in any::<bool>()) {
            match translate::from_oracle_ddl(&ddl, ROWS, &options(binary)) {
                Ok(t) => exercise(&t),
                Err(e) => prop_assert!(e.line() >= 1 && e.column() >= 1),
            }
        }

        #[test]
        fn edited_rows_are_an_answer(rows in edited(ROWS)) {
            match translate::from_oracle_ddl(FIXTURES[0], &rows, &options(false)) {
                Ok(t) => exercise(&t),
                Err(e) => check_position(&rows, &e),
            }
        }

        #[test]
        fn edited_models_are_an_answer(which in 1usize..5, seed in any::<u64>()) {
            // proptest strategies need 'static fixtures: pick one, then edit
            // it deterministically from the seed.
            let text = FIXTURES[which];
            let chars: Vec<char> = text.chars().collect();
            let mut out = chars.clone();
            let mut s = seed;
            for _ in 0..1 + (seed % 4) {
                s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let at = usize::try_from(s >> 33).unwrap_or(0) % out.len().max(1);
                let c = ['"', '{', '}', ',', ':', '[', ']', '1', 'x', ' ', '\n'][usize::try_from(s % 11).unwrap_or(0)];
                match (s >> 8) % 3 {
                    0 if !out.is_empty() => out[at] = c,
                    1 => out.insert(at, c),
                    _ if !out.is_empty() => { out.remove(at); }
                    _ => {}
                }
            }
            let model: String = out.into_iter().collect();
            match translate::from_dynamodb(&model, &options(seed % 2 == 0)) {
                Ok(t) => exercise(&t),
                Err(e) => check_position(&model, &e),
            }
        }
    }
}
