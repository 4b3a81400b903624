//! `google.bigtable.admin.v2.BigtableInstanceAdmin`: its logical view
//! methods, each the JSON protocol's method of the same name (the
//! long-running ones answered as operations already done, as the
//! authorized views are, see `operations`), and its materialized view
//! methods over the core's views (`materialized_views`). Every other
//! method of the service (instances, clusters, app profiles, IAM, hot
//! tablets) answers UNIMPLEMENTED with a sentence saying so:
//! a Tabletop server is one machine holding the instances its requests
//! name, so there is nothing to create, resize or bill. (Production
//! Bigtable serves them all; Google's emulator crashes on every call of
//! this service.)

use tonic::{Request, Response, Status};

use crate::instance::Shared;
use crate::materialized_views;
use crate::operations::{self, Finished};
use crate::proto::google::bigtable::admin::v2::bigtable_instance_admin_server::BigtableInstanceAdmin;
use crate::proto::google::bigtable::admin::v2::{
    AppProfile, Cluster, CreateAppProfileRequest, CreateClusterRequest, CreateInstanceRequest,
    CreateLogicalViewMetadata, CreateLogicalViewRequest, CreateMaterializedViewMetadata,
    CreateMaterializedViewRequest, DeleteAppProfileRequest, DeleteClusterRequest,
    DeleteInstanceRequest, DeleteLogicalViewRequest, DeleteMaterializedViewRequest,
    GetAppProfileRequest, GetClusterRequest, GetInstanceRequest, GetLogicalViewRequest,
    GetMaterializedViewRequest, Instance, ListAppProfilesRequest, ListAppProfilesResponse,
    ListClustersRequest, ListClustersResponse, ListHotTabletsRequest, ListHotTabletsResponse,
    ListInstancesRequest, ListInstancesResponse, ListLogicalViewsRequest, ListLogicalViewsResponse,
    ListMaterializedViewsRequest, ListMaterializedViewsResponse, LogicalView, MaterializedView,
    PartialUpdateClusterRequest, PartialUpdateInstanceRequest, UpdateAppProfileRequest,
    UpdateLogicalViewMetadata, UpdateLogicalViewRequest, UpdateMaterializedViewRequest,
};
use crate::proto::google::iam::v1::{
    GetIamPolicyRequest, Policy, SetIamPolicyRequest, TestIamPermissionsRequest,
    TestIamPermissionsResponse,
};
use crate::proto::google::longrunning::Operation;
use crate::transcode::{from_json, to_json};

/// The instance admin API over the shared instances.
pub struct InstanceAdminService {
    pub shared: Shared,
    /// The long-running operations answered, for GetOperation.
    pub finished: Finished,
}

impl InstanceAdminService {
    fn call<Q, A>(&self, method: &str, request: &Request<Q>) -> Result<A, Status>
    where
        Q: prost::Message + prost::Name,
        A: prost::Message + prost::Name + Default,
    {
        let answer = self.shared.call(method, &to_json(request.get_ref())?)?;
        from_json(&answer)
    }
}

/// The UNIMPLEMENTED status of the instance admin method `method`.
fn not_served(method: &str) -> Status {
    Status::unimplemented(format!(
        "tabletop serve does not implement BigtableInstanceAdmin.{method}: of the instance \
         admin API it serves only the logical view methods (CreateLogicalView, \
         GetLogicalView, ListLogicalViews, UpdateLogicalView, DeleteLogicalView) and the \
         materialized view ones (CreateMaterializedView, GetMaterializedView, \
         ListMaterializedViews, DeleteMaterializedView). Its instances are made when a \
         request first names them and have no clusters, app profiles or IAM policies to \
         manage. Production Bigtable serves this method"
    ))
}

/// The service's impl: the methods written out in braces, then one
/// answering [`not_served`] for each `name, "Rpc", Request, Response;`.
/// (One macro around the whole impl, so that `async_trait` sees every
/// method already expanded.)
macro_rules! instance_admin {
    ({ $($served:item)* } $($fn_name:ident, $rpc:literal, $request:ty, $response:ty;)*) => {
        #[tonic::async_trait]
        impl BigtableInstanceAdmin for InstanceAdminService {
            $($served)*
            $(
                async fn $fn_name(
                    &self,
                    _request: Request<$request>,
                ) -> Result<Response<$response>, Status> {
                    Err(not_served($rpc))
                }
            )*
        }
    };
}

