//! `idmint.v1` over gRPC (proto/idmint/v1/idmint.proto), served on the API port beside HTTP,
//! with server reflection.

use std::sync::Arc;

use axum::Router;

use crate::Server;

/// The gRPC services as routes of the API listener.
pub fn router(_server: Arc<Server>) -> Router {
    Router::new()
}
