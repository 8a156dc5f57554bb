//! # idmint-server
//!
//! `idmint serve`: the ID service. A thin room over `idmint-core`: the listeners convert
//! requests into core calls and core's answers and errors into responses; every rule lives in
//! core.
//!
//! - [`v1`]: idmint's own HTTP API (`/v1/…`, JSON, OpenAPI 3.1 at `/openapi.json`);
//! - [`leaf`] and [`tinyid`]: Meituan Leaf's and Didi Tinyid's endpoints, byte for byte, so
//!   their callers switch by changing a host name;
//! - [`grpc`]: `idmint.v1` over gRPC (with reflection), on the same port;
//! - [`admin`]: `/healthz`, `/readyz`, `/metrics` on a listener of their own (loopback by
//!   default).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let config = idmint_server::config::Config::default(); // 127.0.0.1:8080, sqlite:./idmint.db
//! idmint_server::run(config).await?; // until SIGTERM or Ctrl-C
//! # Ok(()) }
//! ```

#![deny(missing_docs)]

pub mod admin;
pub mod api;
pub mod app;
pub mod auth;
pub mod compat;
pub mod config;
pub mod edge;
pub mod error;
pub mod grpc;
pub mod leaf;
pub mod listen;
pub mod metrics;
pub mod openapi;
pub mod state;
pub mod tinyid;
pub mod v1;

pub use api::cors;
pub use app::{ServeError, Server};

use crate::config::Config;

/// Runs the server until SIGTERM or SIGINT: opens the generators, serves the API and admin
/// listeners, reloads tokens and TLS on SIGHUP; on the way out turns readiness off, drains
/// requests in flight (bounded by `limits.shutdown_grace_ms`) and releases the node lease.
pub async fn run(config: Config) -> Result<(), ServeError> {
    listen::run(config).await
}
