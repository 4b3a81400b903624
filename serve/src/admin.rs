//! `google.bigtable.admin.v2.BigtableTableAdmin`: the table methods the
//! JSON protocol has, answered at once; the others are UNIMPLEMENTED.

use tonic::{Request, Response, Status};

use crate::instance::Shared;
use crate::proto::google::bigtable::admin::v2::bigtable_table_admin_server::BigtableTableAdmin;
use crate::proto::google::bigtable::admin::v2::{
    CreateTableRequest, DeleteTableRequest, DropRowRangeRequest, GetTableRequest,
    ListTablesRequest, ListTablesResponse, ModifyColumnFamiliesRequest, Table,
};
use crate::transcode::{from_json, to_json};

/// The table admin API over a shared instance.
pub struct AdminService {
    pub shared: Shared,
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
        self.call("createTable", &request)
    }

    async fn get_table(
        &self,
        request: Request<GetTableRequest>,
    ) -> Result<Response<Table>, Status> {
        self.call("getTable", &request)
    }

    async fn list_tables(
        &self,
        request: Request<ListTablesRequest>,
    ) -> Result<Response<ListTablesResponse>, Status> {
        self.call("listTables", &request)
    }

    async fn delete_table(
        &self,
        request: Request<DeleteTableRequest>,
    ) -> Result<Response<()>, Status> {
        self.call_empty("deleteTable", &request)
    }

    async fn modify_column_families(
        &self,
        request: Request<ModifyColumnFamiliesRequest>,
    ) -> Result<Response<Table>, Status> {
        self.call("modifyColumnFamilies", &request)
    }

    async fn drop_row_range(
        &self,
        request: Request<DropRowRangeRequest>,
    ) -> Result<Response<()>, Status> {
        self.call_empty("dropRowRange", &request)
    }
}
