//! Text with `code` between backticks, drawn with the code as `<code>`:
//! messages, the advisor's findings and the importer's notes write
//! identifiers and commands so. Text nodes only: a message can never
//! inject markup.

use yew::prelude::*;

use crate::view_model::text::{TextPiece, inline_pieces};

/// `text` with its backtick pairs drawn as code; spaces and line breaks
/// stay as written.
pub fn inline(text: &str) -> Html {
    inline_pieces(text)
        .into_iter()
        .map(|piece| match piece {
            TextPiece::Plain(t) => html! { { t } },
            TextPiece::Code(t) => html! { <code>{ t }</code> },
        })
        .collect()
}
