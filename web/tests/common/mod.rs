//! Helpers shared by the browser tests: a fresh mount point, a clean page
//! (no autosave, no fragment), waiting for the app, and events as a person
//! would cause them.
#![allow(dead_code)]

use std::time::Duration;

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

/// The app's style sheet, so the panels have the sizes they have in the
/// real page (the rows panel draws only what fits).
const STYLE: &str = include_str!("../../../static/style.css");

/// A clean page and a fresh element appended to `<body>`, to mount into.
pub fn fresh_root() -> Element {
    reset_page();
    let document = gloo::utils::document();
    if document.get_element_by_id("tabletop-style").is_none() {
        let style = document.create_element("style").expect("creating works");
        style.set_id("tabletop-style");
        style.set_text_content(Some(STYLE));
        document
            .head()
            .expect("the test page has a head")
            .append_child(&style)
            .expect("appending works");
    }
    let root = document
        .create_element("div")
        .expect("creating a div works");
    // Full size, above the test runner's own output.
    let _ = root.set_attribute(
        "style",
        "position: fixed; inset: 0; z-index: 10; background: var(--bg)",
    );
    document
        .body()
        .expect("the test page has a body")
        .append_child(&root)
        .expect("appending works");
    root
}

/// A fresh element like [`fresh_root`], but keeping the page's fragment
/// (a share link being opened).
pub fn fresh_root_keeping_fragment() -> Element {
    let fragment = tabletop_web::browser::fragment();
    let root = fresh_root();
    tabletop_web::browser::set_fragment(&fragment);
    root
}

/// Forgets autosave (the shared copy, its owner and this tab's own) and
/// the fragment, so the app boots with the sample.
pub fn reset_page() {
    use tabletop_web::browser::{AUTOSAVE_KEY, AUTOSAVE_OWNER_KEY};
    tabletop_web::browser::storage_remove(AUTOSAVE_KEY);
    tabletop_web::browser::storage_remove(AUTOSAVE_OWNER_KEY);
    tabletop_web::browser::session_remove(AUTOSAVE_KEY);
    let window = gloo::utils::window();
    let location = window.location();
    let bare = format!(
        "{}{}",
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    window
        .history()
        .expect("history exists")
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&bare))
        .expect("replaceState works");
}

/// Unmounts an app and removes its element.
pub fn unmount(app: yew::AppHandle<tabletop_web::App>, root: &Element) {
    app.destroy();
    root.remove();
}

/// The text of every element `selector` matches under `root`.
pub fn texts(root: &Element, selector: &str) -> Vec<String> {
    let nodes = root
        .query_selector_all(selector)
        .expect("the selector is valid");
    (0..nodes.length())
        .filter_map(|i| nodes.item(i))
        .map(|n| n.text_content().unwrap_or_default())
        .collect()
}

/// The first element `selector` matches under `root`.
pub fn find(root: &Element, selector: &str) -> Element {
    root.query_selector(selector)
        .expect("the selector is valid")
        .unwrap_or_else(|| panic!("{selector} is not on the page: {:?}", root.text_content()))
}

/// Waits (at most ~5 s) until `check` holds.
pub async fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    for _ in 0..500 {
        if check() {
            return;
        }
        yew::platform::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("waited in vain for {what}");
}

/// Waits until `selector` matches something under `root`.
pub async fn wait_for(root: &Element, selector: &str) {
    let r = root.clone();
    wait_until(selector, move || {
        r.query_selector(selector).ok().flatten().is_some()
    })
    .await;
}

/// Lets Yew render and effects run.
pub async fn settle() {
    yew::platform::time::sleep(Duration::from_millis(30)).await;
}

/// Mounts the app with the sample table and waits for its rows.
pub async fn mounted() -> (Element, yew::AppHandle<tabletop_web::App>) {
    let root = fresh_root();
    let app = tabletop_web::mount(root.clone());
    wait_for(&root, "#rows .row").await;
    (root, app)
}

/// Types `value` into an input or textarea, firing `input` as typing does.
pub fn type_into(element: &Element, value: &str) {
    if let Some(input) = element.dyn_ref::<web_sys::HtmlInputElement>() {
        input.set_value(value);
    } else if let Some(area) = element.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        area.set_value(value);
    } else {
        panic!("not a text field: {}", element.outer_html());
    }
    let init = web_sys::InputEventInit::new();
    init.set_bubbles(true);
    let event = web_sys::InputEvent::new_with_event_init_dict("input", &init)
        .expect("making an input event works");
    element.dispatch_event(&event).expect("dispatching works");
}

/// Picks `value` in a select, firing `change`.
pub fn choose(element: &Element, value: &str) {
    let select: &web_sys::HtmlSelectElement = element.dyn_ref().expect("a select");
    select.set_value(value);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event =
        web_sys::Event::new_with_event_init_dict("change", &init).expect("making an event works");
    element.dispatch_event(&event).expect("dispatching works");
}

/// Presses a key on `element` (with Ctrl if asked), as a keydown.
pub fn press(element: &Element, key: &str, ctrl: bool) {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_ctrl_key(ctrl);
    let event = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init)
        .expect("making a key event works");
    element.dispatch_event(&event).expect("dispatching works");
}

/// Clicks the first element `selector` matches.
pub fn click(root: &Element, selector: &str) {
    find(root, selector)
        .dyn_into::<HtmlElement>()
        .expect("an HTML element")
        .click();
}

/// Clicks the button whose text is `label`.
pub fn click_button(root: &Element, label: &str) {
    let buttons = root.query_selector_all("button").expect("valid");
    for i in 0..buttons.length() {
        let node = buttons.item(i).expect("in range");
        if node.text_content().unwrap_or_default().trim() == label {
            node.dyn_into::<HtmlElement>().expect("a button").click();
            return;
        }
    }
    panic!("no button {label:?}");
}

/// The region (panel) with accessible name `name`.
pub fn region(root: &Element, name: &str) -> Element {
    find(root, &format!("section[aria-label=\"{name}\"]"))
}
