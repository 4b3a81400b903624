//! The app in headless Chromium: mounts the real `App` into the page and
//! checks what a person would see: the panels and their names, the sample
//! rows, share links that bring the state back, and that nothing typed can
//! become markup. Runs with
//! `cargo test -p tabletop-web --target wasm32-unknown-unknown`.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use tabletop_web::share;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn every_panel_is_a_named_region_and_the_sample_rows_are_in_key_order() {
    let (root, app) = mounted().await;
    assert_eq!(texts(&root, "h1"), ["Tabletop"]);
    for name in ["Schema", "Rows", "Tablets", "Key Visualizer", "Console"] {
        let panel = region(&root, name);
        assert_eq!(panel.tag_name(), "SECTION", "{name} is a region");
    }
    assert!(
        region(&root, "Key Visualizer")
            .text_content()
            .unwrap_or_default()
            .contains("Pick a scenario to simulate it")
    );
    // As many rows as fit (the test window is small), in byte order.
    let expected = [
        "phone#4c410523#20200501",
        "phone#4c410523#20200502",
        "phone#5c10102#20200501",
        "tablet#a0b81f74#20200501",
    ];
    let shown = texts(&root, "#rows .row .key");
    assert!(!shown.is_empty() && shown.len() <= 4, "{shown:?}");
    assert_eq!(shown, expected[..shown.len()]);
    let first = texts(&root, "#rows .row:first-child .cell .value");
    assert_eq!(first, ["1", "1", "PQ2A.190405.004", "PQ2A.190405.003"]);
    assert_eq!(
        texts(&root, "#rows .cell.gc-eligible .badge"),
        ["awaiting GC"]
    );
    assert_eq!(
        texts(&root, "#rows-position"),
        [format!("Rows 1–{} of 4 rows", shown.len())]
    );
    // Segment tints: the same class for the same position in every key.
    let first_segments: Vec<String> = {
        let nodes = root
            .query_selector_all("#rows .row .key span")
            .expect("valid");
        (0..nodes.length())
            .filter_map(|i| nodes.item(i))
            .filter_map(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(n).ok())
            .map(|e| e.class_name())
            .take(5)
            .collect()
    };
    assert_eq!(first_segments, ["seg-0", "sep", "seg-1", "sep", "seg-2"]);
    // The Tablets bar and SampleRowKeys.
    assert_eq!(
        root.query_selector_all(".tablet-bar .tablet")
            .unwrap()
            .length(),
        1
    );
    assert_eq!(texts(&root, ".sample-table tbody tr").len(), 1);
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn keys_values_and_console_output_are_text_never_markup() {
    let (root, app) = mounted().await;
    let command = find(&root, "textarea[aria-label=Command]");
    type_into(
        &command,
        "set mobile-time-series '<img src=x onerror=alert(1)>' stats_summary:os_build='<b>bold</b><script>x()</script>'",
    );
    press(&command, "Enter", false);
    wait_until("the new row", || {
        texts(&root, "#rows .row .key")
            .first()
            .is_some_and(|k| k.starts_with("<img"))
    })
    .await;
    assert_eq!(
        texts(&root, "#rows .row:first-child .key"),
        ["<img src=x onerror=alert(1)>"]
    );
    assert_eq!(
        texts(&root, "#rows .row:first-child .value"),
        ["<b>bold</b><script>x()</script>"]
    );
    for tag in ["img", "b", "script"] {
        assert!(
            root.query_selector(&format!(
                "#rows {tag}, .transcript {tag}, .tablet-bar {tag}"
            ))
            .unwrap()
            .is_none(),
            "no <{tag}> element was made from data"
        );
    }
    let echoed = texts(&root, ".transcript .command").concat();
    assert!(echoed.contains("<img src=x"), "{echoed}");
    // The crash alert is text too.
    tabletop_web::show_fatal_error("first <b>problem</b>");
    tabletop_web::show_fatal_error("second problem");
    let document = gloo::utils::document();
    assert_eq!(
        document
            .query_selector_all("[role=alert]#fatal-error")
            .unwrap()
            .length(),
        1,
        "one alert region, however often it is called"
    );
    let alert = document
        .get_element_by_id(tabletop_web::fatal::ALERT_ID)
        .expect("the region exists");
    let text = alert.text_content().unwrap_or_default();
    assert!(text.contains("Tabletop stopped because of an internal error"));
    assert!(text.contains("second problem") && !text.contains("first"));
    assert!(alert.query_selector("b").unwrap().is_none());
    alert.remove();
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn a_share_link_brings_schema_layout_and_rows_back() {
    let (root, app) = mounted().await;
    let command = find(&root, "textarea[aria-label=Command]");
    type_into(
        &command,
        "createtable shared families=cf:maxversions=2 splits=m",
    );
    press(&command, "Enter", false);
    wait_for(&root, "#table-list .table-item:nth-child(2)").await;
    type_into(&command, "set shared k1 cf:q=hello@1588291200000000");
    press(&command, "Enter", false);
    click(&root, "#table-list .table-item:nth-child(2) .table-name");
    wait_until("the shared table's row", || {
        texts(&root, "#rows .row .key") == ["k1"]
    })
    .await;
    let handle = find(
        &root,
        "[role=separator][aria-label='Resize the Schema panel']",
    );
    press(&handle, "End", false);
    settle().await;
    assert_eq!(
        handle.get_attribute("aria-valuenow").as_deref(),
        Some("720")
    );

    // The address bar holds the state once it has been still a moment.
    wait_until("the fragment", || {
        share::decode(&tabletop_web::browser::fragment())
            .is_ok_and(|s| s.layout.left == 720 && s.tables.len() == 2)
    })
    .await;
    let fragment = tabletop_web::browser::fragment();
    let state = share::decode(&fragment).expect("the fragment is a state");
    assert_eq!(state.selected.as_deref(), Some("shared"));
    assert!(
        state.snapshot.is_some(),
        "small tables travel with their rows"
    );
    unmount(app, &root);

    // A fresh page with that fragment and no autosave.
    reset_page();
    tabletop_web::browser::set_fragment(&fragment);
    let root = fresh_root_keeping_fragment();
    let app = tabletop_web::mount(root.clone());
    wait_until("the shared table", || {
        texts(&root, "#table-list .table-name") == ["mobile-time-series", "shared"]
    })
    .await;
    wait_for(&root, "#rows .row").await;
    assert_eq!(texts(&root, ".table-item.selected .table-name"), ["shared"]);
    assert_eq!(texts(&root, "#rows .row .key"), ["k1"]);
    assert_eq!(texts(&root, "#rows .row .value"), ["hello"]);
    assert_eq!(
        find(
            &root,
            "[role=separator][aria-label='Resize the Schema panel']"
        )
        .get_attribute("aria-valuenow")
        .as_deref(),
        Some("720")
    );
    assert_eq!(
        root.query_selector_all(".tablet-bar .tablet")
            .unwrap()
            .length(),
        2,
        "the initial split came back"
    );
    unmount(app, &root);
    reset_page();
}

#[wasm_bindgen_test]
async fn a_damaged_link_falls_back_to_the_sample_and_says_so() {
    reset_page();
    tabletop_web::browser::set_fragment("v1.not-a-state");
    let root = fresh_root_keeping_fragment();
    let app = tabletop_web::mount(root.clone());
    wait_for(&root, "#rows .row").await;
    wait_for(&root, ".notice-error").await;
    assert!(
        texts(&root, ".notice-error")
            .concat()
            .contains("could not be read")
    );
    assert_eq!(
        texts(&root, "#table-list .table-name"),
        ["mobile-time-series"]
    );
    unmount(app, &root);
    reset_page();
}

#[wasm_bindgen_test]
fn the_frozen_v1_format_decodes_in_the_browser_too() {
    let state = share::SharedState {
        selected: Some("t".into()),
        ..share::SharedState::default()
    };
    let text = share::encode(&state);
    assert_eq!(share::decode(&text).unwrap(), state);
}
