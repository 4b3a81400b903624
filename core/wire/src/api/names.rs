//! Resource names: `projects/{project}/instances/{instance}`,
//! `projects/{project}/instances/{instance}/tables/{table}` and
//! `.../tables/{table}/authorizedViews/{view}`.
//!
//! A Tabletop [`Instance`](tabletop_sql::Instance) is one Bigtable
//! instance. Hosts that keep several ([`tabletop_sql::Instances`]) route
//! each request to the instance its name spells ([`super::handle_in`]), so
//! instances are separate namespaces of tables, as in Bigtable and in the
//! emulator. A single instance handed to [`super::handle`] answers under
//! any project and instance id. Answers echo the names the request used.

use super::proto_json::At;
use tabletop_store::{MAX_TABLE_ID_LEN, Result};

/// A parsed instance name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InstanceName {
    /// `projects/{project}/instances/{instance}`, as given.
    pub(crate) name: String,
}

/// A parsed table name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TableName {
    /// The instance part.
    pub(crate) parent: InstanceName,
    /// The table id.
    pub(crate) table_id: String,
}

/// A parsed authorized view name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ViewName {
    /// The table part.
    pub(crate) table: TableName,
    /// The authorized view id.
    pub(crate) view_id: String,
}

impl ViewName {
    /// The full name, `.../tables/t/authorizedViews/v`.
    pub(crate) fn full(&self) -> String {
        format!("{}/authorizedViews/{}", self.table.full(), self.view_id)
    }
}

impl TableName {
    /// The full name, `projects/p/instances/i/tables/t`.
    pub(crate) fn full(&self) -> String {
        format!("{}/tables/{}", self.parent.name, self.table_id)
    }
}

/// Whether `s` is acceptable as one segment of a resource name.
fn segment_ok(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic() && b != b'/')
}

/// At most this much of a name is echoed in an error.
const SHOWN_CHARS: usize = 200;

/// A name as an error echoes it: cut after [`SHOWN_CHARS`] characters, so
/// a huge input never makes a huge answer.
fn shown(s: &str) -> String {
    match s.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => format!("{}… ({} bytes in all)", &s[..end], s.len()),
        None => s.to_string(),
    }
}

const INSTANCE_FORM: &str = "projects/{project}/instances/{instance}";
const TABLE_FORM: &str = "projects/{project}/instances/{instance}/tables/{table}";

/// Parses an instance name.
pub(crate) fn instance_name(at: &At<'_>) -> Result<InstanceName> {
    let s = at.string()?;
    let parts: Vec<&str> = s.split('/').collect();
    match parts.as_slice() {
        ["projects", p, "instances", i] if segment_ok(p) && segment_ok(i) => Ok(InstanceName {
            name: s.to_string(),
        }),
        _ => Err(at.invalid(format!(
            "\"{}\" is not an instance name of the form {INSTANCE_FORM}",
            shown(s)
        ))),
    }
}

/// Parses a table name.
pub(crate) fn table_name(at: &At<'_>) -> Result<TableName> {
    let s = at.string()?;
    let parts: Vec<&str> = s.split('/').collect();
    match parts.as_slice() {
        // An id longer than any table can have is a malformed name, not a
        // missing table (a 200 MB name must not be echoed as NOT_FOUND).
        ["projects", _, "instances", _, "tables", t] if t.len() > MAX_TABLE_ID_LEN => Err(at
            .invalid(format!(
                "the table id is {} characters long; the limit is {MAX_TABLE_ID_LEN}",
                t.len()
            ))),
        ["projects", p, "instances", i, "tables", t]
            if segment_ok(p) && segment_ok(i) && segment_ok(t) =>
        {
            Ok(TableName {
                parent: InstanceName {
                    name: format!("projects/{p}/instances/{i}"),
                },
                table_id: (*t).to_string(),
            })
        }
        _ => Err(at.invalid(format!(
            "\"{}\" is not a table name of the form {TABLE_FORM}",
            shown(s)
        ))),
    }
}

const VIEW_FORM: &str =
    "projects/{project}/instances/{instance}/tables/{table}/authorizedViews/{authorized_view}";

/// Parses an authorized view name.
pub(crate) fn view_name(at: &At<'_>) -> Result<ViewName> {
    let s = at.string()?;
    let bad = || {
        at.invalid(format!(
            "\"{}\" is not an authorized view name of the form {VIEW_FORM}",
            shown(s)
        ))
    };
    let Some((table, view)) = s.rsplit_once("/authorizedViews/") else {
        return Err(bad());
    };
    if !segment_ok(view) || view.len() > MAX_TABLE_ID_LEN {
        return Err(bad());
    }
    let table_value = serde_json::Value::String(table.to_string());
    let table = table_name(&At::new(at.path(), &table_value)).map_err(|_| bad())?;
    Ok(ViewName {
        table,
        view_id: view.to_string(),
    })
}

