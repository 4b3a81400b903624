//! Authorized views: a named subset of one table (row key prefixes, and
//! per column family the qualifiers and qualifier prefixes it includes),
//! through which reads see, and writes may touch, only that subset.
//!
//! This follows Bigtable's `google.bigtable.admin.v2.AuthorizedView` with
//! its one kind, `subset_view`:
//!
//! - a row is in the view when its key starts with one of `row_prefixes`
//!   (the empty prefix includes every row; no prefix, no row);
//! - a cell is in the view when its family has an entry in
//!   `family_subsets` and its qualifier is one of that entry's
//!   `qualifiers` or starts with one of its `qualifier_prefixes` (the empty
//!   prefix includes the whole family);
//! - at most [`MAX_QUALIFIER_PREFIXES`] distinct qualifier prefixes per
//!   view, as Bigtable's overview of authorized views states.
//!
//! Reads through a view return only the rows and cells in it: the read's
//! row set is cut down to the view's prefixes and a filter keeping the
//! view's columns runs before the request's own filter. Writes must stay
//! inside: a mutation of a row outside the prefixes, or of a cell outside
//! the columns, is refused with `PERMISSION_DENIED` and a message saying it
//! is outside the Authorized View (the wording the Python client's system
//! test checks for). Bigtable's guide to managing authorized views says a
//! request to delete a row that has columns outside the view fails, so
//! `DeleteFromRow` (and `DeleteFromFamily`) are refused exactly when the
//! row holds cells they would delete outside the view.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use tabletop_store::{
    Error, KeyBound, KeyRange, Mutation, OwnedRow, ReadModifyWriteRule, Result, RowFilter,
    RowRange, RowSet,
};

/// Most distinct qualifier prefixes one view may hold.
pub const MAX_QUALIFIER_PREFIXES: usize = 10;

/// The columns of one family that a view includes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilySubset {
    /// Exact qualifiers.
    pub qualifiers: Vec<Vec<u8>>,
    /// Qualifier prefixes; the empty prefix includes every qualifier.
    pub qualifier_prefixes: Vec<Vec<u8>>,
}

/// An authorized view's definition.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthorizedView {
    /// Row key prefixes; the empty prefix includes every row.
    pub row_prefixes: Vec<Vec<u8>>,
    /// Column family name to the columns of it included.
    pub family_subsets: BTreeMap<String, FamilySubset>,
    /// Whether the view (and so its table) is protected from deletion.
    pub deletion_protection: bool,
    /// Bumped on every change; the view's etag is made from it.
    #[serde(default)]
    pub generation: u64,
}

/// Why a write is refused: the one wording for every kind of mutation.
fn outside(what: String) -> Error {
    Error::permission_denied(format!("{what} is outside the Authorized View"))
}

impl AuthorizedView {
    /// The etag Bigtable hands out for this version of the view.
    #[must_use]
    pub fn etag(&self) -> String {
        format!("W/\"{}\"", self.generation)
    }

    /// Checks the definition against the table's families (`has_family`).
    pub fn validate(&self, has_family: impl Fn(&str) -> bool) -> Result<()> {
        let mut prefixes = BTreeSet::new();
        for (family, subset) in &self.family_subsets {
            if !has_family(family) {
                return Err(Error::invalid(format!(
                    "family_subsets names column family \"{family}\", which the table does not have"
                )));
            }
            prefixes.extend(subset.qualifier_prefixes.iter());
        }
        if prefixes.len() > MAX_QUALIFIER_PREFIXES {
            return Err(Error::invalid(format!(
                "an authorized view may hold at most {MAX_QUALIFIER_PREFIXES} distinct qualifier prefixes, not {}",
                prefixes.len()
            )));
        }
        Ok(())
    }

    /// Whether the row with this key is in the view.
    #[must_use]
    pub fn covers_row(&self, key: &[u8]) -> bool {
        self.row_prefixes.iter().any(|p| key.starts_with(p))
    }

    /// Whether the cell `family:qualifier` is in the view.
    #[must_use]
    pub fn covers_cell(&self, family: &str, qualifier: &[u8]) -> bool {
        self.family_subsets.get(family).is_some_and(|s| {
            s.qualifiers.iter().any(|q| q == qualifier)
                || s.qualifier_prefixes
                    .iter()
                    .any(|p| qualifier.starts_with(p))
        })
    }

