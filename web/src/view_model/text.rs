//! Prose with `code` in it: lessons, the advisor, messages and the
//! importer's notes write identifiers, commands and keys between
//! backticks. These functions cut such text into plain and code pieces,
//! so components draw the code as `<code>` instead of raw backticks.
//! Everything stays text: nothing here ever becomes markup.

/// A piece of text: plain, or `code` between backticks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextPiece {
    /// Plain text.
    Plain(String),
    /// Code (shown in a monospace font).
    Code(String),
}

/// Cuts one run of text at its backtick pairs, keeping spaces and line
/// breaks as they are. A backtick without a partner (an odd one out at
/// the end) stays a literal backtick in the plain text, and so does a
/// pair with nothing between it (two backticks in a row).
pub fn inline_pieces(text: &str) -> Vec<TextPiece> {
    let mut out: Vec<TextPiece> = Vec::new();
    let mut plain = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        match after.find('`') {
            Some(0) => {
                plain.push_str(&rest[..open + 2]);
                rest = &after[1..];
            }
            Some(close) => {
                plain.push_str(&rest[..open]);
                if !plain.is_empty() {
                    out.push(TextPiece::Plain(std::mem::take(&mut plain)));
                }
                out.push(TextPiece::Code(after[..close].to_string()));
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    plain.push_str(rest);
    if !plain.is_empty() {
        out.push(TextPiece::Plain(plain));
    }
    out
}

/// Text as paragraphs of pieces: blank lines separate paragraphs, single
/// line breaks and runs of spaces become one space, backticks mark code.
pub fn paragraphs(text: &str) -> Vec<Vec<TextPiece>> {
    text.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .map(|p| inline_pieces(&p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> TextPiece {
        TextPiece::Plain(s.into())
    }

    fn code(s: &str) -> TextPiece {
        TextPiece::Code(s.into())
    }

    #[test]
    fn backtick_pairs_become_code_and_the_rest_stays_as_written() {
        assert_eq!(
            inline_pieces("Read `phone#<b>` with\n  a prefix."),
            [
                plain("Read "),
                code("phone#<b>"),
                plain(" with\n  a prefix.")
            ]
        );
        assert_eq!(inline_pieces("`a``b`"), [code("a"), code("b")]);
        assert_eq!(inline_pieces("no code"), [plain("no code")]);
        assert_eq!(inline_pieces(""), []);
    }

    #[test]
    fn an_odd_backtick_or_an_empty_pair_stays_literal() {
        assert_eq!(
            inline_pieces("`x` and a stray ` here"),
            [code("x"), plain(" and a stray ` here")]
        );
        assert_eq!(inline_pieces("`"), [plain("`")]);
        assert_eq!(
            inline_pieces("empty `` pair `y`"),
            [plain("empty `` pair "), code("y")]
        );
    }

    #[test]
    fn paragraphs_split_at_blank_lines_and_join_lines() {
        assert_eq!(
            paragraphs("Read `phone#<b>` with\na prefix.\n\nThen `x`"),
            vec![
                vec![plain("Read "), code("phone#<b>"), plain(" with a prefix.")],
                vec![plain("Then "), code("x")],
            ]
        );
        assert!(paragraphs("\n\n  \n\n").is_empty());
    }
}
