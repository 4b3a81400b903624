//! The simulation's panels in headless Chromium, driven by events as a
//! person would: picking a scenario, stepping and playing it, the heatmap
//! canvas being painted, the tooltip under the pointer and on the keyboard,
//! the data table, the findings, and the Tablets panel's switch between
//! the simulated cluster and the real table.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const CANVAS: &str = "canvas[aria-label=\"Key Visualizer heatmap\"]";

/// Painted (opaque) pixels of the heatmap canvas, and its pixel count.
fn painted(root: &web_sys::Element) -> (usize, usize) {
    let canvas: web_sys::HtmlCanvasElement = find(root, CANVAS).dyn_into().expect("a canvas");
    let (w, h) = (canvas.width(), canvas.height());
    let context: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .expect("a context")
        .expect("2d")
        .dyn_into()
        .expect("a 2d context");
    let data = context
        .get_image_data(0.0, 0.0, f64::from(w), f64::from(h))
        .expect("pixels")
        .data();
    let opaque = data.chunks_exact(4).filter(|p| p[3] > 0).count();
    (opaque, (w * h) as usize)
}

fn progress(root: &web_sys::Element) -> String {
    texts(root, ".keyviz-panel .sim-progress-text").concat()
}

async fn pick(root: &web_sys::Element, file: &str) {
    choose(&find(root, "select[aria-label=Scenario]"), file);
    wait_for(root, CANVAS).await;
    wait_for(root, ".sim-bar .tablet").await;
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

#[wasm_bindgen_test]
async fn a_picked_scenario_steps_paints_and_explains_itself() {
    let (root, app) = mounted().await;
    // Before: the Key Visualizer invites a pick; the Tablets panel is the
    // real table's.
    assert!(
        region(&root, "Key Visualizer")
            .text_content()
            .unwrap_or_default()
            .contains("Pick a scenario")
    );
    assert!(root.query_selector(".sim-bar").unwrap().is_none());

    pick(&root, "mobile_timestamp_first.toml").await;
    assert!(
        progress(&root).starts_with("0s of 60m simulated (0%)"),
        "{}",
        progress(&root)
    );
    settle().await;
    assert_eq!(painted(&root).0, 0, "nothing simulated yet");
    let tablets_before = texts(&root, ".sim-bar .tablet").len();

    for _ in 0..30 {
        click_button(&root, "Step");
        settle().await;
    }
    wait_until("30 columns", || progress(&root).starts_with("6m of 60m")).await;
    settle().await;
    let (opaque, total) = painted(&root);
    // 30 of 300 columns: a tenth of the canvas is painted.
    let share = opaque as f64 / total as f64;
    assert!((0.07..0.14).contains(&share), "painted {share}");
    assert!(
        texts(&root, ".sim-bar .tablet").len() > tablets_before,
        "tablets split"
    );
    assert!(!texts(&root, ".event-list .event-split").is_empty());

    // Hovering a cell names its key range, time and value.
    let canvas = find(&root, CANVAS);
    mouse(&canvas, "mousemove", 0.05, 0.02);
    wait_for(&root, ".kv-tooltip").await;
    let tip = texts(&root, ".kv-tooltip").concat();
    assert!(tip.contains(" to "), "a key range: {tip}");
    assert!(
        tip.contains("into the run") && tip.contains("Operations: "),
        "{tip}"
    );
    mouse(&canvas, "mouseleave", 0.5, 0.5);
    settle().await;
    assert!(root.query_selector(".kv-tooltip").unwrap().is_none());

    // The keyboard moves a pinned cursor; Escape lets go.
    press(&canvas, "ArrowDown", false);
    wait_for(&root, ".kv-tooltip.pinned").await;
    press(&canvas, "Escape", false);
    settle().await;
    assert!(root.query_selector(".kv-tooltip").unwrap().is_none());

    // The data table has the numbers.
    click_button(&root, "Data table");
    wait_for(&root, ".kv-table").await;
    let cells = texts(&root, ".kv-table tbody td");
    assert!(cells.len() >= 24, "{cells:?}");
    assert!(
        cells
            .iter()
            .any(|c| c.ends_with("ops/s") && c.chars().any(|d| ('1'..='9').contains(&d)))
    );
    assert!(root.query_selector(CANVAS).unwrap().is_none());
    click_button(&root, "Data table");
    wait_for(&root, CANVAS).await;

    // Another metric relabels the legend.
    choose(&find(&root, "select[aria-label=Metric]"), "data_stored");
    wait_until("the legend", || {
        texts(&root, ".kv-legend-high").concat().ends_with("B")
            || texts(&root, ".kv-legend-high").concat().ends_with("iB")
    })
    .await;
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn playing_to_the_end_names_the_hotspot_and_the_tablets_switch() {
    let (root, app) = mounted().await;
    pick(&root, "mobile_timestamp_first.toml").await;
    choose(&find(&root, "select[aria-label=Speed]"), "max");
    click_button(&root, "Play");
    wait_until("the end of the run", || {
        progress(&root).starts_with("60m of 60m")
    })
    .await;
    wait_for(&root, ".kv-banner").await;
    let banner = texts(&root, ".kv-banner").concat();
    assert!(banner.contains("Hotspot: sequential writes"), "{banner}");
    assert!(banner.contains("Remedy: "), "{banner}");
    // Folded into one line until asked; a click unfolds every finding.
    let toggle = find(&root, ".kv-findings-toggle");
    assert_eq!(
        toggle.get_attribute("aria-expanded").as_deref(),
        Some("false")
    );
    assert!(find(&root, "#kv-findings-detail").has_attribute("hidden"));
    click(&root, ".kv-findings-toggle");
    settle().await;
    let toggle = find(&root, ".kv-findings-toggle");
    assert_eq!(
        toggle.get_attribute("aria-expanded").as_deref(),
        Some("true")
    );
    assert!(!find(&root, "#kv-findings-detail").has_attribute("hidden"));
    // The time axis has round ticks with units.
    let ticks = texts(&root, ".kv-axis .kv-tick");
    assert!(ticks.len() >= 3, "{ticks:?}");
    assert!(ticks.iter().all(|t| t.ends_with(" min")), "{ticks:?}");
    // A node past 100% CPU is shown throttled.
    assert!(!texts(&root, ".node-bar.throttled").is_empty());

    // The Tablets panel switches to the table's tablets and back.
    let tablets = region(&root, "Tablets");
    click(&tablets, "button[aria-pressed=false]");
    wait_for(&root, ".sample-table").await;
    assert!(root.query_selector(".sim-bar").unwrap().is_none());
    click(&region(&root, "Tablets"), "button[aria-pressed=false]");
    wait_for(&root, ".sim-bar .tablet").await;

    // Picking another scenario starts over on the new design.
    pick(&root, "mobile_device_first.toml").await;
    wait_until("a fresh run", || progress(&root).starts_with("0s of ")).await;
    assert_eq!(
        texts(&root, ".keyviz-panel .panel-meta"),
        ["Mobile time series: device first"]
    );
    unmount(app, &root);
}
