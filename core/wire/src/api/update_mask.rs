//! The `updateMask` of an update method whose fields are replaced whole
//! (updateAuthorizedView, updateLogicalView): which of the message's
//! updatable fields the request replaces.

use super::proto_json::At;
use tabletop_store::Result;

/// Which of `fields` the update replaces: those the mask at `at` names
/// (`*` names them all), or without a mask every field the request sets.
/// Each field is its proto name, snake_case (`deletion_protection`; the
/// mask may also spell it in lowerCamelCase), and whether the request's
/// message sets it. A path that is not one of them is `INVALID_ARGUMENT`.
pub(super) fn fields_to_update<const N: usize>(
    at: Option<At<'_>>,
    fields: [(&'static str, bool); N],
) -> Result<[bool; N]> {
    let Some(at) = at else {
        return Ok(fields.map(|(_, set)| set));
    };
    let mut chosen = [false; N];
    for path in at
        .string()?
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        if path == "*" {
            chosen = [true; N];
            continue;
        }
        match fields
            .iter()
            .position(|&(name, _)| path == name || path == lower_camel(name))
        {
            Some(i) => chosen[i] = true,
            None => {
                let names: Vec<&str> = fields.iter().map(|f| f.0).collect();
                return Err(at.invalid(format!(
                    "\"{path}\" cannot be updated; the fields are {}",
                    spoken_list(&names)
                )));
            }
        }
    }
    Ok(chosen)
}

/// `deletion_protection` as `deletionProtection`.
fn lower_camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `a`, `a and b`, `a, b and c`.
fn spoken_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::{Value, json};

    use super::*;

    fn fields(query: bool, protection: bool) -> [(&'static str, bool); 2] {
        [("query", query), ("deletion_protection", protection)]
    }

    fn mask(v: &Value, set: (bool, bool)) -> Result<[bool; 2]> {
        fields_to_update(Some(At::new("updateMask", v)), fields(set.0, set.1))
    }

    #[test]
    fn a_mask_names_fields_in_either_spelling_or_all() {
        assert_eq!(
            fields_to_update(None, fields(true, false)).unwrap(),
            [true, false]
        );
        let both = json!("query, deletionProtection");
        assert_eq!(mask(&both, (false, false)).unwrap(), [true, true]);
        assert_eq!(
            mask(&json!("deletion_protection"), (true, true)).unwrap(),
            [false, true]
        );
        assert_eq!(mask(&json!("*"), (false, false)).unwrap(), [true, true]);
        assert_eq!(mask(&json!(""), (true, true)).unwrap(), [false, false]);
        let e = mask(&json!("query,etag"), (true, false)).unwrap_err();
        assert!(
            e.message().contains(
                "\"etag\" cannot be updated; the fields are query and deletion_protection"
            ),
            "{}",
            e.message()
        );
    }

    #[test]
    fn names_are_spelled_and_listed_for_people() {
        assert_eq!(lower_camel("subset_view"), "subsetView");
        assert_eq!(lower_camel("query"), "query");
        assert_eq!(spoken_list(&["a", "b", "c"]), "a, b and c");
    }
}
