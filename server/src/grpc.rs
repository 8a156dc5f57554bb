//! `idmint.v1` over gRPC (proto/idmint/v1/idmint.proto), served on the API port beside HTTP,
//! with server reflection (`grpc.reflection.v1` and `v1alpha`).
//!
//! Each method is its HTTP twin in [`crate::v1`] with protobuf in and out: it authorizes the
//! `authorization: Bearer TOKEN` metadata with the same scope, makes the same one call into
//! [`crate::state::Ids`] and converts the answer. Errors are [`ApiError::grpc`]: the gRPC code
//! of the HTTP status, core's message, and core's kind in the `idmint-error-kind` metadata.
//! proto3 cannot tell 0 from absent, so a `count`, `ttl_ms` or `holder` left at its zero value
//! is absent (the server's default).
//!
//! The API router's request counting does not see these routes (they are merged after its
//! `route_layer`), so each method counts itself, under its gRPC path
//! (`/idmint.v1.Ids/Segment`) and the HTTP status its error would have had (200 on success).

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use tonic::server::NamedService;
use tonic::{Request, Response, Status};

use idmint_core::lease::ClientLease;

use crate::auth::Need;
use crate::error::ApiError;
use crate::Server;

/// The code generated from `idmint.proto`: the messages and the `Ids` and `Leases` server
/// traits.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod pb {
    tonic::include_proto!("idmint.v1");
}

/// The encoded `FileDescriptorSet` of `idmint.proto` (built by build.rs), served by reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/idmint_descriptor.bin"));

/// The gRPC services as routes of the API listener: `/idmint.v1.Ids/*`, `/idmint.v1.Leases/*`
/// and both reflection services. No fallback of its own: the HTTP API's answers paths that
/// match no service (and a method a service lacks is `UNIMPLEMENTED` from the service).
pub fn router(server: Arc<Server>) -> Router {
    let api = Grpc { server };
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(FILE_DESCRIPTOR_SET)
    };
    let v1 = reflection()
        .build_v1()
        .expect("build.rs's descriptor set decodes");
    let v1alpha = reflection()
        .build_v1alpha()
        .expect("build.rs's descriptor set decodes");
    // tonic's `Routes::into_axum_router` would bring a fallback, and axum refuses to merge two
    // routers that both have one, so the services are routed the way `Routes` does it.
    Router::new()
        .route_service(
            &path_of::<pb::ids_server::IdsServer<Grpc>>(),
            pb::ids_server::IdsServer::new(api.clone()),
        )
        .route_service(
            &path_of::<pb::leases_server::LeasesServer<Grpc>>(),
            pb::leases_server::LeasesServer::new(api),
        )
        .route_service(&path_of_service(&v1), v1)
        .route_service(&path_of_service(&v1alpha), v1alpha)
}

fn path_of<S: NamedService>() -> String {
    format!("/{}/{{*method}}", S::NAME)
}

fn path_of_service<S: NamedService>(_: &S) -> String {
    path_of::<S>()
}

/// The implementation of both services over the shared [`Server`].
#[derive(Debug, Clone)]
struct Grpc {
    server: Arc<Server>,
}

/// The token of the `authorization` metadata (`Bearer TOKEN`).
fn bearer<T>(req: &Request<T>) -> Option<&str> {
    req.metadata()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
}

/// proto3's 0 is "absent".
fn given(n: u64) -> Option<u64> {
    (n != 0).then_some(n)
}

impl Grpc {
    /// Counts the call in the metrics and converts the outcome.
    fn done<T>(
        &self,
        route: &str,
        started: Instant,
        outcome: Result<T, ApiError>,
    ) -> Result<Response<T>, Status> {
        let status = match &outcome {
            Ok(_) => 200,
            Err(e) => e.status().as_u16(),
        };
        self.server
            .ids
            .metrics
            .request(route, status, started.elapsed());
        outcome.map(Response::new).map_err(|e| e.grpc())
    }

    fn authorize<T>(&self, req: &Request<T>, need: Need<'_>) -> Result<String, ApiError> {
        Ok(self.server.auth().check_token(bearer(req), need)?.name)
    }

    fn lease(&self, l: ClientLease) -> pb::Lease {
        pb::Lease {
            value: l.value,
            token: l.token,
            fence_ms: l.fence_ms,
            ttl_ms: l.ttl_ms,
            nodes: l
                .nodes
                .into_iter()
                .map(|(name, value)| pb::NodeValue { name, value })
                .collect(),
            layout: self.server.ids.leases.layout().spec(),
        }
    }
}

#[tonic::async_trait]
impl pb::ids_server::Ids for Grpc {
    async fn segment(
        &self,
        req: Request<pb::SegmentRequest>,
    ) -> Result<Response<pb::IdList>, Status> {
        let started = Instant::now();
        let outcome = async {
            let m = req.get_ref();
            self.authorize(&req, Need::mint("segment", &m.tag))?;
            let range = self
                .server
                .ids
                .segment_range(&m.tag, given(m.count))
                .await?;
            Ok::<_, ApiError>(pb::IdList {
                ids: range.into_iter().collect(),
            })
        }
        .await;
        self.done("/idmint.v1.Ids/Segment", started, outcome)
    }

