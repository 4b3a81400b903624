//! The design as real data in headless Chromium: after a scenario is
//! picked, the Key Visualizer's data bar creates the design's table with
//! generated rows (the Rows panel shows its keys, the sample table stays)
//! and replays the workload on it (the live view takes over).
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn status(root: &web_sys::Element) -> String {
    texts(root, ".scenario-data-text").concat()
}

#[wasm_bindgen_test]
async fn a_scenario_becomes_a_table_and_its_workload_replays_on_it() {
    let (root, app) = mounted().await;
    assert!(
        root.query_selector(".scenario-data").unwrap().is_none(),
        "no design, no data bar"
    );
    choose(
        &find(&root, "select[aria-label=Scenario]"),
        "mobile_device_first.toml",
    );
    wait_for(&root, ".scenario-data").await;
    choose(
        &find(
            &root,
            ".scenario-data select[aria-label=\"Rows to generate\"]",
        ),
        "1000",
    );
    click_button(&root, "Create table with rows");
    wait_until("the rows are written", || {
        status(&root).contains("1,000 rows in")
    })
    .await;
    wait_until("the rows panel shows the table", || {
        !texts(&root, "#rows .row .key").is_empty()
    })
    .await;
    let keys = texts(&root, "#rows .row .key");
    assert!(
        keys.iter()
            .all(|k| k.starts_with("phone#") || k.starts_with("tablet#")),
        "{keys:?}"
    );
    let tables = texts(&root, ".schema-panel").concat();
    assert!(
        tables.contains("mobile-time-series"),
        "the sample table stays: {tables}"
    );
    click_button(&root, "Run workload on the table");
    wait_until("the replay ends", || status(&root).starts_with("Replayed")).await;
    let kv = find(&root, "section.keyviz-panel");
    assert_eq!(kv.get_attribute("data-view").as_deref(), Some("live"));
    unmount(app, &root);
}
