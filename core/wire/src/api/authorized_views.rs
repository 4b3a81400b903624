//! The authorized view methods of `google.bigtable.admin.v2.BigtableTableAdmin`
//! (createAuthorizedView, getAuthorizedView, listAuthorizedViews,
//! updateAuthorizedView, deleteAuthorizedView) and the `AuthorizedView`
//! message they carry, in its one kind, `subsetView`.

use serde_json::{Map, Value};

use super::names::{TableName, ViewName, table_name, view_name};
use super::paging::Paging;
use super::proto_json::{At, Fields, Out};
use super::update_mask::fields_to_update;
use tabletop_sql::{AuthorizedView, FamilySubset, Instance};
use tabletop_store::{Result, Traces, base64_text};

/// `google.bigtable.admin.v2.AuthorizedView.ResponseView`.
const RESPONSE_VIEWS: &[(&str, i32)] = &[
    ("RESPONSE_VIEW_UNSPECIFIED", 0),
    ("NAME_ONLY", 1),
    ("BASIC", 2),
    ("FULL", 3),
];

/// Whether an answer describes the whole view or only names it; `default`
/// when the request leaves `view` out or unspecified.
fn full_view(at: Option<At<'_>>, default: bool) -> Result<bool> {
    let Some(at) = at else { return Ok(default) };
    Ok(
        match at.enumeration("AuthorizedView.ResponseView", RESPONSE_VIEWS)? {
            "RESPONSE_VIEW_UNSPECIFIED" => default,
            "NAME_ONLY" => false,
            _ => true,
        },
    )
}

fn byte_list(at: Option<At<'_>>) -> Result<Vec<Vec<u8>>> {
    match at {
        Some(list) => list.array()?.iter().map(At::bytes).collect(),
        None => Ok(Vec::new()),
    }
}

/// Reads an `AuthorizedView.SubsetView` into `view`.
fn subset_view(at: &At<'_>, view: &mut AuthorizedView) -> Result<()> {
    let mut f = at.object("AuthorizedView.SubsetView")?;
    view.row_prefixes = byte_list(f.get("rowPrefixes")?)?;
    view.family_subsets.clear();
    if let Some(fams) = f.get("familySubsets")? {
        let Value::Object(map) = fams.value() else {
            return Err(fams.invalid("expected an object mapping family names to FamilySubsets"));
        };
        for (name, v) in map {
            let item = At::new(
                format!("{}[{}]", fams.path(), Value::String(name.clone())),
                v,
            );
            let mut s = item.object("AuthorizedView.FamilySubsets")?;
            let subset = FamilySubset {
                qualifiers: byte_list(s.get("qualifiers")?)?,
                qualifier_prefixes: byte_list(s.get("qualifierPrefixes")?)?,
            };
            s.finish()?;
            view.family_subsets.insert(name.clone(), subset);
        }
    }
    f.finish()
}

/// The fields of an `AuthorizedView` message a request may set.
struct ViewFields {
    name: Option<String>,
    etag: Option<String>,
    subset: Option<AuthorizedView>,
    deletion_protection: Option<bool>,
}

/// Reads an `AuthorizedView` message.
fn view_fields(at: &At<'_>) -> Result<ViewFields> {
    let mut f = at.object("AuthorizedView")?;
    let name = f
        .get("name")?
        .map(|n| n.string().map(str::to_string))
        .transpose()?;
    let etag = f
        .get("etag")?
        .map(|n| n.string().map(str::to_string))
        .transpose()?;
    let deletion_protection = f.get("deletionProtection")?.map(|d| d.bool()).transpose()?;
    let subset = match f.oneof("authorized_view", &["subsetView"])? {
        Some((_, s)) => {
            let mut view = AuthorizedView::default();
            subset_view(&s, &mut view)?;
            Some(view)
        }
        None => None,
    };
    f.finish()?;
    Ok(ViewFields {
        name,
        etag: etag.filter(|e| !e.is_empty()),
        subset,
        deletion_protection,
    })
}

fn b64_list(items: &[Vec<u8>]) -> Vec<Value> {
    items
        .iter()
        .map(|b| Value::String(base64_text::encode(b)))
        .collect()
}

/// Writes an `AuthorizedView`.
fn view_to_json(name: &str, view: &AuthorizedView, full: bool) -> Value {
    let out = Out::new().string("name", name);
    if !full {
        return out.build();
    }
    let families: Map<String, Value> = view
        .family_subsets
        .iter()
        .map(|(n, s)| {
            let v = Out::new()
                .list("qualifiers", b64_list(&s.qualifiers))
                .list("qualifierPrefixes", b64_list(&s.qualifier_prefixes))
                .build();
            (n.clone(), v)
        })
        .collect();
    let mut subset = Out::new().list("rowPrefixes", b64_list(&view.row_prefixes));
    if !families.is_empty() {
        subset = subset.set("familySubsets", Value::Object(families));
    }
    out.string("etag", &view.etag())
        .bool("deletionProtection", view.deletion_protection)
        .set("subsetView", subset.build())
        .build()
}

