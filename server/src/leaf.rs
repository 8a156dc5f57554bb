//! Meituan Leaf's HTTP endpoints (leaf-server's `LeafController`), byte for byte.

use std::sync::Arc;

use axum::Router;

use crate::Server;

/// Leaf's routes.
pub fn routes() -> Router<Arc<Server>> {
    Router::new()
}
