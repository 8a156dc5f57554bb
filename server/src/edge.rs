//! What every API request passes through once, outside the routes: the body limit, the request
//! timeout, `Connection: close` while draining, and the JSON error body of those refusals.
//!
//! One typed service around the router, not layers on it: a layer given to an axum `Router` is
//! applied to each route and boxed there, so every request would clone and allocate each layer
//! again; one service around the router does that work once per request.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::http::{header, HeaderValue, Request, StatusCode, Version};
use axum::response::{IntoResponse, Response};
use axum::Router;
use http_body_util::Limited;

use crate::config::LimitsConfig;
use crate::error::ApiError;
use crate::Server;

/// The API service: [`Edge`] around the router of every API route (`Server::api_router`).
#[derive(Clone)]
pub struct Edge {
    router: Router,
    server: Arc<Server>,
}

impl std::fmt::Debug for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Edge").finish_non_exhaustive()
    }
}

impl Edge {
    /// `router` behind the server's limits.
    pub fn new(router: Router, server: Arc<Server>) -> Edge {
        Edge { router, server }
    }
}

/// The declared length of a request body, if any.
fn declared_length<B>(req: &Request<B>) -> Option<u64> {
    req.headers()
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

fn too_large(limits: &LimitsConfig) -> Response {
    ApiError::PayloadTooLarge(format!(
        "the request body is larger than this server's limit of {} bytes (limits.max_body_bytes)",
        limits.max_body_bytes
    ))
    .into_response()
}

impl<B> tower::Service<Request<B>> for Edge
where
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // The router is always ready.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let server = self.server.clone();
        let limits = &server.config.limits;
        // A declared length over the limit is refused before a byte of the body is read; a
        // body without one (chunked) is cut off while it is read, and the extractor reading
        // it answers 413 (given its JSON body below).
        if declared_length(&req).is_some_and(|n| n > limits.max_body_bytes as u64) {
            let r = too_large(limits);
            return Box::pin(async move { Ok(r) });
        }
        let max = limits.max_body_bytes;
        let req = req.map(|b| Body::new(Limited::new(b, max)));
        // Requests keep being answered while draining (readiness is off); an HTTP/1.1 answer
        // then closes its connection, so the client opens a new one, to a server that is ready.
        let http1 = req.version() == Version::HTTP_11;
        let answer = tower::Service::call(&mut self.router, req);
        Box::pin(async move {
            let limits = &server.config.limits;
            // Most answers are ready at their first poll (an ID from memory): the timer is
            // set only for one that is not, from then on.
            let mut answer = std::pin::pin!(answer);
            let first = std::future::poll_fn(|cx| Poll::Ready(answer.as_mut().poll(cx))).await;
            let answered = match first {
                Poll::Ready(r) => Ok(r),
                Poll::Pending => {
                    let timeout = Duration::from_millis(limits.request_timeout_ms);
                    tokio::time::timeout(timeout, answer).await
                }
            };
            let mut response = match answered {
                Ok(Ok(r)) => json_refusals(r, limits),
                Ok(Err(never)) => match never {},
                Err(_) => ApiError::Timeout(limits.request_timeout_ms).into_response(),
            };
            if http1 && !server.ids.accepting.load(Ordering::Acquire) {
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            Ok(response)
        })
    }
}

/// A 413 that is not JSON (axum's body extractors answer a body cut off at the limit in plain
/// text) gets the JSON error body every other refusal has.
fn json_refusals(response: Response, limits: &LimitsConfig) -> Response {
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| {
            v.as_bytes().starts_with(b"application/json")
                || v.as_bytes().starts_with(b"application/grpc")
        });
    if is_json {
        return response;
    }
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return too_large(limits);
    }
    response
}

/// The type [`Server::api_router`] answers with: the CORS layer of `[http] cors_origins` when
/// configured (outermost: it answers preflight requests itself), then [`Edge`].
pub type ApiService = tower::util::Either<tower_http::cors::Cors<Edge>, Edge>;
