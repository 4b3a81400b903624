//! The Tabletop playground in the browser.
//!
//! A Yew app over [`tabletop_core`]: the core keeps the tables and does
//! everything Bigtable would do; this crate only holds the app state,
//! turns what the core returns into display data and draws it.
//!
//! - [`state`]: the one reducer ([`state::AppState`], [`state::Action`]);
//!   plain Rust, tested natively.
//! - [`view_model`]: pure functions from core results to display data.
//! - [`demo`]: the sample table the page loads at start.
//! - `components`: small Yew components, props in and HTML out.
//! - [`fatal`]: the panic hook that keeps a crash from leaving a blank page.
//!
//! [`start`] is what the browser build runs; [`mount`] renders the same
//! [`App`] into any element, which is how the browser tests use it.

mod components;
pub mod demo;
pub mod fatal;
pub mod state;
pub mod view_model;

use yew::prelude::*;

use crate::components::Workspace;
use crate::state::{Action, AppContext, AppState};

pub use crate::fatal::{install_panic_hook, show_fatal_error};

/// The whole app: owns the state and provides it to the components below.
#[component(App)]
pub fn app() -> Html {
    let state = use_reducer(AppState::default);

    // Load the sample table once, at mount. The core never reads a clock:
    // the page passes the browser's time in.
    {
        let state = state.clone();
        use_effect_with((), move |()| {
            state.dispatch(Action::LoadDemo {
                now_micros: now_micros(),
            });
        });
    }

    html! {
        <ContextProvider<AppContext> context={state}>
            <Workspace />
        </ContextProvider<AppContext>>
    }
}

/// The browser's clock in microseconds since the Unix epoch, at the
/// millisecond granularity Bigtable uses for timestamps.
fn now_micros() -> i64 {
    // Date.now() is a whole number of milliseconds well inside i64's range
    // (until the year 292 million), so the cast loses nothing.
    #[allow(clippy::cast_possible_truncation)]
    let millis = js_sys::Date::now() as i64;
    millis * 1000
}

/// Renders [`App`] into `root` and returns the handle that keeps it alive.
pub fn mount(root: web_sys::Element) -> yew::AppHandle<App> {
    yew::Renderer::<App>::with_root(root).render()
}

/// Starts the app in the page: installs the panic hook, then mounts [`App`]
/// into `#app` (or `<body>` if the page has no such element).
pub fn start() {
    install_panic_hook();
    let document = gloo::utils::document();
    match document.get_element_by_id("app") {
        Some(root) => {
            // Drop the <noscript> fallback and anything else in the mount point.
            root.set_text_content(None);
            // The handle is not needed: dropping it leaves the app running
            // (only `AppHandle::destroy` stops it).
            let _app = mount(root);
        }
        None => {
            yew::Renderer::<App>::new().render();
        }
    }
}
