//! The live Key Visualizer in headless Chromium, driven as a person
//! would: a read typed into the console switches the panel to the real
//! table's traffic, lights the keys it read (checked in the data table's
//! numbers), and a cell under the pointer names its tablet; the choice
//! between the two views is the person's.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const LIVE_CANVAS: &str = "section.keyviz-panel[data-view=live] canvas.kv-canvas";

fn run(root: &web_sys::Element, command: &str) {
    let input = find(root, "textarea[aria-label=Command]");
    type_into(&input, command);
    press(&input, "Enter", false);
}

fn mouse(element: &web_sys::Element, kind: &str, fx: f64, fy: f64) {
    let rect = element.get_bounding_client_rect();
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(true);
    init.set_client_x((rect.left() + rect.width() * fx) as i32);
    init.set_client_y((rect.top() + rect.height() * fy) as i32);
    let event = web_sys::MouseEvent::new_with_mouse_event_init_dict(kind, &init)
        .expect("making a mouse event works");
    element.dispatch_event(&event).expect("dispatching works");
}

/// The data table's rows: the key range and the last column's number.
fn last_column(root: &web_sys::Element) -> Vec<(String, f64)> {
    let rows = root
        .query_selector_all(".keyviz-panel .kv-table tbody tr")
        .expect("valid");
    (0..rows.length())
        .filter_map(|i| rows.item(i))
        .map(|node| {
            let row: web_sys::Element = wasm_bindgen::JsCast::dyn_into(node).expect("an element");
            let keys = texts(&row, "th").concat();
            let cells = texts(&row, "td");
            let last = cells.last().cloned().unwrap_or_default();
            let number: f64 = last
                .split(' ')
                .next()
                .unwrap_or("")
                .replace(',', "")
                .parse()
                .expect("a number");
            (keys, number)
        })
        .collect()
}

#[wasm_bindgen_test]
async fn a_console_read_lights_its_keys_on_the_live_map() {
    let (root, app) = mounted().await;
    let kv = region(&root, "Key Visualizer");
    assert_eq!(kv.get_attribute("data-view").as_deref(), Some("simulation"));

    run(&root, "read mobile-time-series prefix=phone#4c41");
    wait_for(&root, LIVE_CANVAS).await;
    wait_for(&root, ".kv-live-summary").await;
    let summary = texts(&root, ".kv-live-summary").concat();
    assert!(summary.contains("2 rows read, 4 written"), "{summary}");
    assert_eq!(
        texts(&root, ".kv-switch button[aria-pressed=true]"),
        ["Your tables"]
    );

    // Read rows, as numbers: only the two rows under the prefix.
    choose(&find(&kv, "select[aria-label=Metric]"), "read_rows");
    click_button(&kv, "Data table");
    wait_for(&root, ".keyviz-panel .kv-table").await;
    let rows = last_column(&root);
    let (inside, outside): (Vec<_>, Vec<_>) =
        rows.iter().partition(|(k, _)| k.starts_with("phone#4c41"));
    assert!(inside.iter().any(|(_, v)| *v > 0.0), "{rows:?}");
    assert!(
        !outside.is_empty() && outside.iter().all(|(_, v)| *v == 0.0),
        "{rows:?}"
    );

    // Under the pointer, a cell names its tablet and rows.
    click_button(&kv, "Data table");
    wait_for(&root, LIVE_CANVAS).await;
    let canvas = find(&root, LIVE_CANVAS);
    mouse(&canvas, "mousemove", 0.5, 0.95);
    wait_for(&root, ".kv-tooltip .kv-tip-place").await;
    let place = texts(&root, ".kv-tip-place").concat();
    assert!(
        place.starts_with("tablet #") && place.ends_with(" stored"),
        "{place}"
    );
    assert!(texts(&root, ".kv-tip-time").concat().ends_with(" UTC"));

    // The person's choice wins.
    click_button(&kv, "Simulation");
    wait_for(&root, "section.keyviz-panel[data-view=simulation]").await;
    assert!(
        kv.text_content()
            .unwrap_or_default()
            .contains("Pick a scenario")
    );
    // The simulation's invitation points back to the live map.
    click_button(&kv, "show your tables' traffic");
    wait_for(&root, LIVE_CANVAS).await;
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn a_table_without_traffic_says_what_to_do() {
    let (root, app) = mounted().await;
    run(&root, "createtable quiet families=cf");
    wait_for(&root, "#table-list .table-item:nth-child(2)").await;
    let kv = region(&root, "Key Visualizer");
    wait_for(&root, "section.keyviz-panel[data-view=live]").await;
    choose(&find(&kv, "select[aria-label=Table]"), "quiet");
    wait_for(&root, ".kv-live-empty").await;
    let text = texts(&root, ".kv-live-empty").concat();
    assert!(
        text.contains("Nothing has been recorded on quiet yet"),
        "{text}"
    );
    assert!(text.contains("read quiet count=10"), "{text}");
    // The Rows panel follows the picker.
    wait_until("the rows panel shows the table", || {
        texts(&region(&root, "Rows"), ".title-table")
            .concat()
            .contains("quiet")
    })
    .await;
    unmount(app, &root);
}

/// How many times the live map was drawn so far (its `data-renders`).
fn map_renders(root: &web_sys::Element) -> u64 {
    find(root, "section.keyviz-panel[data-view=live] .kv-map")
        .get_attribute("data-renders")
        .and_then(|n| n.parse().ok())
        .expect("the map counts its renders")
}

#[wasm_bindgen_test]
async fn a_redraw_of_the_live_panel_leaves_its_map_alone() {
    let (root, app) = mounted().await;
    run(&root, "read mobile-time-series prefix=phone#4c41");
    wait_for(&root, LIVE_CANVAS).await;
    wait_until("the live map is built", || {
        region(&root, "Key Visualizer")
            .get_attribute("data-live-building")
            .as_deref()
            == Some("false")
    })
    .await;
    settle().await;
    let kv = region(&root, "Key Visualizer");
    let before = map_renders(&root);
    // Asking again for the view already shown is an action of the live
    // slice: the panel draws again, with the same map.
    for _ in 0..3 {
        click_button(&kv, "Your tables");
        settle().await;
    }
    assert_eq!(
        map_renders(&root),
        before,
        "the map was drawn again with unchanged data"
    );
    // A change of the map's own settings draws it again.
    choose(&find(&kv, "select[aria-label=Scale]"), "absolute");
    wait_until("the map follows its scale", || map_renders(&root) > before).await;
    unmount(app, &root);
}
