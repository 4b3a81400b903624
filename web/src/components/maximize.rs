//! The button in a panel's header that gives the panel the whole
//! workspace (the Key Visualizer's heatmap most of all needs the room) and
//! gives it back. Escape anywhere in the workspace restores too.

use yew::prelude::*;

use crate::state::layout::PanelId;

/// Props of [`MaximizeButton`].
#[derive(Properties, PartialEq)]
pub struct MaximizeButtonProps {
    /// The panel the button belongs to.
    pub panel: PanelId,
    /// Whether that panel has the workspace now.
    pub maximized: bool,
    /// Called with the panel to maximize, or `None` to restore.
    pub on_focus: Callback<Option<PanelId>>,
}

/// The toggle.
#[component(MaximizeButton)]
pub fn maximize_button(props: &MaximizeButtonProps) -> Html {
    let (panel, maximized) = (props.panel, props.maximized);
    let onclick = props
        .on_focus
        .reform(move |_: MouseEvent| (!maximized).then_some(panel));
    // A toggle keeps one name and reports its state with aria-pressed;
    // the tooltip says what a click does now.
    let label = format!("Maximize {}", panel.name());
    let (glyph, title) = if maximized {
        ("⤡", "Restore the layout (Escape)".to_string())
    } else {
        ("⤢", format!("Give {} the whole workspace", panel.name()))
    };
    html! {
        <button type="button" class="button small icon maximize" aria-label={label}
            aria-pressed={maximized.to_string()} {title} {onclick}>
            <span aria-hidden="true">{ glyph }</span>
        </button>
    }
}
