//! What happens when the app panics.
//!
//! A panic in wasm aborts the module: Yew stops, and without help the page
//! stays blank or frozen with no hint why. The hook installed here first
//! logs the panic to the browser console, then puts an alert region at the
//! top of the page with the message, so a person sees that Tabletop
//! stopped, why, and that reloading starts it again.
//!
//! The alert is built with plain DOM calls, not Yew, because Yew is the
//! part that can no longer run; and with text nodes only, so a message
//! can never inject markup.

use std::sync::Once;

use wasm_bindgen::JsCast;

/// Id of the alert region, so there is only ever one.
pub const ALERT_ID: &str = "fatal-error";

/// Installs the panic hook (once; later calls do nothing).
pub fn install_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let message = info.to_string();
            web_sys::console::error_1(&format!("Tabletop stopped: {message}").into());
            show_fatal_error(&message);
        }));
    });
}

/// Shows `message` in the page's alert region, creating the region at the
/// top of `<body>` if needed. Never panics: it runs inside the panic hook.
pub fn show_fatal_error(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    let region = match document.get_element_by_id(ALERT_ID) {
        Some(existing) => existing,
        None => {
            let Ok(region) = document.create_element("section") else {
                return;
            };
            region.set_id(ALERT_ID);
            region.set_class_name("fatal-error");
            let _ = region.set_attribute("role", "alert");
            // Focusable, so focus (and screen readers) can move to it.
            let _ = region.set_attribute("tabindex", "-1");
            let _ = body.insert_before(&region, body.first_child().as_ref());
            region
        }
    };
    region.set_text_content(None);
    let parts = [
        ("h2", "Tabletop stopped because of an internal error"),
        ("pre", message),
        (
            "p",
            "Reload the page to start again. The browser console has the details.",
        ),
    ];
    for (tag, text) in parts {
        if let Ok(element) = document.create_element(tag) {
            element.set_text_content(Some(text));
            let _ = region.append_child(&element);
        }
    }
    if let Some(region) = region.dyn_ref::<web_sys::HtmlElement>() {
        let _ = region.focus();
    }
}
