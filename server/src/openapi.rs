//! The OpenAPI 3.1 document of `/v1`, generated from the handlers' annotations (utoipa) and
//! served at `/openapi.json`.

use std::sync::Arc;

use axum::routing::get;
use axum::{Json, Router};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::Server;

#[derive(OpenApi)]
#[openapi(
    info(title = "idmint", description = "Unique IDs over HTTP: segment IDs per tag, snowflake IDs, ObjectIds, UUIDv7, order numbers, node-value leases. IDs are JSON strings unless `?ids=number`."),
    paths(
        crate::v1::segment, crate::v1::segment_range, crate::v1::snowflake, crate::v1::object_id,
        crate::v1::uuid7, crate::v1::orders, crate::v1::parse, crate::v1::layout,
        crate::v1::lease_acquire, crate::v1::lease_renew, crate::v1::lease_release,
        crate::v1::tags_list, crate::v1::tags_create, crate::v1::tags_update, crate::v1::leases_list,
    ),
    modifiers(&Bearer),
)]
struct Doc;

struct Bearer;

impl Modify for Bearer {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// The document.
///
/// ```
/// let doc = idmint_server::openapi::document();
/// assert!(doc.paths.paths.contains_key("/v1/segment/{tag}"));
/// ```
pub fn document() -> utoipa::openapi::OpenApi {
    Doc::openapi()
}

/// `/openapi.json`.
pub fn routes() -> Router<Arc<Server>> {
    let doc = Arc::new(document());
    Router::new().route(
        "/openapi.json",
        get(move || {
            let doc = doc.clone();
            async move { Json(doc.as_ref().clone()) }
        }),
    )
}