    /// The view's rows as sorted, disjoint key ranges (none: no row).
    fn row_ranges(&self) -> Vec<KeyRange> {
        if self.row_prefixes.is_empty() {
            return Vec::new();
        }
        let set = RowSet {
            row_keys: Vec::new(),
            row_ranges: self
                .row_prefixes
                .iter()
                .map(|p| RowRange::prefix(p.clone()))
                .collect(),
        };
        set.normalize().unwrap_or_default()
    }

    /// The rows of `rows` that are in the view, or `None` when there are
    /// none. A malformed row set is refused as a read of the table would.
    pub fn restrict_rows(&self, rows: &RowSet) -> Result<Option<RowSet>> {
        let asked = rows.normalize()?;
        let mine = self.row_ranges();
        let mut out = Vec::new();
        for a in &asked {
            for m in &mine {
                if let Some(r) = intersect(a, m) {
                    out.push(r);
                }
            }
        }
        if out.is_empty() {
            return Ok(None);
        }
        out.sort_by(|a, b| a.start.cmp(&b.start));
        let row_ranges = out
            .into_iter()
            .map(|r| RowRange {
                start: KeyBound::Closed(r.start),
                end: r.end.map_or(KeyBound::Unbounded, KeyBound::Open),
            })
            .collect();
        Ok(Some(RowSet {
            row_keys: Vec::new(),
            row_ranges,
        }))
    }

    /// A filter keeping exactly the view's cells, over the families the
    /// table has now (`has_family`): one column range per disjoint run of
    /// qualifiers, so no cell passes twice.
    pub fn cell_filter(&self, has_family: impl Fn(&str) -> bool) -> RowFilter {
        let mut parts = Vec::new();
        for (family, subset) in &self.family_subsets {
            if !has_family(family) {
                continue;
            }
            let set = RowSet {
                row_keys: subset.qualifiers.clone(),
                row_ranges: subset
                    .qualifier_prefixes
                    .iter()
                    .map(|p| RowRange::prefix(p.clone()))
                    .collect(),
            };
            if set.is_all() {
                continue;
            }
            for r in set.normalize().unwrap_or_default() {
                parts.push(RowFilter::ColumnRange {
                    family_name: family.clone(),
                    start: KeyBound::Closed(r.start),
                    end: r.end.map_or(KeyBound::Unbounded, KeyBound::Open),
                });
            }
        }
        match parts.len() {
            0 => RowFilter::BlockAll,
            1 => parts.remove(0),
            _ => RowFilter::Interleave(parts),
        }
    }

    /// The view's filter followed by the request's own, if any.
    pub fn filter_with(
        &self,
        own: Option<RowFilter>,
        has_family: impl Fn(&str) -> bool,
    ) -> RowFilter {
        let view = self.cell_filter(has_family);
        match own {
            Some(f) => RowFilter::Chain(vec![view, f]),
            None => view,
        }
    }

    /// Refuses a write to a row outside the view.
    pub fn check_row(&self, key: &[u8]) -> Result<()> {
        if self.covers_row(key) {
            Ok(())
        } else {
            Err(outside(format!(
                "row \"{}\"",
                tabletop_store::escape_bytes(key)
            )))
        }
    }

    fn check_cell(&self, family: &str, qualifier: &[u8]) -> Result<()> {
        if self.covers_cell(family, qualifier) {
            Ok(())
        } else {
            Err(outside(format!(
                "column \"{family}:{}\"",
                tabletop_store::escape_bytes(qualifier)
            )))
        }
    }

    /// Refuses a mutation that would touch anything outside the view.
    /// `row` is the row as it is now (needed for the deletes of whole
    /// families and rows, which must not delete cells outside the view).
    pub fn check_mutation(&self, m: &Mutation<'_>, row: Option<&OwnedRow>) -> Result<()> {
        let cells = row.map_or(&[][..], |r| r.cells.as_slice());
        match m {
            Mutation::SetCell {
                family_name,
                column_qualifier,
                ..
            }
            | Mutation::AddToCell {
                family_name,
                column_qualifier,
                ..
            }
            | Mutation::MergeToCell {
                family_name,
                column_qualifier,
                ..
            }
            | Mutation::DeleteFromColumn {
                family_name,
                column_qualifier,
                ..
            } => self.check_cell(family_name, column_qualifier),
            Mutation::DeleteFromFamily { family_name } => {
                if !self.family_subsets.contains_key(family_name.as_ref()) {
                    return Err(outside(format!("column family \"{family_name}\"")));
                }
                match cells.iter().find(|c| {
                    c.family == *family_name && !self.covers_cell(&c.family, &c.qualifier)
                }) {
                    Some(c) => self.check_cell(&c.family, &c.qualifier),
                    None => Ok(()),
                }
            }
            Mutation::DeleteFromRow => match cells
                .iter()
                .find(|c| !self.covers_cell(&c.family, &c.qualifier))
            {
                Some(c) => self.check_cell(&c.family, &c.qualifier),
                None => Ok(()),
            },
        }
    }

