//! `google.bigtable.admin.v2.BigtableTableAdmin`: the table and authorized
//! view methods the JSON protocol has, answered at once (the long-running
//! ones as operations already done, see `operations`); the others are
//! UNIMPLEMENTED.

use tonic::{Request, Response, Status};

use crate::instance::Shared;
use crate::operations::{self, Finished};
use crate::proto::google::bigtable::admin::v2::bigtable_table_admin_server::BigtableTableAdmin;
use crate::proto::google::bigtable::admin::v2::{
    AuthorizedView, CreateAuthorizedViewMetadata, CreateAuthorizedViewRequest, CreateTableRequest,
    DeleteAuthorizedViewRequest, DeleteTableRequest, DropRowRangeRequest, GetAuthorizedViewRequest,
    GetTableRequest, ListAuthorizedViewsRequest, ListAuthorizedViewsResponse, ListTablesRequest,
    ListTablesResponse, ModifyColumnFamiliesRequest, Table, UpdateAuthorizedViewMetadata,
    UpdateAuthorizedViewRequest, UpdateTableMetadata, UpdateTableRequest,
};
use crate::proto::google::longrunning::Operation;
use crate::spelling;
use crate::transcode::{from_json, to_json};

/// The table admin API over a shared instance.
pub struct AdminService {
    pub shared: Shared,
    /// The long-running operations answered, for GetOperation.
    pub finished: Finished,
}

impl AdminService {
    fn call<Q, A>(&self, method: &str, request: &Request<Q>) -> Result<Response<A>, Status>
    where
        Q: prost::Message + prost::Name,
        A: prost::Message + prost::Name + Default,
    {
        let answer = self.shared.call(method, &to_json(request.get_ref())?)?;
        from_json(&answer).map(Response::new)
    }

    /// For methods answering a `Table`: its families as the clients
    /// spelled them (see `spelling`).
    fn call_table<Q>(&self, method: &str, request: &Request<Q>) -> Result<Response<Table>, Status>
    where
        Q: prost::Message + prost::Name,
    {
        self.shared
            .call_and(method, &to_json(request.get_ref())?, |db, answer| {
                Ok(spelling::echo(db, from_json(&answer)?))
            })
            .map(Response::new)
    }

    /// For methods answering `google.protobuf.Empty`.
    fn call_empty<Q>(&self, method: &str, request: &Request<Q>) -> Result<Response<()>, Status>
    where
        Q: prost::Message + prost::Name,
    {
        self.shared.call(method, &to_json(request.get_ref())?)?;
        Ok(Response::new(()))
    }
}

#[tonic::async_trait]
impl BigtableTableAdmin for AdminService {
    async fn create_table(
        &self,
        request: Request<CreateTableRequest>,
    ) -> Result<Response<Table>, Status> {
        let asked = request.get_ref();
        let table = self
            .shared
            .call_and("createTable", &to_json(asked)?, |db, answer| {
                spelling::created(db, asked)?;
                Ok(spelling::echo(db, from_json(&answer)?))
            })?;
        Ok(Response::new(table))
    }

    async fn get_table(
        &self,
        request: Request<GetTableRequest>,
    ) -> Result<Response<Table>, Status> {
        self.call_table("getTable", &request)
    }

    async fn list_tables(
        &self,
        request: Request<ListTablesRequest>,
    ) -> Result<Response<ListTablesResponse>, Status> {
        let list =
            self.shared
                .call_and("listTables", &to_json(request.get_ref())?, |db, answer| {
                    let mut list: ListTablesResponse = from_json(&answer)?;
                    list.tables = list
                        .tables
                        .into_iter()
                        .map(|t| spelling::echo(db, t))
                        .collect();
                    Ok(list)
                })?;
        Ok(Response::new(list))
    }

    /// Answers the table as it is now, in a done operation with
    /// `UpdateTableMetadata`. The JSON protocol answers the operation
    /// itself; its `response` is the table.
    async fn update_table(
        &self,
        request: Request<UpdateTableRequest>,
    ) -> Result<Response<Operation>, Status> {
        let start_time = operations::now();
        let table =
            self.shared
                .call_and("updateTable", &to_json(request.get_ref())?, |db, answer| {
                    Ok(spelling::echo(db, from_json(&answer["response"])?))
                })?;
        let metadata = UpdateTableMetadata {
            name: table.name.clone(),
            start_time: Some(start_time),
            end_time: Some(operations::now()),
        };
        let operation = self.finished.record(&table.name, &table, &metadata);
        Ok(Response::new(operation))
    }

    async fn delete_table(
        &self,
        request: Request<DeleteTableRequest>,
    ) -> Result<Response<()>, Status> {
        // The table's notes, its spellings among them, go with it.
        self.call_empty("deleteTable", &request)
    }

    async fn create_authorized_view(
        &self,
        request: Request<CreateAuthorizedViewRequest>,
    ) -> Result<Response<Operation>, Status> {
        let request_time = operations::now();
        let view: AuthorizedView = self.call("createAuthorizedView", &request)?.into_inner();
        let metadata = CreateAuthorizedViewMetadata {
            original_request: Some(request.into_inner()),
            request_time: Some(request_time),
            finish_time: Some(operations::now()),
        };
        let operation = self.finished.record(&view.name, &view, &metadata);
        Ok(Response::new(operation))
    }

    async fn list_authorized_views(
        &self,
        request: Request<ListAuthorizedViewsRequest>,
    ) -> Result<Response<ListAuthorizedViewsResponse>, Status> {
        self.call("listAuthorizedViews", &request)
    }

    async fn get_authorized_view(
        &self,
        request: Request<GetAuthorizedViewRequest>,
    ) -> Result<Response<AuthorizedView>, Status> {
        self.call("getAuthorizedView", &request)
    }

    async fn update_authorized_view(
        &self,
        request: Request<UpdateAuthorizedViewRequest>,
    ) -> Result<Response<Operation>, Status> {
        let request_time = operations::now();
        let view: AuthorizedView = self.call("updateAuthorizedView", &request)?.into_inner();
        let metadata = UpdateAuthorizedViewMetadata {
            original_request: Some(request.into_inner()),
            request_time: Some(request_time),
            finish_time: Some(operations::now()),
        };
        let operation = self.finished.record(&view.name, &view, &metadata);
        Ok(Response::new(operation))
    }

    async fn delete_authorized_view(
        &self,
        request: Request<DeleteAuthorizedViewRequest>,
    ) -> Result<Response<()>, Status> {
        self.call_empty("deleteAuthorizedView", &request)
    }

    async fn modify_column_families(
        &self,
        request: Request<ModifyColumnFamiliesRequest>,
    ) -> Result<Response<Table>, Status> {
        let asked = request.get_ref();
        let table =
            self.shared
                .call_and("modifyColumnFamilies", &to_json(asked)?, |db, answer| {
                    spelling::modified(db, asked)?;
                    Ok(spelling::echo(db, from_json(&answer)?))
                })?;
        Ok(Response::new(table))
    }

    async fn drop_row_range(
        &self,
        request: Request<DropRowRangeRequest>,
    ) -> Result<Response<()>, Status> {
        self.call_empty("dropRowRange", &request)
    }
}