instance_admin! {{
    async fn create_logical_view(
        &self,
        request: Request<CreateLogicalViewRequest>,
    ) -> Result<Response<Operation>, Status> {
        let start_time = operations::now();
        let view: LogicalView = self.call("createLogicalView", &request)?;
        let metadata = CreateLogicalViewMetadata {
            original_request: Some(request.into_inner()),
            start_time: Some(start_time),
            end_time: Some(operations::now()),
        };
        Ok(Response::new(
            self.finished.record(&view.name, &view, &metadata),
        ))
    }

    async fn get_logical_view(
        &self,
        request: Request<GetLogicalViewRequest>,
    ) -> Result<Response<LogicalView>, Status> {
        self.call("getLogicalView", &request).map(Response::new)
    }

    async fn list_logical_views(
        &self,
        request: Request<ListLogicalViewsRequest>,
    ) -> Result<Response<ListLogicalViewsResponse>, Status> {
        self.call("listLogicalViews", &request).map(Response::new)
    }

    async fn update_logical_view(
        &self,
        request: Request<UpdateLogicalViewRequest>,
    ) -> Result<Response<Operation>, Status> {
        let start_time = operations::now();
        let view: LogicalView = self.call("updateLogicalView", &request)?;
        let metadata = UpdateLogicalViewMetadata {
            original_request: Some(request.into_inner()),
            start_time: Some(start_time),
            end_time: Some(operations::now()),
        };
        Ok(Response::new(
            self.finished.record(&view.name, &view, &metadata),
        ))
    }

    async fn delete_logical_view(
        &self,
        request: Request<DeleteLogicalViewRequest>,
    ) -> Result<Response<()>, Status> {
        self.shared
            .call("deleteLogicalView", &to_json(request.get_ref())?)?;
        Ok(Response::new(()))
    }

    async fn create_materialized_view(
        &self,
        request: Request<CreateMaterializedViewRequest>,
    ) -> Result<Response<Operation>, Status> {
        let start_time = operations::now();
        let view = materialized_views::create(&self.shared, request.get_ref())?;
        let metadata = CreateMaterializedViewMetadata {
            original_request: Some(request.into_inner()),
            start_time: Some(start_time),
            end_time: Some(operations::now()),
        };
        Ok(Response::new(
            self.finished.record(&view.name, &view, &metadata),
        ))
    }

    async fn get_materialized_view(
        &self,
        request: Request<GetMaterializedViewRequest>,
    ) -> Result<Response<MaterializedView>, Status> {
        materialized_views::get(&self.shared, request.get_ref()).map(Response::new)
    }

    async fn list_materialized_views(
        &self,
        request: Request<ListMaterializedViewsRequest>,
    ) -> Result<Response<ListMaterializedViewsResponse>, Status> {
        materialized_views::list(&self.shared, request.get_ref()).map(Response::new)
    }

    async fn update_materialized_view(
        &self,
        _request: Request<UpdateMaterializedViewRequest>,
    ) -> Result<Response<Operation>, Status> {
        Err(materialized_views::update())
    }

    async fn delete_materialized_view(
        &self,
        request: Request<DeleteMaterializedViewRequest>,
    ) -> Result<Response<()>, Status> {
        materialized_views::delete(&self.shared, request.get_ref()).map(Response::new)
    }}
        create_instance, "CreateInstance", CreateInstanceRequest, Operation;
        get_instance, "GetInstance", GetInstanceRequest, Instance;
        list_instances, "ListInstances", ListInstancesRequest, ListInstancesResponse;
        update_instance, "UpdateInstance", Instance, Instance;
        partial_update_instance, "PartialUpdateInstance", PartialUpdateInstanceRequest, Operation;
        delete_instance, "DeleteInstance", DeleteInstanceRequest, ();
        create_cluster, "CreateCluster", CreateClusterRequest, Operation;
        get_cluster, "GetCluster", GetClusterRequest, Cluster;
        list_clusters, "ListClusters", ListClustersRequest, ListClustersResponse;
        update_cluster, "UpdateCluster", Cluster, Operation;
        partial_update_cluster, "PartialUpdateCluster", PartialUpdateClusterRequest, Operation;
        delete_cluster, "DeleteCluster", DeleteClusterRequest, ();
        create_app_profile, "CreateAppProfile", CreateAppProfileRequest, AppProfile;
        get_app_profile, "GetAppProfile", GetAppProfileRequest, AppProfile;
        list_app_profiles, "ListAppProfiles", ListAppProfilesRequest, ListAppProfilesResponse;
        update_app_profile, "UpdateAppProfile", UpdateAppProfileRequest, Operation;
        delete_app_profile, "DeleteAppProfile", DeleteAppProfileRequest, ();
        get_iam_policy, "GetIamPolicy", GetIamPolicyRequest, Policy;
        set_iam_policy, "SetIamPolicy", SetIamPolicyRequest, Policy;
        test_iam_permissions, "TestIamPermissions", TestIamPermissionsRequest, TestIamPermissionsResponse;
        list_hot_tablets, "ListHotTablets", ListHotTabletsRequest, ListHotTabletsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unserved_method_says_which_and_what_is_served() {
        let status = not_served("CreateCluster");
        assert_eq!(status.code(), tonic::Code::Unimplemented);
        assert!(
            status
                .message()
                .contains("does not implement BigtableInstanceAdmin.CreateCluster"),
            "{}",
            status.message()
        );
        assert!(status.message().contains("CreateLogicalView"));
        assert!(status.message().contains("CreateMaterializedView"));
    }
}