fn required_view_name(f: &mut Fields<'_>) -> Result<ViewName> {
    view_name(&f.require("name")?)
}

fn required_parent(f: &mut Fields<'_>) -> Result<TableName> {
    table_name(&f.require("parent")?)
}

/// createAuthorizedView: answers the new view (at once; Bigtable's REST
/// API wraps it in a long-running operation).
pub(crate) fn create(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    super::not_on_emulator(db, "authorized views")?;
    let mut f = req.object("CreateAuthorizedViewRequest")?;
    let parent = required_parent(&mut f)?;
    let id = f.require("authorizedViewId")?.string()?.to_string();
    let body = f.require("authorizedView")?;
    f.finish()?;
    let fields = view_fields(&body)?;
    let Some(mut view) = fields.subset else {
        return Err(body.invalid("an authorized view must set subsetView"));
    };
    view.deletion_protection = fields.deletion_protection.unwrap_or(false);
    let view = db.create_authorized_view(&parent.table_id, &id, view)?;
    let name = format!("{}/authorizedViews/{id}", parent.full());
    Ok(view_to_json(&name, &view, true))
}

/// getAuthorizedView (the whole view unless `view` is `NAME_ONLY`).
pub(crate) fn get(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    super::not_on_emulator(db, "authorized views")?;
    let mut f = req.object("GetAuthorizedViewRequest")?;
    let name = required_view_name(&mut f)?;
    let full = full_view(f.get("view")?, true)?;
    f.finish()?;
    let view = db.authorized_view(&name.table.table_id, &name.view_id)?;
    Ok(view_to_json(&name.full(), view, full))
}

/// listAuthorizedViews (names only unless `view` asks for more), with
/// paging as listTables has.
pub(crate) fn list(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    super::not_on_emulator(db, "authorized views")?;
    let mut f = req.object("ListAuthorizedViewsRequest")?;
    let parent = required_parent(&mut f)?;
    let full = full_view(f.get("view")?, false)?;
    let paging = Paging::read(&mut f)?;
    f.finish()?;
    let views = db.authorized_views(&parent.table_id)?;
    let (page, next) = paging.page(views.iter(), |(id, _)| *id);
    let list = page
        .into_iter()
        .map(|(id, v)| view_to_json(&format!("{}/authorizedViews/{id}", parent.full()), v, full))
        .collect();
    Ok(Out::new()
        .list("authorizedViews", list)
        .string("nextPageToken", &next)
        .build())
}

/// updateAuthorizedView: answers the view as it is now.
pub(crate) fn update(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    super::not_on_emulator(db, "authorized views")?;
    let mut f = req.object("UpdateAuthorizedViewRequest")?;
    let body = f.require("authorizedView")?;
    let fields = view_fields(&body)?;
    let [subset, protection] = fields_to_update(
        f.get("updateMask")?,
        [
            ("subset_view", fields.subset.is_some()),
            ("deletion_protection", fields.deletion_protection.is_some()),
        ],
    )?;
    if let Some(w) = f.get("ignoreWarnings")? {
        w.bool()?;
    }
    f.finish()?;
    let Some(name) = &fields.name else {
        return Err(body.invalid("name: the view to update must be named"));
    };
    let name_value = Value::String(name.clone());
    let name = view_name(&At::new(format!("{}.name", body.path()), &name_value))?;
    let current = db
        .authorized_view(&name.table.table_id, &name.view_id)?
        .clone();
    let mut next = current;
    if subset {
        let subset = fields.subset.clone().unwrap_or_default();
        next.row_prefixes = subset.row_prefixes;
        next.family_subsets = subset.family_subsets;
    }
    if protection {
        next.deletion_protection = fields.deletion_protection.unwrap_or(false);
    }
    let view = db.update_authorized_view(
        &name.table.table_id,
        &name.view_id,
        next,
        fields.etag.as_deref(),
    )?;
    Ok(view_to_json(&name.full(), &view, true))
}

/// deleteAuthorizedView.
pub(crate) fn delete(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    super::not_on_emulator(db, "authorized views")?;
    let mut f = req.object("DeleteAuthorizedViewRequest")?;
    let name = required_view_name(&mut f)?;
    let etag = match f.get("etag")? {
        Some(e) => Some(e.string()?.to_string()).filter(|e| !e.is_empty()),
        None => None,
    };
    f.finish()?;
    db.delete_authorized_view(&name.table.table_id, &name.view_id, etag.as_deref())?;
    Ok(Out::new().build())
}
