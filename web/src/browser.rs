//! Everything that talks to the browser outside the DOM tree Yew manages:
//! clocks, the address bar, localStorage, file downloads and uploads, the
//! clipboard. Failures here (storage full, clipboard refused) are reported
//! to the caller, never panics.

use wasm_bindgen::{JsCast, JsValue};

use crate::state::Clock;
use crate::state::layout::Panels;

/// The key autosave uses in localStorage (shared by the tabs) and in
/// sessionStorage (each tab's own copy, which a reload of that tab opens).
pub const AUTOSAVE_KEY: &str = "tabletop.autosave";

/// The localStorage key naming the tab that keeps the autosave: the tab
/// opened last, or the one that took it back. Other tabs stop writing the
/// shared autosave (see [`crate::autosave_owner`]).
pub const AUTOSAVE_OWNER_KEY: &str = "tabletop.autosave.owner";

/// The browser's clocks: `Date.now()` for the instance, `performance.now()`
/// for work budgets.
#[derive(Clone, Copy, Debug, Default)]
pub struct BrowserClock;

impl Clock for BrowserClock {
    fn wall_micros(&self) -> i64 {
        // Date.now() is a whole number of milliseconds well inside i64.
        #[allow(clippy::cast_possible_truncation)]
        let millis = js_sys::Date::now() as i64;
        millis * 1000
    }

    fn now_ms(&self) -> f64 {
        web_sys::window()
            .and_then(|w| w.performance())
            .map_or_else(js_sys::Date::now, |p| p.now())
    }

    fn measure(&self, name: &str, start_ms: f64) {
        measure(name, start_ms);
        if name == crate::state::SLICE_MEASURE {
            SLICE_END_MS.set(self.now_ms());
        }
    }
}

/// Marks the page's body with whether a load or its catching up is still
/// under way (`data-settling="true"`, else `"false"`): until then the
/// panels' counts may still change, and end-to-end tests wait for it.
/// Called after every action (every frame of a playing simulation), it
/// touches the page only when the mark changes.
pub fn mark_settling(settling: bool) {
    if SETTLING_MARK.replace(Some(settling)) == Some(settling) {
        return;
    }
    let body = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body());
    if let Some(body) = body {
        let _ = body.set_attribute("data-settling", if settling { "true" } else { "false" });
    }
}

thread_local! {
    /// The body's data-settling mark as last set (None: never).
    static SETTLING_MARK: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
    /// When the last slice of background work ended (0: measured since).
    static SLICE_END_MS: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// Records the redraw that followed the last slice of background work
/// (from the slice's end until now, when the page's effects run), once.
pub fn measure_redraw_after_slice() {
    let end = SLICE_END_MS.replace(0.0);
    if end > 0.0 {
        measure(crate::state::REDRAW_MEASURE, end);
    }
}

/// `performance.measure(name, { start: start_ms, end: now })`: a User
/// Timing entry that profilers and the bulk-load benchmark read. Does
/// nothing where the browser has no such call.
pub fn measure(name: &str, start_ms: f64) {
    let Some(perf) = web_sys::window().and_then(|w| w.performance()) else {
        return;
    };
    let options = js_sys::Object::new();
    let end = perf.now();
    let set = |key: &str, value: f64| {
        js_sys::Reflect::set(&options, &JsValue::from_str(key), &JsValue::from_f64(value))
    };
    if set("start", start_ms).is_err() || set("end", end).is_err() {
        return;
    }
    let Ok(call) = js_sys::Reflect::get(&perf, &JsValue::from_str("measure")) else {
        return;
    };
    if let Some(call) = call.dyn_ref::<js_sys::Function>() {
        // A browser without the options form throws: nothing is lost.
        let _ = call.call2(&perf, &JsValue::from_str(name), &options);
    }
}

/// One `?name=value` parameter of the page's address.
pub fn query_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    search
        .trim_start_matches('?')
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| {
            js_sys::decode_uri_component(v)
                .ok()
                .and_then(|s| s.as_string())
        })
        .map(Option::unwrap_or_default)
}

