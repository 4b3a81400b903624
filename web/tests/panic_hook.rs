//! A real panic in the app's wasm, in headless Chromium: the hook must put
//! the message in an alert region and log it to the console, instead of
//! leaving a blank page. (Its own test binary, because after a panic the
//! module has aborted and no other test should share it.)
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn a_panic_shows_an_alert_and_logs_to_the_console() {
    let window = gloo::utils::window();
    let console = js_sys::Reflect::get(&window, &"console".into()).expect("window.console exists");

    // Record console.error calls (the test harness's own stays untouched
    // for everything else once we restore it).
    let logged: Rc<RefCell<Vec<String>>> = Rc::default();
    let original_error =
        js_sys::Reflect::get(&console, &"error".into()).expect("console.error exists");
    let recorder = {
        let logged = Rc::clone(&logged);
        Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(move |message: wasm_bindgen::JsValue| {
            logged
                .borrow_mut()
                .push(message.as_string().unwrap_or_default());
        })
    };
    js_sys::Reflect::set(&console, &"error".into(), recorder.as_ref())
        .expect("console is writable");

    tabletop_web::install_panic_hook();

    // Panic in a separate browser task, as a real event handler would; the
    // wasm instance traps there, and this test keeps running.
    let boom =
        Closure::once_into_js(|| -> () { panic!("deliberate test panic in a timer callback") });
    window
        .set_timeout_with_callback_and_timeout_and_arguments_0(boom.unchecked_ref(), 0)
        .expect("setTimeout works");
    yew::platform::time::sleep(Duration::from_millis(100)).await;

    js_sys::Reflect::set(&console, &"error".into(), &original_error).expect("console is writable");
    drop(recorder);

    let region = gloo::utils::document()
        .get_element_by_id(tabletop_web::fatal::ALERT_ID)
        .expect("the panic hook added the alert region");
    assert_eq!(region.get_attribute("role").as_deref(), Some("alert"));
    let text = region.text_content().unwrap_or_default();
    assert!(
        text.contains("deliberate test panic in a timer callback"),
        "{text}"
    );
    assert!(
        text.contains("panic_hook.rs"),
        "the message names where it panicked: {text}"
    );

    let logged = logged.borrow();
    assert!(
        logged
            .iter()
            .any(|m| m.starts_with("Tabletop stopped:") && m.contains("deliberate test panic")),
        "console.error got: {logged:?}"
    );
}
