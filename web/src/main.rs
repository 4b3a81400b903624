//! Entry point of the browser build (Trunk compiles this binary to wasm).
//! Everything lives in the library so that tests mount the same app.

fn main() {
    tabletop_web::start();
}
