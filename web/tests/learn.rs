//! The learning half in headless Chromium, driven as a person would: the
//! row-key designer (validation as you type, keys that stay text), the
//! advisor's one-click fix and its undo, a lesson from start to a passing
//! check with its progress stored in the browser, and the left column's
//! tabs by keyboard.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use tabletop_web::view_model::learn::PROGRESS_KEY;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

async fn fresh_app() -> (web_sys::Element, yew::AppHandle<tabletop_web::App>) {
    tabletop_web::browser::storage_remove(PROGRESS_KEY);
    mounted().await
}

async fn pick_scenario(root: &web_sys::Element, file: &str) {
    choose(
        &find(root, "select[aria-label=\"Start from a scenario\"]"),
        file,
    );
    wait_for(root, ".kd-pattern").await;
}

fn rules(root: &web_sys::Element) -> Vec<String> {
    texts(root, ".finding .rule-id")
}

/// The listed finding of `rule`.
fn finding(root: &web_sys::Element, rule: &str) -> web_sys::Element {
    let findings = root.query_selector_all(".finding").unwrap();
    (0..findings.length())
        .filter_map(|i| findings.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
        .find(|f| {
            f.query_selector(".rule-id")
                .ok()
                .flatten()
                .and_then(|r| r.text_content())
                .as_deref()
                == Some(rule)
        })
        .unwrap_or_else(|| panic!("no {rule} finding is listed"))
}

fn text_of(root: &web_sys::Element, selector: &str) -> String {
    find(root, selector).text_content().unwrap_or_default()
}

#[wasm_bindgen_test]
async fn the_designer_checks_as_you_type_and_keys_stay_text() {
    let (root, app) = fresh_app().await;
    assert!(
        texts(&root, ".key-designer .empty")
            .concat()
            .contains("No design yet")
    );
    pick_scenario(&root, "lesson_scores_unpadded.toml").await;
    assert_eq!(text_of(&root, ".kd-pattern"), "{player_id:int}#{game:enum}");

    let width = find(&root, "input[aria-label=\"Segment 1 width\"]");
    type_into(&width, "wide");
    wait_for(&root, ".key-designer .field-error").await;
    let error = text_of(&root, ".key-designer .field-error");
    assert!(error.contains("whole number"), "{error}");
    assert_eq!(
        text_of(&root, ".kd-pattern"),
        "{player_id:int}#{game:enum}",
        "not applied"
    );

    type_into(&width, "6");
    let r = root.clone();
    wait_until("the padded key", move || {
        text_of(&r, ".kd-pattern").contains("int6")
    })
    .await;
    assert!(
        root.query_selector(".key-designer .field-error")
            .unwrap()
            .is_none()
    );
    for key in texts(&root, ".kd-examples li") {
        assert!(key.starts_with("0"), "{key}");
    }

    // A constant segment with markup in it: shown as text, never as markup.
    click_button(&root, "Add segment");
    let r = root.clone();
    wait_until("a third segment", move || {
        texts(&r, ".kd-segment").len() == 3
    })
    .await;
    type_into(
        &find(&root, "input[aria-label=\"Segment 3 text\"]"),
        "<b>x</b>",
    );
    let r = root.clone();
    wait_until("the new key", move || {
        text_of(&r, ".kd-pattern").contains("<b>x</b>")
    })
    .await;
    assert!(texts(&root, ".kd-examples li")[0].ends_with("#<b>x</b>"));
    assert!(root.query_selector(".kd-examples b").unwrap().is_none());

    // Moving a segment reorders the key.
    click(&root, "button[aria-label=\"Move segment 3 up\"]");
    let r = root.clone();
    wait_until("the moved segment", move || {
        text_of(&r, ".kd-pattern").starts_with("{player_id:int6}#<b>x</b>#")
    })
    .await;
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn a_fix_is_applied_with_one_click_and_undone() {
    let (root, app) = fresh_app().await;
    pick_scenario(&root, "lesson_scores_unpadded.toml").await;
    wait_for(&root, ".finding").await;
    assert!(rules(&root).contains(&"unpadded_number".to_string()));
    let before = texts(&root, ".kd-examples li");
    let access = texts(&root, ".access-item .shape-badge");
    assert_eq!(access.len(), 1);

    // The unpadded_number finding's first fix.
    click(&finding(&root, "unpadded_number"), ".fix-apply");
    let r = root.clone();
    wait_until("the finding to go", move || {
        !rules(&r).contains(&"unpadded_number".to_string())
    })
    .await;
    assert_ne!(texts(&root, ".kd-examples li"), before);
    assert!(text_of(&root, ".undo-bar").contains("Applied"));

    click(&root, ".undo-bar button");
    let r = root.clone();
    wait_until("the finding to come back", move || {
        rules(&r).contains(&"unpadded_number".to_string())
    })
    .await;
    assert_eq!(texts(&root, ".kd-examples li"), before);

    // Its lesson opens in the Lessons tab.
    click(&finding(&root, "unpadded_number"), ".finding-lesson");
    wait_for(&root, "#lesson-title").await;
    assert_eq!(
        text_of(&root, "#lesson-title"),
        "Pad numbers so byte order is numeric order"
    );
    assert!(
        find(&root, "#left-pane-schema").has_attribute("hidden"),
        "the Lessons tab is shown"
    );
    unmount(app, &root);
}

#[wasm_bindgen_test]
async fn a_lesson_runs_from_start_to_a_passing_check_and_is_remembered() {
    let (root, app) = fresh_app().await;
    click(&root, "#left-tab-lessons");
    wait_for(&root, ".lesson-list").await;
    assert!(text_of(&root, ".lesson-progress").starts_with("0 of "));
    click(&root, ".lesson-open[data-lesson=\"row-ranges\"]");
    wait_for(&root, "#lesson-title").await;
    click_button(&root, "Start lesson");
    wait_for(&root, ".lesson-actions .primary").await;
    let r = root.clone();
    wait_until("the lesson's rows", move || {
        texts(&r, "#rows .row .key")
            .first()
            .is_some_and(|k| k == "phone#4c410523#20200401")
    })
    .await;

    click_button(&root, "Check");
    wait_for(&root, ".verdict.failed").await;
    assert!(text_of(&root, ".verdict").contains("0 of 1 checks pass"));

    let input = find(&root, "textarea[aria-label=Command]");
    type_into(&input, "read mobile prefix=phone#4c410523#202005");
    click_button(&root, "Run");
    let r = root.clone();
    wait_until("the read", move || {
        texts(&r, ".transcript .entry")
            .last()
            .is_some_and(|t| t.contains("prefix=phone#4c410523#202005"))
    })
    .await;
    click_button(&root, "Check");
    wait_for(&root, ".lesson-dock .verdict.passed").await;
    click(&root, "#left-tab-lessons");
    assert!(text_of(&root, "article.lesson .lesson-kicker").contains("completed"));

    let r = root.clone();
    wait_until("the progress to be stored", move || {
        let _ = &r;
        tabletop_web::browser::storage_get(PROGRESS_KEY)
            .is_some_and(|t| t.contains("\"completed\":[\"row-ranges\"]"))
    })
    .await;
    let stored = tabletop_web::browser::storage_get(PROGRESS_KEY).unwrap();
    assert!(stored.contains("\"current\":\"row-ranges\""), "{stored}");
    unmount(app, &root);

    // A new page reads it back (the autosave is forgotten, the progress
    // is not).
    let root = fresh_root();
    let app = tabletop_web::mount(root.clone());
    wait_for(&root, "#rows .row").await;
    click(&root, "#left-tab-lessons");
    wait_for(&root, "#lesson-title").await;
    assert!(text_of(&root, "article.lesson .lesson-kicker").contains("completed"));
    click_button(&root, "All lessons");
    wait_for(&root, ".lesson-list").await;
    assert!(text_of(&root, ".lesson-progress").starts_with("1 of "));
    assert_eq!(texts(&root, ".lesson-item.done .lesson-title").len(), 1);
    unmount(app, &root);
    tabletop_web::browser::storage_remove(PROGRESS_KEY);
}

#[wasm_bindgen_test]
async fn the_left_tabs_work_by_keyboard() {
    let (root, app) = fresh_app().await;
    let schema_tab = find(&root, "#left-tab-schema");
    assert_eq!(
        schema_tab.get_attribute("aria-selected").as_deref(),
        Some("true")
    );
    press(&schema_tab, "ArrowRight", false);
    let r = root.clone();
    wait_until("the Lessons tab", move || {
        find(&r, "#left-tab-lessons")
            .get_attribute("aria-selected")
            .as_deref()
            == Some("true")
    })
    .await;
    assert!(find(&root, "#left-pane-schema").has_attribute("hidden"));
    assert!(!find(&root, "#left-pane-lessons").has_attribute("hidden"));
    press(&find(&root, "#left-tab-lessons"), "Home", false);
    let r = root.clone();
    wait_until("the Schema tab", move || {
        !find(&r, "#left-pane-schema").has_attribute("hidden")
    })
    .await;
    unmount(app, &root);
}
