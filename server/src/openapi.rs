//! The OpenAPI 3.1 document of `/v1`, generated from the handlers' annotations (utoipa) and
//! served at `/openapi.json`.

use std::sync::{Arc, OnceLock};

use axum::extract::State;
use axum::http::header;
use axum::routing::get;
use axum::Router;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::config::Config;
use crate::Server;

#[derive(OpenApi)]
#[openapi(
    info(title = "idmint", description = "Unique IDs over HTTP: segment IDs per tag, snowflake IDs, ObjectIds, UUIDv7, order numbers, node-value leases. IDs are JSON strings unless `?ids=number`. Every refusal is `{\"error\": {\"kind\", \"message\"}}` with the status of its kind (docs/server.md)."),
    paths(
        crate::v1::segment, crate::v1::segment_tag, crate::v1::segment_range, crate::v1::snowflake, crate::v1::object_id,
        crate::v1::uuid7, crate::v1::orders, crate::v1::parse, crate::v1::layout,
        crate::v1::lease_acquire, crate::v1::lease_renew, crate::v1::lease_release,
        crate::v1::tags_list, crate::v1::tags_create, crate::v1::tags_update, crate::v1::leases_list,
    ),
    tags(
        (name = "mint", description = "Mint IDs: `count` per request (1 ..= `max_count`); numeric IDs as JSON strings unless `?ids=number`"),
        (name = "read", description = "Take IDs apart; any valid token"),
        (name = "lease", description = "Node values leased to clients, fenced, with a TTL (scope `lease`)"),
        (name = "admin", description = "Tags and leases of the store (scope `admin`)"),
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

/// The document as this server serves it: `count`'s maximum is its `max_count`, and an order
/// template's `name` is one of those it has configured.
///
/// ```
/// let config = idmint_server::config::Config::from_toml_str("max_count = 500\n[orders.so]\ntemplate = \"SO%8S\"\n", "inline")?;
/// let json = serde_json::to_value(idmint_server::openapi::document_for(&config)).unwrap();
/// let post = &json["paths"]["/v1/orders/{name}"]["post"]["parameters"];
/// assert_eq!(post[0]["schema"]["enum"], serde_json::json!(["so"]));
/// assert_eq!(post[1]["schema"]["maximum"], 500);
/// # Ok::<(), idmint_server::config::ConfigError>(())
/// ```
pub fn document_for(config: &Config) -> utoipa::openapi::OpenApi {
    use utoipa::openapi::{RefOr, Schema};
    let mut doc = document();
    let templates: Vec<serde_json::Value> =
        config.orders.keys().map(|k| k.as_str().into()).collect();
    for (path, item) in doc.paths.paths.iter_mut() {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for op in operations.into_iter().flatten() {
            for p in op.parameters.iter_mut().flatten() {
                let Some(RefOr::T(Schema::Object(schema))) = p.schema.as_mut() else {
                    continue;
                };
                match p.name.as_str() {
                    "count" => {
                        schema.maximum = usize::try_from(config.max_count)
                            .ok()
                            .map(utoipa::Number::UInt);
                    }
                    "name" if path == "/v1/orders/{name}" && !templates.is_empty() => {
                        schema.enum_values = Some(templates.clone());
                    }
                    _ => {}
                }
            }
        }
    }
    doc
}

/// `/openapi.json`: [`document_for`] the server's configuration, serialized once.
pub fn routes() -> Router<Arc<Server>> {
    let doc: Arc<OnceLock<String>> = Arc::default();
    Router::new()
        .route(
            "/openapi.json",
            get(move |State(s): State<Arc<Server>>| {
                let doc = doc.clone();
                async move {
                    let body = doc.get_or_init(|| {
                        serde_json::to_string(&document_for(&s.config))
                            .expect("the document serializes")
                    });
                    ([(header::CONTENT_TYPE, "application/json")], body.clone())
                }
            }),
        )
        .method_not_allowed_fallback(crate::v1::method_not_allowed)
}