    /// Refuses a ReadModifyWrite rule on a column outside the view.
    pub fn check_rule(&self, rule: &ReadModifyWriteRule) -> Result<()> {
        self.check_cell(&rule.family_name, &rule.column_qualifier)
    }
}

/// The keys two half-open ranges share, if any.
fn intersect(a: &KeyRange, b: &KeyRange) -> Option<KeyRange> {
    let start = a.start.clone().max(b.start.clone());
    let end = match (&a.end, &b.end) {
        (None, e) | (e, None) => e.clone(),
        (Some(x), Some(y)) => Some(x.clone().min(y.clone())),
    };
    match &end {
        Some(e) if *e <= start => None,
        _ => Some(KeyRange { start, end }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> AuthorizedView {
        let mut v = AuthorizedView {
            row_prefixes: vec![b"a#".to_vec(), b"b#".to_vec()],
            ..AuthorizedView::default()
        };
        v.family_subsets.insert(
            "cf".into(),
            FamilySubset {
                qualifiers: vec![b"name".to_vec()],
                qualifier_prefixes: vec![b"n".to_vec(), b"x".to_vec()],
            },
        );
        v
    }

    #[test]
    fn rows_are_cut_to_the_prefixes() {
        let v = view();
        assert!(v.covers_row(b"a#1") && !v.covers_row(b"c#1") && !v.covers_row(b"a"));
        let rows = v.restrict_rows(&RowSet::all()).unwrap().unwrap();
        assert_eq!(
            rows.row_ranges,
            vec![
                RowRange::prefix(b"a#".to_vec()),
                RowRange::prefix(b"b#".to_vec())
            ]
        );
        let only_c = RowSet::range(RowRange::prefix(b"c".to_vec()));
        assert_eq!(v.restrict_rows(&only_c).unwrap(), None);
        let key = RowSet::single(b"b#7".to_vec());
        let cut = v.restrict_rows(&key).unwrap().unwrap();
        assert_eq!(cut.normalize().unwrap(), key.normalize().unwrap());
        assert_eq!(
            AuthorizedView::default()
                .restrict_rows(&RowSet::all())
                .unwrap(),
            None
        );
    }

    #[test]
    fn overlapping_columns_become_disjoint_ranges() {
        // "name" lies under the prefix "n": one range, not two.
        let RowFilter::Interleave(parts) = view().cell_filter(|_| true) else {
            panic!("expected an interleave");
        };
        assert_eq!(parts.len(), 2);
        assert_eq!(view().cell_filter(|_| false), RowFilter::BlockAll);
    }

    #[test]
    fn writes_outside_are_refused() {
        let v = view();
        let ok = Mutation::set_cell("cf", b"nick", 0, b"v");
        assert!(v.check_mutation(&ok, None).is_ok());
        let e = v
            .check_mutation(&Mutation::set_cell("cf", b"age", 0, b"v"), None)
            .unwrap_err();
        assert_eq!(e.code(), tabletop_store::Code::PermissionDenied);
        assert!(e.message().contains("outside the Authorized View"), "{e}");
        let other = Mutation::set_cell("other", b"n", 0, b"v");
        assert!(v.check_mutation(&other, None).is_err());
        assert!(v.check_row(b"c#1").is_err());
    }

    #[test]
    fn too_many_prefixes_or_unknown_families_are_refused() {
        let mut v = view();
        assert!(v.validate(|f| f == "cf").is_ok());
        assert!(v.validate(|_| false).is_err());
        v.family_subsets.get_mut("cf").unwrap().qualifier_prefixes =
            (0..11u8).map(|i| vec![i]).collect();
        assert!(v.validate(|_| true).is_err());
    }
}
