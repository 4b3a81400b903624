//! A row key drawn with its segments tinted by position, the same tint for
//! the same position in every panel. Text only: a key can never become
//! markup.

use yew::prelude::*;

use crate::view_model::{DisplayKey, KeyPart};

/// The key's segments as tinted spans (an empty key shows as `(empty)`).
pub fn key_html(key: &DisplayKey) -> Html {
    if key.parts.is_empty() {
        return html! { <span class="key-empty">{ "(empty)" }</span> };
    }
    key.parts
        .iter()
        .map(|part| match part {
            KeyPart::Segment { index, text } => {
                html! { <span class={KeyPart::tint_class(*index)}>{ text.clone() }</span> }
            }
            KeyPart::Separator(c) => html! { <span class="sep">{ c.to_string() }</span> },
        })
        .collect()
}
