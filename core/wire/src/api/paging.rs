//! Paging of the list methods (listTables, listAuthorizedViews,
//! listLogicalViews): `pageSize` (absent or 0: everything on one page) and
//! `pageToken`, which is the id of the last item of the previous page.

use super::proto_json::Fields;
use tabletop_store::Result;

/// A list request's paging fields.
pub(crate) struct Paging {
    size: usize,
    token: String,
}

impl Paging {
    /// Reads `pageSize` and `pageToken` from a list request.
    pub(crate) fn read(f: &mut Fields<'_>) -> Result<Paging> {
        let size = match f.get("pageSize")? {
            Some(p) => {
                let n = p.int32()?;
                if n < 0 {
                    return Err(p.invalid("page size must not be negative"));
                }
                usize::try_from(n).unwrap_or(0)
            }
            None => 0,
        };
        let token = match f.get("pageToken")? {
            Some(t) => t.string()?.to_string(),
            None => String::new(),
        };
        Ok(Paging { size, token })
    }

    /// The page of `items` (in the order of their ids) after the token,
    /// and the token of the next page: empty when nothing follows.
    pub(crate) fn page<T>(
        &self,
        items: impl IntoIterator<Item = T>,
        id: impl Fn(&T) -> &str,
    ) -> (Vec<T>, String) {
        let after_token = |t: &T| self.token.is_empty() || id(t) > self.token.as_str();
        let mut rest = items.into_iter().filter(after_token).peekable();
        let mut page = Vec::new();
        while self.size == 0 || page.len() < self.size {
            match rest.next() {
                Some(t) => page.push(t),
                None => break,
            }
        }
        let next = match page.last() {
            Some(last) if rest.peek().is_some() => id(last).to_string(),
            _ => String::new(),
        };
        (page, next)
    }
}
