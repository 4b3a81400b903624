//! A drag handle between two panels: drag it with a pointer, or focus it
//! and use the arrow keys (Shift for bigger steps, Home and End for the
//! limits). It is an ARIA `separator` with its current value, so screen
//! readers announce the size.

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use crate::state::layout::Splitter;

/// Props of [`SplitHandle`].
#[derive(Properties, PartialEq)]
pub struct SplitHandleProps {
    /// Which handle this is.
    pub splitter: Splitter,
    /// The size it controls now, in CSS pixels.
    pub size: u32,
    /// Called with the new size.
    pub on_resize: Callback<(Splitter, i64)>,
    /// Where it sits in the grid.
    #[prop_or_default]
    pub style: AttrValue,
}

/// Pixels one arrow key press moves the handle.
const STEP: i64 = 16;
/// Pixels with Shift held.
const BIG_STEP: i64 = 64;

/// The size to move from: the setting, or what is drawn where that is
/// less. A side column may be drawn narrower than its setting on a narrow
/// screen, and the console lower on a short one (the grid caps them at a
/// share of the window); starting from what is drawn makes a drag follow
/// the pointer, and an arrow key move the handle, at once.
fn drawn_size(handle: &web_sys::Element, vertical: bool, sign: i64, size: i64) -> i64 {
    let Some(panel) = neighbour(handle, sign > 0) else {
        return size;
    };
    let rect = panel.get_bounding_client_rect();
    #[allow(clippy::cast_possible_truncation)]
    let drawn = if vertical {
        rect.width()
    } else {
        rect.height()
    }
    .round() as i64;
    if drawn > 0 { size.min(drawn) } else { size }
}

/// The panel a handle resizes: its neighbour on the growing side (before
/// it when `before`), looking through the workspace's `slot` wrappers
/// (`display: contents`) to the element they hold.
fn neighbour(handle: &web_sys::Element, before: bool) -> Option<web_sys::Element> {
    let step = |e: &web_sys::Element| {
        if before {
            e.previous_element_sibling()
        } else {
            e.next_element_sibling()
        }
    };
    let mut at = handle.clone();
    loop {
        match step(&at) {
            Some(next) if is_slot(&next) => {
                return next.first_element_child();
            }
            Some(next) => return Some(next),
            None => {
                // Out of the handle's own slot, then on to its siblings.
                let parent = at.parent_element()?;
                if !is_slot(&parent) {
                    return None;
                }
                at = parent;
            }
        }
    }
}

fn is_slot(e: &web_sys::Element) -> bool {
    e.class_name().split_whitespace().any(|c| c == "slot")
}

/// The handle.
#[component(SplitHandle)]
pub fn split_handle(props: &SplitHandleProps) -> Html {
    // (pointer id, start coordinate, start size) while dragging.
    let drag: Rc<RefCell<Option<(i32, i32, i64)>>> = use_mut_ref(|| None);
    let splitter = props.splitter;
    let vertical = splitter.is_vertical();
    let sign = if splitter.grows_forward() { 1 } else { -1 };
    let coordinate = move |e: &PointerEvent| if vertical { e.client_x() } else { e.client_y() };

    let onpointerdown = {
        let drag = Rc::clone(&drag);
        let size = i64::from(props.size);
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            e.prevent_default();
            let mut size = size;
            if let Some(target) = e.target_dyn_into::<web_sys::Element>() {
                let _ = target.set_pointer_capture(e.pointer_id());
                size = drawn_size(&target, vertical, sign, size);
            }
            *drag.borrow_mut() = Some((e.pointer_id(), coordinate(&e), size));
        })
    };
    let onpointermove = {
        let drag = Rc::clone(&drag);
        let on_resize = props.on_resize.clone();
        Callback::from(move |e: PointerEvent| {
            let Some((id, start, size)) = *drag.borrow() else {
                return;
            };
            if id == e.pointer_id() {
                let delta = i64::from(coordinate(&e) - start);
                on_resize.emit((splitter, size + sign * delta));
            }
        })
    };
    let onpointerup = {
        let drag = Rc::clone(&drag);
        Callback::from(move |e: PointerEvent| {
            if let Some(target) = e.target_dyn_into::<web_sys::Element>() {
                let _ = target.release_pointer_capture(e.pointer_id());
            }
            *drag.borrow_mut() = None;
        })
    };
    let onkeydown = {
        let on_resize = props.on_resize.clone();
        let size = i64::from(props.size);
        Callback::from(move |e: KeyboardEvent| {
            let size = e
                .target_dyn_into::<web_sys::Element>()
                .map_or(size, |target| drawn_size(&target, vertical, sign, size));
            let step = if e.shift_key() { BIG_STEP } else { STEP };
            let (min, max) = splitter.range();
            let (grow, shrink) = match (vertical, sign > 0) {
                (true, true) => ("ArrowRight", "ArrowLeft"),
                (true, false) => ("ArrowLeft", "ArrowRight"),
                (false, true) => ("ArrowDown", "ArrowUp"),
                (false, false) => ("ArrowUp", "ArrowDown"),
            };
            let key = e.key();
            let new = if key == grow {
                size + step
            } else if key == shrink {
                size - step
            } else if key == "Home" {
                i64::from(min)
            } else if key == "End" {
                i64::from(max)
            } else {
                return;
            };
            e.prevent_default();
            on_resize.emit((splitter, new));
        })
    };
    let (min, max) = splitter.range();
    html! {
        <div
            class={classes!("splitter", if vertical { "splitter-v" } else { "splitter-h" })}
            role="separator"
            tabindex="0"
            aria-label={splitter.label()}
            aria-orientation={if vertical { "vertical" } else { "horizontal" }}
            aria-valuenow={props.size.to_string()}
            aria-valuemin={min.to_string()}
            aria-valuemax={max.to_string()}
            title={format!("{} (drag, or focus and use the arrow keys)", splitter.label())}
            style={props.style.clone()}
            {onpointerdown}
            {onpointermove}
            onpointerup={onpointerup.clone()}
            onpointercancel={onpointerup}
            {onkeydown}
        ></div>
    }
}
