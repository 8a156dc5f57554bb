//! Didi Tinyid's HTTP endpoints (tinyid-server's `IdContronller`), byte for byte.

use std::sync::Arc;

use axum::Router;

use crate::Server;

/// Tinyid's routes.
pub fn routes() -> Router<Arc<Server>> {
    Router::new()
}
