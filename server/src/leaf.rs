//! Meituan Leaf's HTTP endpoints (leaf-server's `LeafController`), byte for byte on success,
//! so a Leaf caller switches by changing a host name:
//!
//! | route | answer |
//! |---|---|
//! | `/api/segment/get/{key}` | `200 text/plain;charset=UTF-8`, the bare decimal segment ID of tag `key` |
//! | `/api/snowflake/get/{key}` | `200 text/plain;charset=UTF-8`, a bare decimal snowflake ID (`key` ignored, as Leaf does) |
//! | `/decodeSnowflakeId?snowflakeId=N` | `200 application/json;charset=UTF-8`, `{"workerId":"…","sequenceId":"…","timestamp":"MS(yyyy-MM-dd HH:mm:ss.SSS)"}` |
//!
//! Every route takes any HTTP method, as Leaf's `@RequestMapping` does. Bodies carry no
//! trailing newline.
//!
//! Where idmint deliberately differs: a failed mint is never Leaf's placeholder. Leaf answers a
//! broken tag with status 500 and Spring's error JSON, and with `200 "0"` when segment mode is
//! off; idmint answers the status of [`ApiError`] (404 unknown tag, 503 store down, 401/403
//! auth, …) with its `{"error":{"kind","message"}}` body, and with the `[leaf]` endpoints
//! disabled the routes do not exist (404). `decodeSnowflakeId` with a missing or non-numeric
//! ID is a 400 with that body (Leaf: 200 with an `errorMsg` key). Its date is UTC (Leaf prints
//! the JVM's time zone). Authorization is idmint's bearer token, as on `/v1`.

use std::sync::{Arc, OnceLock};

use axum::extract::{Path, RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;

use idmint_core::Layout;

use crate::auth::{Bearer, Need};
use crate::compat::{form_pairs, text, JSON_UTF8};
use crate::error::ApiError;
use crate::Server;

/// Leaf's routes.
pub fn routes() -> Router<Arc<Server>> {
    Router::new()
        .route("/api/segment/get/{key}", any(segment))
        .route("/api/segment/get/{key}/", any(segment))
        .route("/api/snowflake/get/{key}", any(snowflake))
        .route("/api/snowflake/get/{key}/", any(snowflake))
        .route("/decodeSnowflakeId", any(decode))
}

/// `/api/segment/get/{key}`: one segment ID of tag `key`.
async fn segment(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    key: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Response, ApiError> {
    let Path(key) = key?;
    s.auth().check(&bearer, Need::mint("segment", &key))?;
    let range = s.ids.segment_range(&key, None).await?;
    Ok(text(range.start.to_string()))
}

/// `/api/snowflake/get/{key}`: one snowflake ID of the server's generator.
async fn snowflake(State(s): State<Arc<Server>>, bearer: Bearer) -> Result<Response, ApiError> {
    s.auth().check(&bearer, Need::mint("snowflake", ""))?;
    let ids = s.ids.snowflakes(None).await?;
    let id = ids.first().copied().ok_or_else(|| {
        ApiError::BadRequest("the snowflake generator returned no ID for a count of 1".into())
    })?;
    Ok(text(id.to_string()))
}

/// Leaf's snowflake layout: core's preset `leaf`.
fn leaf_layout() -> &'static Layout {
    static LAYOUT: OnceLock<Layout> = OnceLock::new();
    LAYOUT.get_or_init(|| Layout::preset("leaf").expect("`leaf` is one of core's presets"))
}

/// A time as Leaf prints it: `MS(yyyy-MM-dd HH:mm:ss.SSS)`, the date from core's RFC 3339
/// text (UTC).
///
/// ```
/// assert_eq!(idmint_server::leaf::leaf_time(1573966081162), "1573966081162(2019-11-17 04:48:01.162)");
/// ```
pub fn leaf_time(ms: u64) -> String {
    let rfc3339 = idmint_core::format_time_ms(ms); // 2019-11-17T04:48:01.162Z
    let date = rfc3339.trim_end_matches('Z').replacen('T', " ", 1);
    format!("{ms}({date})")
}

/// Leaf's `decodeSnowflakeId` body for `id`, keys in Leaf's order, every value a string.
///
/// ```
/// assert_eq!(
///     idmint_server::leaf::decode_body(5)?,
///     r#"{"workerId":"0","sequenceId":"5","timestamp":"1288834974657(2010-11-04 01:42:54.657)"}"#
/// );
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn decode_body(id: u64) -> idmint_core::Result<String> {
    let parts = leaf_layout().decompose(id)?;
    let worker = parts.node("worker").unwrap_or(0);
    let string = |v: &str| serde_json::to_string(v).expect("a str serializes");
    Ok(format!(
        "{{\"workerId\":{},\"sequenceId\":{},\"timestamp\":{}}}",
        string(&worker.to_string()),
        string(&parts.sequence.to_string()),
        string(&leaf_time(parts.time_ms))
    ))
}

/// `/decodeSnowflakeId?snowflakeId=N`: Leaf's fixed layout (core's preset `leaf`), decomposed
/// by core.
async fn decode(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    s.auth().check(&bearer, Need::Read)?;
    let params = form_pairs(query.as_deref().unwrap_or(""));
    let text = params
        .iter()
        .find(|(k, _)| k == "snowflakeId")
        .map(|(_, v)| v.as_str())
        .ok_or_else(|| {
            ApiError::BadRequest(
                "missing query parameter `snowflakeId`: /decodeSnowflakeId?snowflakeId=ID".into(),
            )
        })?;
    let id = idmint_core::parse_id(text)?;
    let body = decode_body(id)?;
    Ok(([(header::CONTENT_TYPE, JSON_UTF8)], body).into_response())
}
