//! The admin listener (loopback by default): `/healthz` (the process answers), `/readyz`
//! (not shutting down, healthy by the core's rule `idmint_core::health` — the node lease held,
//! no tag without IDs buffered whose store calls failed —, the clock sane, the configured tags'
//! first ranges loaded; 200 with the reasons when degraded: a layout within a year of its end)
//! and `/metrics` (Prometheus, OpenMetrics text).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::Server;

/// The admin routes.
pub fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .with_state(server)
}

async fn readyz(State(s): State<Arc<Server>>) -> Response {
    match s.ids.not_ready() {
        None => match s.ids.degraded() {
            None => (StatusCode::OK, "ready\n").into_response(),
            Some(why) => (StatusCode::OK, format!("ready, degraded: {why}\n")).into_response(),
        },
        Some(why) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {why}\n"),
        )
            .into_response(),
    }
}

/// OpenMetrics when the scraper asks for it (Prometheus does), else the classic text format.
async fn metrics(State(s): State<Arc<Server>>, headers: HeaderMap) -> Response {
    let text = s.ids.metrics.encode(s.ids.core_state());
    let openmetrics = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/openmetrics-text"));
    if openmetrics {
        (
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response()
    } else {
        (
            [(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            crate::metrics::to_prometheus_text(&text),
        )
            .into_response()
    }
}
