//! The instance's logical and authorized views, as the Schema panel lists
//! them beside the materialized views: a logical view by name with its
//! query, an authorized view by table and id with the rows and columns it
//! lets through. Both read the core's catalog on each render, so a view
//! made or deleted in the console shows at once.

use tabletop_core::{AuthorizedView, FamilySubset, Instance};

use super::tools::{ViewLine, view_lines};

/// One logical view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogicalLine {
    /// The view's id.
    pub name: String,
    /// Its SELECT, as given.
    pub query: String,
    /// Whether it is protected from deletion.
    pub protected: bool,
}

/// One authorized view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthorizedLine {
    /// The table it is a view of.
    pub table: String,
    /// The view's id.
    pub name: String,
    /// The row key prefixes it includes, in words.
    pub rows: String,
    /// The families and columns it includes, in words.
    pub columns: String,
    /// Whether it is protected from deletion.
    pub protected: bool,
}

/// The three lists of views the Schema panel shows, made together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewLists {
    /// The materialized views, by name.
    pub materialized: Vec<ViewLine>,
    /// The logical views, by name.
    pub logical: Vec<LogicalLine>,
    /// The authorized views, by table and id.
    pub authorized: Vec<AuthorizedLine>,
}

impl ViewLists {
    /// Every view of `db`, whose tables are `tables`.
    pub fn of<'a>(db: &Instance, tables: impl IntoIterator<Item = &'a str>) -> ViewLists {
        ViewLists {
            materialized: view_lines(db),
            logical: logical_lines(db),
            authorized: authorized_lines(db, tables),
        }
    }
}

/// Every logical view of `db`, by name.
pub fn logical_lines(db: &Instance) -> Vec<LogicalLine> {
    db.logical_views()
        .into_iter()
        .map(|(name, v)| LogicalLine {
            name: name.to_string(),
            query: v.query.clone(),
            protected: v.deletion_protection,
        })
        .collect()
}

/// Every authorized view of `db`'s `tables` (the names the app already
/// listed, in order), by table then id. Taking the names rather than
/// listing the tables again spares describing each table (its schema and
/// the bytes of every tablet) at every redraw of the Schema panel.
pub fn authorized_lines<'a>(
    db: &Instance,
    tables: impl IntoIterator<Item = &'a str>,
) -> Vec<AuthorizedLine> {
    let mut out = Vec::new();
    for table in tables {
        let Ok(views) = db.authorized_views(table) else {
            continue;
        };
        for (name, v) in views {
            out.push(AuthorizedLine {
                table: table.to_string(),
                name: name.to_string(),
                rows: rows_text(v),
                columns: columns_text(v),
                protected: v.deletion_protection,
            });
        }
    }
    out
}

fn shown(bytes: &[u8]) -> String {
    bytes.escape_ascii().to_string()
}

/// `every row`, or `rows starting phone#, tablet#`.
fn rows_text(v: &AuthorizedView) -> String {
    if v.row_prefixes.is_empty() || v.row_prefixes.iter().any(Vec::is_empty) {
        return "every row".into();
    }
    let list: Vec<String> = v.row_prefixes.iter().map(|p| shown(p)).collect();
    format!("rows starting {}", list.join(", "))
}

/// `stats (every column); cf: os, net*`; `no columns` when none.
fn columns_text(v: &AuthorizedView) -> String {
    if v.family_subsets.is_empty() {
        return "no columns".into();
    }
    let list: Vec<String> = v
        .family_subsets
        .iter()
        .map(|(family, subset)| format!("{family}: {}", subset_text(subset)))
        .collect();
    list.join("; ")
}

fn subset_text(s: &FamilySubset) -> String {
    if s.qualifier_prefixes.iter().any(Vec::is_empty) {
        return "every column".into();
    }
    let mut parts: Vec<String> = s.qualifiers.iter().map(|q| shown(q)).collect();
    parts.extend(
        s.qualifier_prefixes
            .iter()
            .map(|p| format!("{}*", shown(p))),
    );
    if parts.is_empty() {
        "no columns".into()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_core::api;

    fn json(db: &mut Instance, method: &str, request: &str) -> String {
        let line = format!(r#"{{"method": "{method}", "request": {request}}}"#);
        let answer = api::handle(db, &line);
        assert!(answer.contains("\"response\""), "{method}: {answer}");
        answer
    }

    #[test]
    fn views_made_and_deleted_through_the_api_are_listed() {
        let mut db = Instance::default();
        let parent = db.name();
        json(
            &mut db,
            "createTable",
            &format!(
                r#"{{"parent": "{parent}", "tableId": "t", "table": {{"columnFamilies": {{"cf": {{}}, "stats": {{}}}}}}}}"#
            ),
        );
        assert!(logical_lines(&db).is_empty() && authorized_lines(&db, ["t"]).is_empty());
        json(
            &mut db,
            "createLogicalView",
            &format!(
                r#"{{"parent": "{parent}", "logicalViewId": "phones", "logicalView": {{"query": "SELECT _key FROM t", "deletionProtection": true}}}}"#
            ),
        );
        json(
            &mut db,
            "createAuthorizedView",
            &format!(
                r#"{{"parent": "{parent}/tables/t", "authorizedViewId": "mine", "authorizedView": {{"subsetView": {{"rowPrefixes": ["{}"], "familySubsets": {{"cf": {{"qualifiers": ["{}"], "qualifierPrefixes": ["{}"]}}, "stats": {{"qualifierPrefixes": [""]}}}}}}}}}}"#,
                api::encode_base64(b"phone#"),
                api::encode_base64(b"os"),
                api::encode_base64(b"net"),
            ),
        );
        assert_eq!(
            logical_lines(&db),
            [LogicalLine {
                name: "phones".into(),
                query: "SELECT _key FROM t".into(),
                protected: true,
            }]
        );
        assert_eq!(
            authorized_lines(&db, ["t"]),
            [AuthorizedLine {
                table: "t".into(),
                name: "mine".into(),
                rows: "rows starting phone#".into(),
                columns: "cf: os, net*; stats: every column".into(),
                protected: false,
            }]
        );
        json(
            &mut db,
            "deleteAuthorizedView",
            &format!(r#"{{"name": "{parent}/tables/t/authorizedViews/mine"}}"#),
        );
        assert!(authorized_lines(&db, ["t"]).is_empty());
    }
}