    async fn segment_range(
        &self,
        req: Request<pb::SegmentRequest>,
    ) -> Result<Response<pb::Range>, Status> {
        let started = Instant::now();
        let outcome = async {
            let m = req.get_ref();
            self.authorize(&req, Need::mint("segment", &m.tag))?;
            let range = self
                .server
                .ids
                .segment_range(&m.tag, given(m.count))
                .await?;
            Ok::<_, ApiError>(pb::Range {
                start: range.start,
                count: range.len(),
                last: range.last(),
            })
        }
        .await;
        self.done("/idmint.v1.Ids/SegmentRange", started, outcome)
    }

    async fn snowflake(
        &self,
        req: Request<pb::CountRequest>,
    ) -> Result<Response<pb::IdList>, Status> {
        let started = Instant::now();
        let outcome = async {
            self.authorize(&req, Need::mint("snowflake", ""))?;
            Ok::<_, ApiError>(pb::IdList {
                ids: self
                    .server
                    .ids
                    .snowflakes(given(req.get_ref().count))
                    .await?,
            })
        }
        .await;
        self.done("/idmint.v1.Ids/Snowflake", started, outcome)
    }

    async fn object_id(
        &self,
        req: Request<pb::CountRequest>,
    ) -> Result<Response<pb::TextList>, Status> {
        let started = Instant::now();
        let outcome = (|| {
            self.authorize(&req, Need::mint("objectid", ""))?;
            let ids = self.server.ids.object_ids(given(req.get_ref().count))?;
            Ok::<_, ApiError>(pb::TextList {
                ids: ids.iter().map(|o| o.to_hex()).collect(),
            })
        })();
        self.done("/idmint.v1.Ids/ObjectId", started, outcome)
    }

    async fn uuid7(
        &self,
        req: Request<pb::CountRequest>,
    ) -> Result<Response<pb::TextList>, Status> {
        let started = Instant::now();
        let outcome = (|| {
            self.authorize(&req, Need::mint("uuid7", ""))?;
            let ids = self.server.ids.uuid7s(given(req.get_ref().count))?;
            Ok::<_, ApiError>(pb::TextList {
                ids: ids.iter().map(|u| u.to_string()).collect(),
            })
        })();
        self.done("/idmint.v1.Ids/Uuid7", started, outcome)
    }

    async fn order_number(
        &self,
        req: Request<pb::OrderRequest>,
    ) -> Result<Response<pb::TextList>, Status> {
        let started = Instant::now();
        let outcome = async {
            let m = req.get_ref();
            self.authorize(&req, Need::mint("orders", &m.template))?;
            let ids = self
                .server
                .ids
                .order_numbers(&m.template, given(m.count))
                .await?;
            Ok::<_, ApiError>(pb::TextList { ids })
        }
        .await;
        self.done("/idmint.v1.Ids/OrderNumber", started, outcome)
    }
}

#[tonic::async_trait]
impl pb::leases_server::Leases for Grpc {
    async fn acquire(
        &self,
        req: Request<pb::AcquireRequest>,
    ) -> Result<Response<pb::Lease>, Status> {
        let started = Instant::now();
        let outcome = async {
            let caller = self.authorize(&req, Need::Lease)?;
            let m = req.get_ref();
            let range = if m.has_range {
                Some((m.first, m.last))
            } else if m.first != 0 || m.last != 0 {
                return Err(ApiError::BadRequest(
                    "`first` and `last` are read only with `has_range` true".into(),
                ));
            } else {
                None
            };
            let holder = if m.holder.is_empty() {
                &caller
            } else {
                &m.holder
            };
            let lease = self
                .server
                .ids
                .leases
                .acquire(range, given(m.ttl_ms), holder)
                .await?;
            Ok::<_, ApiError>(self.lease(lease))
        }
        .await;
        self.done("/idmint.v1.Leases/Acquire", started, outcome)
    }

    async fn renew(&self, req: Request<pb::RenewRequest>) -> Result<Response<pb::Lease>, Status> {
        let started = Instant::now();
        let outcome = async {
            self.authorize(&req, Need::Lease)?;
            let m = req.get_ref();
            let lease = self
                .server
                .ids
                .leases
                .renew(m.value, &m.token, given(m.ttl_ms), m.fence_ms)
                .await?;
            Ok::<_, ApiError>(self.lease(lease))
        }
        .await;
        self.done("/idmint.v1.Leases/Renew", started, outcome)
    }

    async fn release(
        &self,
        req: Request<pb::ReleaseRequest>,
    ) -> Result<Response<pb::ReleaseReply>, Status> {
        let started = Instant::now();
        let outcome = async {
            self.authorize(&req, Need::Lease)?;
            let m = req.get_ref();
            self.server
                .ids
                .leases
                .release(m.value, &m.token, m.fence_ms)
                .await?;
            Ok::<_, ApiError>(pb::ReleaseReply { released: true })
        }
        .await;
        self.done("/idmint.v1.Leases/Release", started, outcome)
    }
}