/// Whether the page is an embed, and which panels it shows:
/// `?embed=1&panels=rows,console`.
pub fn embed_settings() -> (bool, Panels) {
    let embed = query_param("embed").is_some_and(|v| v != "0" && v != "false");
    let panels = match query_param("panels") {
        Some(list) => Panels::parse(&list),
        None => Panels::default(),
    };
    (embed, panels)
}

/// The page's fragment, without `#`.
pub fn fragment() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .map(|h| h.trim_start_matches('#').to_string())
        .unwrap_or_default()
}

/// Replaces the fragment without adding a history entry or reloading.
pub fn set_fragment(text: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    if fragment() == text {
        return;
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{text}")));
    }
}

/// The page's address, fragment included (what a share link is).
pub fn href() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default()
}

/// Reads a localStorage entry.
pub fn storage_get(key: &str) -> Option<String> {
    web_sys::window()?
        .local_storage()
        .ok()??
        .get_item(key)
        .ok()?
}

/// Writes a localStorage entry; false if the browser refused (full,
/// disabled).
pub fn storage_set(key: &str, value: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .is_some_and(|s| s.set_item(key, value).is_ok())
}

/// The keys of localStorage, in the browser's order.
#[must_use]
pub fn storage_keys() -> Vec<String> {
    let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) else {
        return Vec::new();
    };
    let n = storage.length().unwrap_or(0);
    (0..n)
        .filter_map(|i| storage.key(i).ok().flatten())
        .collect()
}

/// Removes a localStorage entry.
pub fn storage_remove(key: &str) {
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.remove_item(key);
    }
}

/// Reads a sessionStorage entry (this tab's own).
pub fn session_get(key: &str) -> Option<String> {
    web_sys::window()?
        .session_storage()
        .ok()??
        .get_item(key)
        .ok()?
}

/// Writes a sessionStorage entry; false if the browser refused.
pub fn session_set(key: &str, value: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.session_storage().ok().flatten())
        .is_some_and(|s| s.set_item(key, value).is_ok())
}

/// Removes a sessionStorage entry (this tab's own).
pub fn session_remove(key: &str) {
    if let Some(storage) = web_sys::window().and_then(|w| w.session_storage().ok().flatten()) {
        let _ = storage.remove_item(key);
    }
}

/// Offers `bytes` as a file download named `filename`.
pub fn download(bytes: &[u8], filename: &str) -> Result<(), String> {
    let document = gloo::utils::document();
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/octet-stream");
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|e| format!("{e:?}"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| format!("{e:?}"))?;
    let anchor: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|e| format!("{e:?}"))?
        .dyn_into()
        .map_err(|_| "not an anchor".to_string())?;
    anchor.set_href(&url);
    anchor.set_download(filename);
    anchor.set_class_name("visually-hidden");
    let body = document.body().ok_or("the page has no body")?;
    let _ = body.append_child(&anchor);
    anchor.click();
    anchor.remove();
    // Revoke later: some browsers start the download after click returns.
    let url_later = url.clone();
    gloo::timers::callback::Timeout::new(10_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url_later);
    })
    .forget();
    Ok(())
}

/// Calls `report` now and whenever `element` changes size, until the
/// returned watch is dropped.
pub fn watch_size(element: &web_sys::Element, report: impl FnMut() + 'static) -> Option<SizeWatch> {
    let mut report = report;
    report();
    let callback = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(report);
    let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
    observer.observe(element);
    Some(SizeWatch {
        observer,
        _callback: callback,
    })
}

/// A size watch from [`watch_size`]; dropping it stops the watching.
pub struct SizeWatch {
    observer: web_sys::ResizeObserver,
    _callback: wasm_bindgen::closure::Closure<dyn FnMut()>,
}

