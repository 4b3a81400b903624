//! The materialized view methods of `BigtableInstanceAdmin`, over the
//! core's continuous materialized views (`tabletop_core::views`): create
//! (answered as a done operation), get, list and delete. Tabletop's views
//! have no deletion protection and no etag, so a create asking for
//! protection and every UpdateMaterializedView (protection is the only
//! field it may change) are refused with FAILED_PRECONDITION, saying so.
//! A change goes to the journal as the SQL statement `tabletop sql` runs
//! for it (`CREATE MATERIALIZED VIEW`, `DROP MATERIALIZED VIEW`).

use serde_json::{Value, json};
use tabletop_core::{Error, Instance, views};
use tonic::Status;

use crate::instance::Shared;
use crate::proto::google::bigtable::admin::v2::{
    CreateMaterializedViewRequest, DeleteMaterializedViewRequest, GetMaterializedViewRequest,
    ListMaterializedViewsRequest, ListMaterializedViewsResponse, MaterializedView,
};

const FORM: &str = "projects/{project}/instances/{instance}/materializedViews/{materialized_view}";

/// The instance name and view id of a materialized view's resource name.
fn split_name(name: &str) -> Result<(&str, &str), Status> {
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        ["projects", p, "instances", i, "materializedViews", id]
            if !p.is_empty() && !i.is_empty() && !id.is_empty() =>
        {
            let instance_len = name.len() - "/materializedViews/".len() - id.len();
            Ok((&name[..instance_len], id))
        }
        _ => {
            let shown: String = name.chars().take(200).collect();
            Err(Status::invalid_argument(format!(
                "name: \"{shown}\" is not a materialized view name of the form {FORM}"
            )))
        }
    }
}

/// Google's emulator has no materialized views: under
/// `--emulator-parity`, the answer it gives to unknown methods.
fn not_on_emulator(db: &Instance) -> Result<(), Error> {
    if db.fidelity().is_emulator() {
        return Err(Error::unimplemented(
            "the Bigtable emulator does not implement materialized views",
        ));
    }
    Ok(())
}

fn message(instance: &str, status: &views::ViewStatus) -> MaterializedView {
    MaterializedView {
        name: format!("{instance}/materializedViews/{}", status.name),
        query: status.query.clone(),
        etag: String::new(),
        deletion_protection: false,
    }
}

fn sql_body(instance: &str, statement: String) -> Result<Value, Status> {
    Ok(json!({"instanceName": instance, "query": statement}))
}

/// CreateMaterializedView: makes the view from its query now.
pub fn create(
    shared: &Shared,
    request: &CreateMaterializedViewRequest,
) -> Result<MaterializedView, Status> {
    let id = &request.materialized_view_id;
    let asked = request.materialized_view.clone().unwrap_or_default();
    if asked.deletion_protection {
        return Err(Status::failed_precondition(
            "materialized_view.deletion_protection: Tabletop's materialized views cannot be \
             protected from deletion; create the view without it",
        ));
    }
    let parent = request.parent.clone();
    let statement = format!("CREATE MATERIALIZED VIEW {id} AS {}", asked.query);
    let body = move || sql_body(&parent, statement.clone());
    let status = shared.change(&request.parent, "sql", &body, |db| {
        not_on_emulator(db)?;
        views::create_view(db, id, &asked.query)
    })?;
    Ok(message(&request.parent, &status))
}

/// GetMaterializedView.
pub fn get(
    shared: &Shared,
    request: &GetMaterializedViewRequest,
) -> Result<MaterializedView, Status> {
    let (instance, id) = split_name(&request.name)?;
    let status = shared.for_request(&json!({"name": request.name}), |db| {
        not_on_emulator(db)?;
        views::status(db, id)
            .ok_or_else(|| Error::not_found(format!("materialized view \"{id}\" not found")))
    })?;
    Ok(message(instance, &status))
}

/// ListMaterializedViews: every view of the instance, in one page.
pub fn list(
    shared: &Shared,
    request: &ListMaterializedViewsRequest,
) -> Result<ListMaterializedViewsResponse, Status> {
    let all = shared.on_instance(&request.parent, |db| {
        not_on_emulator(db)?;
        Ok(views::list_views(db))
    })?;
    Ok(ListMaterializedViewsResponse {
        materialized_views: all.iter().map(|v| message(&request.parent, v)).collect(),
        next_page_token: String::new(),
    })
}

/// UpdateMaterializedView: refused (see the module docs).
pub fn update() -> Status {
    Status::failed_precondition(
        "Tabletop's materialized views have no deletion protection, the only field \
         UpdateMaterializedView may change (a view's query cannot change: drop the view and \
         create it again)",
    )
}

/// DeleteMaterializedView: drops the view and its data.
pub fn delete(shared: &Shared, request: &DeleteMaterializedViewRequest) -> Result<(), Status> {
    let (instance, id) = split_name(&request.name)?;
    let instance = instance.to_string();
    let statement = format!("DROP MATERIALIZED VIEW {id}");
    let body = move || sql_body(&instance, statement.clone());
    shared.change(&request.name, "sql", &body, |db| {
        not_on_emulator(db)?;
        views::drop_view(db, id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_name_splits_into_its_instance_and_id() {
        assert_eq!(
            split_name("projects/p/instances/i/materializedViews/mv").unwrap(),
            ("projects/p/instances/i", "mv")
        );
        for bad in [
            "projects/p/instances/i/materializedViews/",
            "projects/p/instances/i/logicalViews/mv",
            "projects/p/instances/i/materializedViews/a/b",
            "mv",
        ] {
            let e = split_name(bad).unwrap_err();
            assert_eq!(e.code(), tonic::Code::InvalidArgument, "{bad}");
            assert!(e.message().contains(FORM), "{}", e.message());
        }
    }
}
