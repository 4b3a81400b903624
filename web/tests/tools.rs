//! The tools in headless Chromium, driven as a person would: the Import
//! dialog's live translation, its line:column errors and Apply; the Export
//! dialog's files; the console's SQL tab with EXPLAIN; and the views list
//! in the Schema panel.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const CATALOG: &str = include_str!("../../core/tests/translate_fixtures/product_catalog.json");

fn is_open(root: &web_sys::Element, id: &str) -> bool {
    root.query_selector(&format!("dialog#{id}"))
        .ok()
        .flatten()
        .is_some_and(|d| d.has_attribute("open"))
}

async fn run_sql(root: &web_sys::Element, statement: &str) -> String {
    let before = texts(root, ".transcript .entry").len();
    type_into(&find(root, "textarea[aria-label=Command]"), statement);
    click_button(root, "Run");
    wait_until(statement, || {
        texts(root, ".transcript .entry").len() > before
    })
    .await;
    texts(root, ".transcript .entry:last-child .entry-output").concat()
}

#[wasm_bindgen_test]
async fn a_dynamodb_model_previews_as_you_type_and_applies() {
    let (root, app) = mounted().await;
    click_button(&root, "Import…");
    wait_for(&root, "dialog#import-dialog").await;
    assert!(is_open(&root, "import-dialog"), "opened as a modal");
    let area = find(&root, "textarea[aria-label='DynamoDB model']");
    type_into(&area, CATALOG);
    wait_for(&root, ".translated-table").await;
    let preview = texts(&root, ".import-preview").concat();
    assert!(preview.contains("ProductCatalog"), "{preview}");
    assert!(preview.contains("Hats#fedora#brandA"), "{preview}");
    assert!(preview.contains("5 rows"), "{preview}");
    click_button(&root, "Apply");
    wait_until("the dialog closes", || {
        root.query_selector("dialog#import-dialog")
            .ok()
            .flatten()
            .is_none()
    })
    .await;
    wait_until("the new table is listed", || {
        texts(&root, "#table-list .table-name").contains(&"ProductCatalog".to_string())
    })
    .await;
    wait_until("its rows are shown", || {
        texts(&root, "#rows .row .key").contains(&"Hats#fedora#brandA".to_string())
    })
    .await;
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn a_broken_oracle_ddl_points_at_its_line_and_changes_nothing() {
    let (root, app) = mounted().await;
    click_button(&root, "Import…");
    wait_for(&root, "dialog#import-dialog").await;
    click(&root, "input[name=import-source][value=oracle]");
    wait_for(&root, "textarea[aria-label='Oracle NoSQL DDL']").await;
    let area = find(&root, "textarea[aria-label='Oracle NoSQL DDL']");
    type_into(
        &area,
        "CREATE TABLE users (\n  id INTEGER,\n  name STRNG,\n  PRIMARY KEY(id)\n)",
    );
    wait_for(&root, "#import-error").await;
    let error = texts(&root, "#import-error strong").concat();
    assert!(error.starts_with("3:"), "{error}");
    assert_eq!(
        texts(&root, ".code-line.error-line"),
        ["  name STRNG,\n"],
        "the line is highlighted"
    );
    assert_eq!(area.get_attribute("aria-invalid").as_deref(), Some("true"));
    let apply = find(&root, ".modal-actions .button.primary");
    assert!(apply.has_attribute("disabled"), "nothing to apply");
    click_button(
        &root,
        &format!(
            "Go to line 3, column {}",
            &error[2..].split(':').next().unwrap_or("1")
        ),
    );
    settle().await;
    click(&root, "#import-dialog .modal-close");
    wait_until("closed", || !is_open(&root, "import-dialog")).await;
    assert_eq!(
        texts(&root, "#table-list .table-name"),
        ["mobile-time-series"]
    );
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn the_export_dialog_previews_each_file() {
    let (root, app) = mounted().await;
    click_button(&root, "Export…");
    wait_for(&root, "dialog#export-dialog").await;
    assert!(is_open(&root, "export-dialog"));
    let cbt = texts(&root, ".export-preview").concat();
    assert!(
        cbt.contains("createtable mobile-time-series families=stats_detail:maxversions=3"),
        "{cbt}"
    );
    assert!(cbt.contains(" set mobile-time-series "), "{cbt}");
    assert!(
        texts(&root, ".export-actions button")
            .concat()
            .contains("Download playground.cbt")
    );
    click(&root, "#export-tab-terraform");
    wait_until("the Terraform file", || {
        texts(&root, ".export-preview")
            .concat()
            .contains("resource \"google_bigtable_table\"")
    })
    .await;
    // Schema only: the data choice takes the set lines out of the script.
    choose(
        &find(&root, "select[aria-label='Data in the cbt script']"),
        "none",
    );
    click(&root, "#export-tab-cbt");
    wait_until("the schema-only script", || {
        let text = texts(&root, ".export-preview").concat();
        text.contains("createtable") && !text.contains(" set mobile-time-series ")
    })
    .await;
    click(&root, "#export-tab-csv");
    wait_until("the CSV file", || {
        texts(&root, ".export-preview")
            .concat()
            .starts_with(",stats_detail")
    })
    .await;
    click(&root, "#export-dialog .modal-close");
    wait_until("closed", || {
        root.query_selector("dialog#export-dialog")
            .ok()
            .flatten()
            .is_none()
    })
    .await;
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn the_sql_tab_runs_queries_explains_them_and_lists_views() {
    let (root, app) = mounted().await;
    click(&root, "#console-tab-sql");
    settle().await;
    let out = run_sql(
        &root,
        "SELECT _key FROM `mobile-time-series` WHERE STARTS_WITH(_key, 'phone#')",
    )
    .await;
    assert!(out.contains("phone#4c410523#20200501"), "{out}");
    assert!(!out.contains("tablet#"), "{out}");
    assert_eq!(
        texts(&root, ".transcript .entry:last-child .read-report"),
        ["rows: 3 returned / 3 seen · cells: 3 returned / 10 seen · tablets visited: 1 of 1 (#0)"]
    );
    let plan = run_sql(
        &root,
        "EXPLAIN SELECT _key FROM `mobile-time-series` WHERE STARTS_WITH(_key, 'phone#')",
    )
    .await;
    assert!(plan.contains("prefix scan"), "{plan}");
    let full = run_sql(
        &root,
        "EXPLAIN SELECT _key FROM `mobile-time-series` WHERE stats_summary['os_build'] = 'x'",
    )
    .await;
    assert!(full.contains("full"), "{full}");

    // Enter runs a complete statement.
    let input = find(&root, "textarea[aria-label=Command]");
    type_into(&input, "SELECT 1 AS one");
    press(&input, "Enter", false);
    wait_until("Enter ran it", || {
        texts(&root, ".transcript .entry:last-child .entry-input")
            .concat()
            .contains("SELECT 1 AS one")
    })
    .await;

    create_builds_view(&root).await;
    assert!(
        texts(&root, "#views-list .view-lag")
            .concat()
            .contains("caught up")
    );
    let input = find(&root, "textarea[aria-label=Command]");
    let _ = input.dyn_ref::<web_sys::HtmlElement>().map(|e| e.focus());
    unmount(app, &root);
}

/// Makes the materialized view `builds` in the SQL console and waits until
/// the Schema panel lists it, alone.
async fn create_builds_view(root: &web_sys::Element) {
    run_sql(
        root,
        "CREATE MATERIALIZED VIEW builds AS SELECT stats_summary['os_build'] AS build, COUNT(*) AS n FROM `mobile-time-series` GROUP BY build",
    )
    .await;
    wait_for(root, "#views-list .view-item").await;
    assert_eq!(texts(root, "#views-list .view-name"), ["builds"]);
}

/// How many times the page made the Schema panel's lists of views (the
/// User Timing entries it records each time).
fn views_made() -> u32 {
    let performance = gloo::utils::window()
        .performance()
        .expect("the test page has performance");
    let get = js_sys::Reflect::get(&performance, &"getEntriesByName".into())
        .expect("getEntriesByName exists")
        .dyn_into::<js_sys::Function>()
        .expect("a function");
    let entries = get
        .call1(&performance, &tabletop_web::state::VIEWS_MEASURE.into())
        .expect("getEntriesByName works")
        .dyn_into::<js_sys::Array>()
        .expect("an array");
    entries.length()
}

#[wasm_bindgen_test]
async fn typing_redraws_the_page_without_listing_the_views_again() {
    let (root, app) = mounted().await;
    settle().await;
    let before = views_made();
    assert!(before > 0, "the views were listed for the first render");
    // Every keystroke is an action the whole workspace redraws for; none
    // can change a view.
    let input = find(&root, "textarea[aria-label=Command]");
    for text in ["l", "ls", "ls ", "ls x"] {
        type_into(&input, text);
        settle().await;
    }
    assert_eq!(views_made(), before, "typing listed the views again");
    // A view made in the console is listed at once.
    click(&root, "#console-tab-sql");
    settle().await;
    create_builds_view(&root).await;
    assert!(views_made() > before);
    unmount(app, &root);
}