impl Drop for SizeWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// Runs a callback as a new task of the page's event loop as soon as the
/// loop is free, through a `MessageChannel` (a `setTimeout(0)` chain is
/// clamped to 4 ms a step). Work slices posted this way run back to
/// back, and the browser still draws between them.
pub struct TaskPoster {
    port: web_sys::MessagePort,
    channel: web_sys::MessageChannel,
    _callback: wasm_bindgen::closure::Closure<dyn FnMut()>,
}

impl TaskPoster {
    /// A poster that calls `run` once per [`TaskPoster::post`].
    pub fn new(run: impl FnMut() + 'static) -> Option<TaskPoster> {
        let channel = web_sys::MessageChannel::new().ok()?;
        let callback = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(run);
        channel
            .port1()
            .set_onmessage(Some(callback.as_ref().unchecked_ref()));
        Some(TaskPoster {
            port: channel.port2(),
            channel,
            _callback: callback,
        })
    }

    /// Asks for one call; returns whether the message went.
    pub fn post(&self) -> bool {
        self.port.post_message(&JsValue::NULL).is_ok()
    }
}

impl Drop for TaskPoster {
    fn drop(&mut self) {
        self.channel.port1().set_onmessage(None);
    }
}

/// A file input's change handler: reads the picked file and hands its name
/// and bytes to `then`, or the reason it could not be read to `fail`. The
/// input is cleared, so picking the same file again fires again.
pub fn on_file_picked(
    then: yew::Callback<(String, Vec<u8>)>,
    fail: yew::Callback<String>,
) -> yew::Callback<web_sys::Event> {
    yew::Callback::from(move |e: web_sys::Event| {
        let Some(input) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|files| files.get(0)) else {
            return;
        };
        input.set_value("");
        let name = file.name();
        let then = then.clone();
        let fail = fail.clone();
        wasm_bindgen_futures::spawn_local(async move {
            match read_file(file).await {
                Ok(bytes) => then.emit((name, bytes)),
                Err(e) => fail.emit(e),
            }
        });
    })
}

/// Reads a picked file's bytes.
pub async fn read_file(file: web_sys::File) -> Result<Vec<u8>, String> {
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("the file could not be read: {e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Puts text on the clipboard (may be refused; the caller shows the text
/// anyway).
pub fn copy_text(text: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let navigator = window.navigator();
    // Only secure pages (https, localhost) have a clipboard; elsewhere
    // `navigator.clipboard` is undefined and must not be called.
    let has_clipboard = js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard"))
        .is_ok_and(|c| !c.is_undefined() && !c.is_null());
    if has_clipboard {
        // The promise may reject (no permission); the link is shown anyway,
        // and awaiting it here keeps the rejection from being reported as
        // unhandled.
        let promise = navigator.clipboard().write_text(text);
        wasm_bindgen_futures::spawn_local(async move {
            let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
        });
    }
}

/// A file name for a snapshot taken now: `tabletop-20260101-120000.snapshot`.
pub fn snapshot_file_name(wall_micros: i64) -> String {
    let secs = wall_micros.div_euclid(1_000_000);
    let (y, m, d) = crate::view_model::format::civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "tabletop-{y:04}{m:02}{d:02}-{:02}{:02}{:02}.snapshot",
        s / 3600,
        s % 3600 / 60,
        s % 60
    )
}

/// Where a click fell across the element matching `selector` that holds
/// its target (a bar of blocks), in percent of that element's width from
/// its left edge; `None` when there is no such element or it has no width.
/// Yew delegates events, so the current target is not always the bar.
pub fn click_percent_across(e: &web_sys::MouseEvent, selector: &str) -> Option<f64> {
    let bar = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|t| t.closest(selector).ok().flatten())?;
    let rect = bar.get_bounding_client_rect();
    (rect.width() > 0.0).then(|| (f64::from(e.client_x()) - rect.left()) / rect.width() * 100.0)
}
