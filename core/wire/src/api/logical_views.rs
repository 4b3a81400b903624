//! The logical view methods of `google.bigtable.admin.v2.BigtableInstanceAdmin`
//! (createLogicalView, getLogicalView, listLogicalViews, updateLogicalView,
//! deleteLogicalView) and the `LogicalView` message they carry:
//! `name`, `query`, `etag`, `deletionProtection`.

use serde_json::Value;

use super::names::{InstanceName, instance_name, logical_view_name};
use super::paging::Paging;
use super::proto_json::{At, Out};
use super::update_mask::fields_to_update;
use tabletop_sql::{Instance, LogicalView};
use tabletop_store::{Result, Traces};

/// The fields of a `LogicalView` message a request may set.
struct ViewFields {
    name: Option<String>,
    query: Option<String>,
    etag: Option<String>,
    deletion_protection: Option<bool>,
}

fn optional_string(at: Option<At<'_>>) -> Result<Option<String>> {
    at.map(|a| a.string().map(str::to_string)).transpose()
}

/// Reads a `LogicalView` message.
fn view_fields(at: &At<'_>) -> Result<ViewFields> {
    let mut f = at.object("LogicalView")?;
    let fields = ViewFields {
        name: optional_string(f.get("name")?)?,
        query: optional_string(f.get("query")?)?,
        etag: optional_string(f.get("etag")?)?.filter(|e| !e.is_empty()),
        deletion_protection: f.get("deletionProtection")?.map(|d| d.bool()).transpose()?,
    };
    f.finish()?;
    Ok(fields)
}

/// Writes a `LogicalView`.
fn view_to_json(name: &str, view: &LogicalView) -> Value {
    Out::new()
        .string("name", name)
        .string("query", &view.query)
        .string("etag", &view.etag())
        .bool("deletionProtection", view.deletion_protection)
        .build()
}

fn full_name(parent: &InstanceName, id: &str) -> String {
    format!("{}/logicalViews/{id}", parent.name)
}

/// createLogicalView: answers the new view (at once; Bigtable's API wraps
/// it in a long-running operation).
pub(crate) fn create(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    super::not_on_emulator(db, "logical views")?;
    let mut f = req.object("CreateLogicalViewRequest")?;
    let parent = instance_name(&f.require("parent")?)?;
    let id = f.require("logicalViewId")?.string()?.to_string();
    let body = f.require("logicalView")?;
    f.finish()?;
    let fields = view_fields(&body)?;
    let Some(query) = fields.query else {
        return Err(body.invalid("query: a logical view needs a query"));
    };
    let mut view = LogicalView::new(query);
    view.deletion_protection = fields.deletion_protection.unwrap_or(false);
    let view = db.create_logical_view(&id, view)?;
    Ok(view_to_json(&full_name(&parent, &id), &view))
}

/// getLogicalView.
pub(crate) fn get(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    super::not_on_emulator(db, "logical views")?;
    let mut f = req.object("GetLogicalViewRequest")?;
    let name = logical_view_name(&f.require("name")?)?;
    f.finish()?;
    let view = db.logical_view(&name.view_id)?;
    Ok(view_to_json(&name.full(), view))
}

/// listLogicalViews, with paging as listTables has.
pub(crate) fn list(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    super::not_on_emulator(db, "logical views")?;
    let mut f = req.object("ListLogicalViewsRequest")?;
    let parent = instance_name(&f.require("parent")?)?;
    let paging = Paging::read(&mut f)?;
    f.finish()?;
    let views = db.logical_views();
    let (page, next) = paging.page(views.iter(), |(id, _)| *id);
    let list = page
        .into_iter()
        .map(|(id, v)| view_to_json(&full_name(&parent, id), v))
        .collect();
    Ok(Out::new()
        .list("logicalViews", list)
        .string("nextPageToken", &next)
        .build())
}

/// updateLogicalView: answers the view as it is now.
pub(crate) fn update(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    super::not_on_emulator(db, "logical views")?;
    let mut f = req.object("UpdateLogicalViewRequest")?;
    let body = f.require("logicalView")?;
    let fields = view_fields(&body)?;
    let [query, protection] = fields_to_update(
        f.get("updateMask")?,
        [
            ("query", fields.query.is_some()),
            ("deletion_protection", fields.deletion_protection.is_some()),
        ],
    )?;
    f.finish()?;
    let Some(name) = &fields.name else {
        return Err(body.invalid("name: the view to update must be named"));
    };
    let name_value = Value::String(name.clone());
    let name = logical_view_name(&At::new(format!("{}.name", body.path()), &name_value))?;
    let mut next = db.logical_view(&name.view_id)?.clone();
    if query {
        next.query = fields.query.clone().unwrap_or_default();
    }
    if protection {
        next.deletion_protection = fields.deletion_protection.unwrap_or(false);
    }
    let view = db.update_logical_view(&name.view_id, next, fields.etag.as_deref())?;
    Ok(view_to_json(&name.full(), &view))
}

/// deleteLogicalView.
pub(crate) fn delete(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    super::not_on_emulator(db, "logical views")?;
    let mut f = req.object("DeleteLogicalViewRequest")?;
    let name = logical_view_name(&f.require("name")?)?;
    let etag = optional_string(f.get("etag")?)?.filter(|e| !e.is_empty());
    f.finish()?;
    db.delete_logical_view(&name.view_id, etag.as_deref())?;
    Ok(Out::new().build())
}
