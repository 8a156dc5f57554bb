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
//! (`/idmint.v1.Ids/Segment`) and the HTTP status its error would have had (200 on success):
//! every method is one `Grpc::call`, which times, authorizes, counts and converts.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use tonic::server::NamedService;
use tonic::{Request, Response, Status};

use idmint_core::args::StreamPlan;
use idmint_core::formats::{Decoded, PartValue};
use idmint_core::lease::ClientLease;

use crate::auth::{Caller, Need};
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

/// The token of the `authorization` metadata (`Bearer TOKEN`), read as HTTP's header is.
fn bearer<T>(req: &Request<T>) -> Option<&str> {
    crate::auth::token_of(req.metadata().get("authorization")?.to_str().ok()?)
}

/// proto3's 0 is "absent".
fn given(n: u64) -> Option<u64> {
    (n != 0).then_some(n)
}

impl Grpc {
    /// One call of a method, as every method makes it: timed from the start, authorized for
    /// what `need` says the message needs, `work` run with the caller's name and the message,
    /// counted in the metrics under `route` with the HTTP status its outcome would have had (200
    /// on success), and an error converted to its gRPC status.
    async fn call<M, T, Fut>(
        &self,
        route: &str,
        req: Request<M>,
        need: fn(&M) -> Need<'_>,
        work: impl FnOnce(Caller, M) -> Fut,
    ) -> Result<Response<T>, Status>
    where
        Fut: Future<Output = Result<T, ApiError>>,
    {
        let started = Instant::now();
        let outcome = match self
            .server
            .auth()
            .check_token(bearer(&req), need(req.get_ref()))
        {
            Ok(caller) => work(caller, req.into_inner()).await,
            Err(e) => Err(e),
        };
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

/// proto3's empty string is "absent".
fn named(text: &str) -> Option<&str> {
    (!text.is_empty()).then_some(text)
}

/// Core's decoded ID as its message: the fields of `/v1/parse`'s JSON, typed.
fn decoded(d: Decoded) -> pb::DecodedId {
    pb::DecodedId {
        format: d.format.name().to_string(),
        id: d.id,
        value: d.value,
        time_ms: d.time_ms,
        time: d.time,
        layout: d.layout,
        parts: d
            .parts
            .into_iter()
            .map(|(name, value)| pb::IdPart {
                name,
                value: Some(match value {
                    PartValue::Int(n) => pb::id_part::Value::Number(n),
                    PartValue::Text(t) => pb::id_part::Value::Text(t),
                }),
            })
            .collect(),
    }
}

#[tonic::async_trait]
impl pb::ids_server::Ids for Grpc {
    async fn segment(
        &self,
        req: Request<pb::SegmentRequest>,
    ) -> Result<Response<pb::IdList>, Status> {
        self.call(
            "/idmint.v1.Ids/Segment",
            req,
            |m| Need::mint("segment", &m.tag),
            |_, m| async move {
                let range = self
                    .server
                    .ids
                    .segment_range(&m.tag, given(m.count))
                    .await?;
                Ok(pb::IdList {
                    ids: range.into_iter().collect(),
                })
            },
        )
        .await
    }

    async fn segment_range(
        &self,
        req: Request<pb::SegmentRequest>,
    ) -> Result<Response<pb::Range>, Status> {
        self.call(
            "/idmint.v1.Ids/SegmentRange",
            req,
            |m| Need::mint("segment", &m.tag),
            |_, m| async move {
                let range = self
                    .server
                    .ids
                    .segment_range(&m.tag, given(m.count))
                    .await?;
                Ok(pb::Range {
                    start: range.start,
                    count: range.len(),
                    last: range.last(),
                })
            },
        )
        .await
    }

    async fn snowflake(
        &self,
        req: Request<pb::CountRequest>,
    ) -> Result<Response<pb::IdList>, Status> {
        self.call(
            "/idmint.v1.Ids/Snowflake",
            req,
            |_| Need::mint("snowflake", ""),
            |_, m| async move {
                Ok(pb::IdList {
                    ids: self.server.ids.snowflakes(given(m.count)).await?,
                })
            },
        )
        .await
    }

    async fn object_id(
        &self,
        req: Request<pb::CountRequest>,
    ) -> Result<Response<pb::TextList>, Status> {
        self.call(
            "/idmint.v1.Ids/ObjectId",
            req,
            |_| Need::mint("objectid", ""),
            |_, m| async move {
                let ids = self.server.ids.object_ids(given(m.count))?;
                Ok(pb::TextList {
                    ids: ids.iter().map(|o| o.to_hex()).collect(),
                })
            },
        )
        .await
    }

    async fn uuid7(
        &self,
        req: Request<pb::CountRequest>,
    ) -> Result<Response<pb::TextList>, Status> {
        self.call(
            "/idmint.v1.Ids/Uuid7",
            req,
            |_| Need::mint("uuid7", ""),
            |_, m| async move {
                let ids = self.server.ids.uuid7s(given(m.count))?;
                Ok(pb::TextList {
                    ids: ids.iter().map(|u| u.to_string()).collect(),
                })
            },
        )
        .await
    }

    async fn order_number(
        &self,
        req: Request<pb::OrderRequest>,
    ) -> Result<Response<pb::TextList>, Status> {
        self.call(
            "/idmint.v1.Ids/OrderNumber",
            req,
            |m| Need::mint("orders", &m.template),
            |_, m| async move {
                let ids = self
                    .server
                    .ids
                    .order_numbers(&m.template, given(m.count))
                    .await?;
                Ok(pb::TextList { ids })
            },
        )
        .await
    }

    type StreamIdsStream = IdStream;

    async fn stream_ids(
        &self,
        req: Request<pb::StreamRequest>,
    ) -> Result<Response<IdStream>, Status> {
        self.call(
            "/idmint.v1.Ids/StreamIds",
            req,
            |m| match m.kind() {
                pb::StreamKind::Segment => Need::mint("segment", &m.tag),
                pb::StreamKind::Snowflake => Need::mint("snowflake", ""),
                // Only the `mint` scope passes; the call is then refused for its kind.
                pb::StreamKind::Unspecified => Need::mint("", ""),
            },
            |_, m| async move {
                let kind = match m.kind() {
                    pb::StreamKind::Segment => Stream::Segment(m.tag),
                    pb::StreamKind::Snowflake => Stream::Snowflake,
                    pb::StreamKind::Unspecified => {
                        return Err(ApiError::BadRequest(format!(
                            "`kind` = {}: STREAM_KIND_SEGMENT (1) or STREAM_KIND_SNOWFLAKE (2)",
                            m.kind
                        )))
                    }
                };
                let plan = StreamPlan::new(m.count, m.batch, self.server.ids.max_count)?;
                Ok(id_stream(self.server.clone(), kind, plan))
            },
        )
        .await
    }

    async fn parse(
        &self,
        req: Request<pb::ParseRequest>,
    ) -> Result<Response<pb::DecodedId>, Status> {
        self.call(
            "/idmint.v1.Ids/Parse",
            req,
            |_| Need::Read,
            |_, m| async move {
                let d = crate::v1::decode(&self.server, &m.id, named(&m.layout), named(&m.format))?;
                Ok(decoded(d))
            },
        )
        .await
    }
}

/// The messages of a `StreamIds` call.
type IdStream =
    std::pin::Pin<Box<dyn futures_core::Stream<Item = Result<pb::IdList, Status>> + Send>>;

/// What a stream mints.
enum Stream {
    Segment(String),
    Snowflake,
}

/// The messages of a stream, each minted when the transport asks for it (tonic polls the
/// stream while its send buffer and HTTP/2's window have room, so minting stays about one
/// window ahead of the reader): IDs already minted when the client cancels are
/// dropped with the stream, never handed to anyone else. A draining server ends an unbounded
/// stream with `UNAVAILABLE`, so the client reconnects to a server that is ready.
fn id_stream(server: Arc<Server>, kind: Stream, plan: StreamPlan) -> IdStream {
    let what = Arc::new((server, kind));
    Box::pin(futures_util::stream::unfold(Some(0u64), move |sent| {
        let what = what.clone();
        async move {
            let (server, kind) = &*what;
            let n = plan.batch(sent?)?;
            if !server
                .ids
                .accepting
                .load(std::sync::atomic::Ordering::Acquire)
            {
                return Some((Err(ApiError::ShuttingDown.grpc()), None));
            }
            let ids = match kind {
                Stream::Segment(tag) => server
                    .ids
                    .segment_range(tag, Some(n as u64))
                    .await
                    .map(|r| r.into_iter().collect()),
                Stream::Snowflake => server.ids.snowflakes(Some(n as u64)).await,
            };
            Some(match ids {
                Ok(ids) => (Ok(pb::IdList { ids }), sent.map(|s| s + n as u64)),
                Err(e) => (Err(ApiError::from(e).grpc()), None),
            })
        }
    }))
}

#[tonic::async_trait]
impl pb::leases_server::Leases for Grpc {
    async fn acquire(
        &self,
        req: Request<pb::AcquireRequest>,
    ) -> Result<Response<pb::Lease>, Status> {
        self.call(
            "/idmint.v1.Leases/Acquire",
            req,
            |_| Need::Lease,
            |caller, m| async move {
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
                    caller.name()
                } else {
                    &m.holder
                };
                let lease = self
                    .server
                    .ids
                    .leases
                    .acquire(range, given(m.ttl_ms), holder)
                    .await?;
                Ok(self.lease(lease))
            },
        )
        .await
    }

    async fn renew(&self, req: Request<pb::RenewRequest>) -> Result<Response<pb::Lease>, Status> {
        self.call(
            "/idmint.v1.Leases/Renew",
            req,
            |_| Need::Lease,
            |_, m| async move {
                let lease = self
                    .server
                    .ids
                    .leases
                    .renew(m.value, &m.token, given(m.ttl_ms), m.fence_ms)
                    .await?;
                Ok(self.lease(lease))
            },
        )
        .await
    }

    async fn release(
        &self,
        req: Request<pb::ReleaseRequest>,
    ) -> Result<Response<pb::ReleaseReply>, Status> {
        self.call(
            "/idmint.v1.Leases/Release",
            req,
            |_| Need::Lease,
            |_, m| async move {
                self.server
                    .ids
                    .leases
                    .release(m.value, &m.token, m.fence_ms)
                    .await?;
                Ok(pb::ReleaseReply { released: true })
            },
        )
        .await
    }
}
