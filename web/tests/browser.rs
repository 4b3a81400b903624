//! The app in headless Chromium: mounts the real `App` into the page and
//! checks what a person would see. Runs with
//! `cargo test -p tabletop-web --target wasm32-unknown-unknown`.
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh element appended to `<body>`, to mount into.
fn fresh_root() -> web_sys::Element {
    let document = gloo::utils::document();
    let root = document
        .create_element("div")
        .expect("creating a div works");
    document
        .body()
        .expect("the test page has a body")
        .append_child(&root)
        .expect("appending works");
    root
}

fn texts(root: &web_sys::Element, selector: &str) -> Vec<String> {
    let nodes = root
        .query_selector_all(selector)
        .expect("the selector is valid");
    (0..nodes.length())
        .filter_map(|i| nodes.item(i))
        .map(|n| n.text_content().unwrap_or_default())
        .collect()
}

/// Yew renders asynchronously, and the sample table is loaded by an effect
/// after the first render: wait until the rows appear (at most ~2 s).
async fn wait_for(root: &web_sys::Element, selector: &str) {
    for _ in 0..200 {
        if root.query_selector(selector).ok().flatten().is_some() {
            return;
        }
        yew::platform::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "{selector} never appeared; the page holds: {:?}",
        root.text_content()
    );
}

#[wasm_bindgen_test]
async fn app_shows_the_sample_table_and_its_rows_in_key_order() {
    let root = fresh_root();
    let _app = tabletop_web::mount(root.clone());
    wait_for(&root, "#rows .row").await;

    assert_eq!(texts(&root, "h1"), ["Tabletop"]);
    assert_eq!(
        texts(&root, "#table-list .table-name"),
        ["mobile-time-series"]
    );
    assert_eq!(
        texts(&root, "#rows .row-key"),
        [
            "phone#4c410523#20200501",
            "phone#4c410523#20200502",
            "phone#5c10102#20200501",
            "tablet#a0b81f74#20200501",
        ]
    );
    let first_row = texts(&root, "#rows .row:first-child .cell .value");
    assert_eq!(first_row, ["1", "1", "PQ2A.190405.004", "PQ2A.190405.003"]);
    let stats = texts(&root, "#read-stats").concat();
    assert!(
        stats.starts_with("ReadRows returned 4 rows, 13 cells, "),
        "{stats}"
    );
}

#[wasm_bindgen_test]
async fn clicking_the_selected_table_reads_it_again() {
    let root = fresh_root();
    let _app = tabletop_web::mount(root.clone());
    wait_for(&root, "#activity .entry").await;
    let button: web_sys::HtmlElement = root
        .query_selector("#table-list .table-name")
        .expect("the selector is valid")
        .expect("the sample table is listed")
        .dyn_into()
        .expect("the table name is a button");
    assert_eq!(
        button.get_attribute("aria-pressed").as_deref(),
        Some("true")
    );
    button.click();
    yew::platform::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(texts(&root, "#rows .row-key").len(), 4);
    assert_eq!(
        button.get_attribute("aria-pressed").as_deref(),
        Some("true")
    );
}

#[wasm_bindgen_test]
fn fatal_error_region_shows_the_message_once() {
    let document = gloo::utils::document();
    tabletop_web::show_fatal_error("first <b>problem</b>");
    tabletop_web::show_fatal_error("second problem");
    let regions = document
        .query_selector_all("[role=alert]")
        .expect("the selector is valid");
    assert_eq!(
        regions.length(),
        1,
        "one alert region, however often it is called"
    );
    let region = document
        .get_element_by_id(tabletop_web::fatal::ALERT_ID)
        .expect("the region exists");
    let text = region.text_content().unwrap_or_default();
    assert!(
        text.contains("Tabletop stopped because of an internal error"),
        "{text}"
    );
    assert!(
        text.contains("second problem") && !text.contains("first"),
        "{text}"
    );
    assert!(
        region.query_selector("b").expect("valid").is_none(),
        "messages are text, never markup"
    );
    region.remove();
}
