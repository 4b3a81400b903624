//! The panels in headless Chromium, driven by events as a person would:
//! the console (run, Enter and Ctrl+Enter, history on the arrow keys, the
//! read report, the JSON tab), the Schema panel's validation as you type,
//! and the Rows panel's virtual window over thousands of rows.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn value_of(element: &web_sys::Element) -> String {
    element
        .dyn_ref::<web_sys::HtmlTextAreaElement>()
        .map(web_sys::HtmlTextAreaElement::value)
        .or_else(|| {
            element
                .dyn_ref::<web_sys::HtmlInputElement>()
                .map(web_sys::HtmlInputElement::value)
        })
        .unwrap_or_default()
}

async fn run(root: &web_sys::Element, command: &str) -> usize {
    let before = texts(root, ".transcript .entry").len();
    let input = find(root, "textarea[aria-label=Command]");
    type_into(&input, command);
    click_button(root, "Run");
    wait_until(command, || texts(root, ".transcript .entry").len() > before).await;
    texts(root, ".transcript .entry").len()
}

#[wasm_bindgen_test]
async fn the_console_runs_commands_reports_reads_and_keeps_history() {
    let (root, app) = mounted().await;
    run(&root, "ls").await;
    assert_eq!(
        texts(&root, ".transcript .entry:last-child .entry-output"),
        ["mobile-time-series\n"]
    );

    // Ctrl+Enter runs; a read reports what it cost.
    let input = find(&root, "textarea[aria-label=Command]");
    type_into(&input, "read mobile-time-series regex=tablet.*");
    press(&input, "Enter", true);
    wait_until("the read", || texts(&root, ".transcript .entry").len() == 2).await;
    let output = texts(&root, ".transcript .entry:last-child .entry-output").concat();
    assert!(output.contains("tablet#a0b81f74#20200501"), "{output}");
    assert!(!output.contains("phone#"), "{output}");
    assert_eq!(
        texts(&root, ".transcript .entry:last-child .read-report"),
        ["rows: 1 returned / 4 seen · cells: 3 returned / 13 seen · tablets visited: 1 of 1 (#0)"]
    );
    settle().await;
    assert_eq!(value_of(&input), "", "the input is cleared after running");

    // History, per tab, with the arrow keys.
    press(&input, "ArrowUp", false);
    settle().await;
    assert_eq!(value_of(&input), "read mobile-time-series regex=tablet.*");
    press(&input, "ArrowUp", false);
    settle().await;
    assert_eq!(value_of(&input), "ls");
    press(&input, "ArrowDown", false);
    settle().await;
    assert_eq!(value_of(&input), "read mobile-time-series regex=tablet.*");
    press(&input, "ArrowDown", false);
    settle().await;
    assert_eq!(value_of(&input), "");

    // The JSON tab: Enter adds a line, Ctrl+Enter runs.
    click(&root, "#console-tab-json");
    settle().await;
    let input = find(&root, "textarea[aria-label=Command]");
    type_into(
        &input,
        r#"{"method": "sampleRowKeys", "request": {"tableName": "projects/p/instances/i/tables/mobile-time-series"}}"#,
    );
    press(&input, "Enter", false);
    settle().await;
    assert_eq!(
        texts(&root, ".transcript .entry").len(),
        2,
        "Enter alone does not run JSON"
    );
    press(&input, "Enter", true);
    wait_until("the JSON answer", || {
        texts(&root, ".transcript .entry").len() == 3
    })
    .await;
    let answer = texts(&root, ".transcript .entry:last-child .entry-output").concat();
    assert!(
        answer.starts_with(r#"{"response":{"samples":[{"#),
        "{answer}"
    );
    press(&input, "ArrowUp", false);
    settle().await;
    assert!(
        value_of(&input).contains("sampleRowKeys"),
        "JSON history holds JSON"
    );
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn the_schema_panel_checks_as_you_type_with_the_cores_messages() {
    let (root, app) = mounted().await;
    let schema = region(&root, "Schema");
    click_button(&schema, "New table");
    settle().await;
    let id = find(&schema, "form.new-table input[type=text]");
    for (typed, message) in [
        ("", "table id must not be empty"),
        (
            "9 lives",
            "table id \"9 lives\" must match [_a-zA-Z0-9][-_.a-zA-Z0-9]*",
        ),
        (
            "mobile-time-series",
            "table \"mobile-time-series\" already exists",
        ),
        (&"t".repeat(51), "is 51 characters long; the limit is 50"),
    ] {
        type_into(&id, typed);
        settle().await;
        let shown = texts(&schema, "#new-table-id-error").concat();
        assert!(shown.contains(message), "{typed:?}: {shown:?}");
        let create = find(&schema, "form.new-table button[type=submit]");
        assert!(
            create.has_attribute("disabled"),
            "{typed:?} cannot be created"
        );
    }
    type_into(&id, "events");
    settle().await;
    assert!(texts(&schema, "#new-table-id-error").is_empty());
    // A family in the new table: its name and rule are checked too.
    click_button(&schema, "+ add a column family");
    settle().await;
    let family = find(&schema, "input[aria-label='Family 1 name']");
    type_into(&family, "a b");
    settle().await;
    assert_eq!(
        texts(&schema, "#new-family-0-error"),
        ["column family name \"a b\" must match [-_.a-zA-Z0-9]+"]
    );
    type_into(&family, "clicks");
    let versions = find(
        &schema,
        "form.new-table input[aria-label='Versions to keep']",
    );
    type_into(&versions, "0");
    settle().await;
    assert_eq!(
        texts(&schema, "#new-family-0-gc-error"),
        ["GC rule max_num_versions must be at least 1, got 0"]
    );
    type_into(&versions, "2");
    settle().await;
    click(&schema, "form.new-table button[type=submit]");
    wait_until("the new table", || {
        texts(&root, "#table-list .table-name") == ["events", "mobile-time-series"]
    })
    .await;
    assert_eq!(texts(&root, ".table-item.selected .table-name"), ["events"]);
    assert_eq!(texts(&root, ".family .gc-rule"), ["GC: versions() > 2"]);
    // The request went through the JSON protocol and shows in the console.
    let log = texts(&root, ".transcript .entry .command").concat();
    assert!(log.contains(r#""tableId":"events""#), "{log}");
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn the_rows_panel_draws_only_the_visible_window() {
    let (root, app) = mounted().await;
    let rows = region(&root, "Rows");
    choose(
        &find(&rows, "select[aria-label='Rows to generate']"),
        "10000",
    );
    type_into(
        &find(&rows, "input[aria-label='Table to load into']"),
        "many",
    );
    settle().await;
    click(&rows, ".generator-form button[type=submit]");
    wait_until("the load and the index", || {
        texts(&root, "#rows-position")
            .concat()
            .ends_with("of 10,000 rows")
            && root.query_selector("[role=progressbar]").unwrap().is_none()
    })
    .await;
    let drawn = texts(&root, "#rows .row").len();
    assert!(
        (2..40).contains(&drawn),
        "{drawn} rows in the DOM for 10,000"
    );
    let keys = texts(&root, "#rows .row .key");
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "byte order");

    // Scroll half way: the window moves to the rows there. The scroll
    // range is measured again on each check, since the list's full height
    // may be laid out a frame after the count is shown.
    let viewport = find(&root, ".rows-viewport");
    wait_until("the middle rows", || {
        let half = (viewport.scroll_height() - viewport.client_height()) / 2;
        if (viewport.scroll_top() - half).abs() > 1 {
            viewport.set_scroll_top(half);
        }
        texts(&root, "#rows-position")
            .concat()
            .starts_with("Rows 4,9")
            || texts(&root, "#rows-position")
                .concat()
                .starts_with("Rows 5,0")
    })
    .await;
    let middle = texts(&root, "#rows .row .key");
    assert!(middle.first() > keys.last(), "{middle:?} after {keys:?}");
    assert!(texts(&root, "#rows .row").len() < 40);
    // The view says how much it read: a window, not the table.
    let stats = texts(&root, "#read-stats").concat();
    assert!(stats.starts_with("This view read "), "{stats}");
    let read: u64 = stats
        .trim_start_matches("This view read ")
        .split(' ')
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(read < 100, "{stats}");

    // Go to a key.
    let go = find(&root, "input[aria-label='Go to row key']");
    let target = middle[1].clone();
    viewport.set_scroll_top(0);
    settle().await;
    type_into(&go, &target);
    settle().await;
    click(&root, "form.go-to button[type=submit]");
    wait_until("the key on top", || {
        texts(&root, "#rows .row .key").first() == Some(&target)
    })
    .await;
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn the_filter_builder_puts_a_checked_filter_into_the_console() {
    let (root, app) = mounted().await;
    click_button(&root, "Filter builder");
    wait_for(&root, ".filter-builder").await;
    // The default chain: family stats_summary, latest version only.
    let json = texts(&root, ".fb-json").concat();
    assert!(
        json.contains("\"familyNameRegexFilter\": \"stats_summary\""),
        "{json}"
    );
    assert_eq!(
        texts(&root, ".fb-cbt"),
        ["read mobile-time-series cells-per-column=1 columns=stats_summary: count=10"]
    );
    // A bad regex is refused with the core's message, and nothing can be
    // inserted.
    let family = find(&root, ".filter-builder input[aria-label='Family regex']");
    type_into(&family, "(");
    settle().await;
    assert!(
        !texts(&root, ".filter-builder .field-error")
            .concat()
            .is_empty()
    );
    assert!(root.query_selector(".fb-json").unwrap().is_none());
    type_into(&family, "stats_detail");
    settle().await;
    // A value regex has no cbt option: only JSON can carry it.
    choose(
        &find(
            &root,
            ".filter-builder select[aria-label='Kind of step to add']",
        ),
        "value",
    );
    click_button(&root, "Add step");
    settle().await;
    assert!(
        texts(&root, ".filter-builder .hint")
            .concat()
            .contains("cbt read has no option for: Value matches regex")
    );
    click_button(&root, "Insert into JSON tab");
    settle().await;
    let input = find(&root, "textarea[aria-label=Command]");
    let line = value_of(&input);
    assert!(line.contains("\"valueRegexFilter\""), "{line}");
    assert_eq!(
        find(&root, "#console-tab-json")
            .get_attribute("aria-selected")
            .as_deref(),
        Some("true")
    );
    press(&input, "Enter", true);
    wait_until("the filtered read", || {
        !texts(&root, ".transcript .entry:last-child .read-report").is_empty()
    })
    .await;
    let report = texts(&root, ".transcript .entry:last-child .read-report").concat();
    assert!(report.starts_with("rows: 0 returned / 4 seen"), "{report}");
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn clicking_a_tablet_scrolls_the_rows_to_it() {
    let (root, app) = mounted().await;
    run(&root, "createtable split families=cf splits=m").await;
    // More rows on each side of the split than the panel shows at once, so
    // the list can scroll the second tablet's first row to the top
    // whatever the window's height.
    for key in (0..12)
        .map(|i| format!("a{i:02}"))
        .chain((0..12).map(|i| format!("n{i:02}")))
    {
        run(&root, &format!("set split {key} cf:q=1@1000")).await;
    }
    click(&root, "#table-list .table-item:nth-child(2) .table-name");
    wait_until("the split table", || {
        texts(&root, "#rows .row .key").first().map(String::as_str) == Some("a00")
    })
    .await;
    assert_eq!(
        root.query_selector_all(".tablet-bar .tablet")
            .unwrap()
            .length(),
        2
    );
    assert_eq!(texts(&root, ".split-labels .split-label"), ["m"]);
    // Click near the right end of the bar: the second tablet, from "m".
    let bar = find(&root, ".tablet-bar");
    let rect = bar.get_bounding_client_rect();
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(true);
    // Whole pixels are enough here.
    #[allow(clippy::cast_possible_truncation)]
    init.set_client_x((rect.left() + rect.width() * 0.98) as i32);
    #[allow(clippy::cast_possible_truncation)]
    init.set_client_y((rect.top() + rect.height() / 2.0) as i32);
    let event = web_sys::MouseEvent::new_with_mouse_event_init_dict("click", &init).unwrap();
    bar.dispatch_event(&event).unwrap();
    wait_until("the rows of the second tablet", || {
        texts(&root, "#rows .row .key").first().map(String::as_str) == Some("n00")
    })
    .await;
    assert!(
        texts(&root, ".tablet-detail")
            .concat()
            .contains(" from m to the end")
    );
    unmount(app, &root);
}