/// A parsed logical view name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LogicalViewName {
    /// The instance part.
    pub(crate) parent: InstanceName,
    /// The logical view id.
    pub(crate) view_id: String,
}

impl LogicalViewName {
    /// The full name, `projects/p/instances/i/logicalViews/v`.
    pub(crate) fn full(&self) -> String {
        format!("{}/logicalViews/{}", self.parent.name, self.view_id)
    }
}

const LOGICAL_VIEW_FORM: &str =
    "projects/{project}/instances/{instance}/logicalViews/{logical_view}";

/// Parses a logical view name.
pub(crate) fn logical_view_name(at: &At<'_>) -> Result<LogicalViewName> {
    let s = at.string()?;
    let parts: Vec<&str> = s.split('/').collect();
    match parts.as_slice() {
        ["projects", p, "instances", i, "logicalViews", v]
            if segment_ok(p) && segment_ok(i) && segment_ok(v) && v.len() <= MAX_TABLE_ID_LEN =>
        {
            Ok(LogicalViewName {
                parent: InstanceName {
                    name: format!("projects/{p}/instances/{i}"),
                },
                view_id: (*v).to_string(),
            })
        }
        _ => Err(at.invalid(format!(
            "\"{}\" is not a logical view name of the form {LOGICAL_VIEW_FORM}",
            shown(s)
        ))),
    }
}

/// The `(project, instance)` a resource name starts with, when it starts
/// with `projects/{project}/instances/{instance}`.
pub(crate) fn instance_ids(name: &str) -> Option<(&str, &str)> {
    let mut parts = name.splitn(5, '/');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("projects"), Some(p), Some("instances"), Some(i))
            if segment_ok(p) && segment_ok(i) =>
        {
            Some((p, i))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn parses_table_names() {
        let v = json!("projects/p/instances/i/tables/t-1");
        let t = table_name(&At::new("request.tableName", &v)).unwrap();
        assert_eq!(t.table_id, "t-1");
        assert_eq!(t.parent.name, "projects/p/instances/i");
        assert_eq!(t.full(), "projects/p/instances/i/tables/t-1");
    }

    #[test]
    fn rejects_malformed_names() {
        for bad in [
            "t",
            "projects/p/instances/i/tables/",
            "projects/p/instances/i/tables/t/x",
            "projects//instances/i/tables/t",
            "project/p/instances/i/tables/t",
            "projects/p/instances/i/tables/a b",
        ] {
            let v = json!(bad);
            let e = table_name(&At::new("request.tableName", &v)).unwrap_err();
            assert!(e.message().starts_with("request.tableName: "), "{e}");
        }
        let v = json!(5);
        assert!(table_name(&At::new("request.tableName", &v)).is_err());
    }

    #[test]
    fn parses_view_names() {
        let v = json!("projects/p/instances/i/tables/t/authorizedViews/v1");
        let n = view_name(&At::new("request.name", &v)).unwrap();
        assert_eq!((n.table.table_id.as_str(), n.view_id.as_str()), ("t", "v1"));
        assert_eq!(
            n.full(),
            "projects/p/instances/i/tables/t/authorizedViews/v1"
        );
        for bad in [
            "projects/p/instances/i/tables/t",
            "projects/p/instances/i/tables/t/authorizedViews/",
            "projects/p/instances/i/authorizedViews/v",
        ] {
            assert!(
                view_name(&At::new("request.name", &json!(bad))).is_err(),
                "{bad}"
            );
        }
        assert_eq!(
            instance_ids("projects/p/instances/i/tables/t"),
            Some(("p", "i"))
        );
        assert_eq!(instance_ids("projects/p/instances/i"), Some(("p", "i")));
        assert_eq!(instance_ids("projects/p"), None);
    }

    #[test]
    fn parses_logical_view_names() {
        let v = json!("projects/p/instances/i/logicalViews/lv");
        let n = logical_view_name(&At::new("request.name", &v)).unwrap();
        assert_eq!(
            (n.parent.name.as_str(), n.view_id.as_str()),
            ("projects/p/instances/i", "lv")
        );
        assert_eq!(n.full(), "projects/p/instances/i/logicalViews/lv");
        for bad in [
            "projects/p/instances/i/logicalViews/",
            "projects/p/instances/i/tables/t",
            "projects/p/instances/i/logicalViews/a/b",
        ] {
            assert!(
                logical_view_name(&At::new("request.name", &json!(bad))).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn parses_instance_names() {
        let v = json!("projects/p/instances/i");
        assert_eq!(
            instance_name(&At::new("request.parent", &v)).unwrap().name,
            "projects/p/instances/i"
        );
        let v = json!("projects/p/instances/i/tables/t");
        assert!(instance_name(&At::new("request.parent", &v)).is_err());
    }
}
