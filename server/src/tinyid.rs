//! Didi Tinyid's HTTP endpoints (tinyid-server's `IdContronller`, context path `/tinyid`),
//! byte for byte on success, so tinyid-client and Tinyid's HTTP callers switch by changing a
//! host name:
//!
//! | route | answer |
//! |---|---|
//! | `/tinyid/id/nextId` | `200 application/json;charset=UTF-8`, `{"data":[3,4,5],"code":200,"message":""}` |
//! | `/tinyid/id/nextIdSimple` | `200 text/plain;charset=UTF-8`, `7,8,9` |
//! | `/tinyid/id/nextSegmentId` | `200` JSON, `{"data":{"maxId":…,"loadingId":…,"currentId":…,"delta":1,"remainder":0},"code":200,"message":""}` |
//! | `/tinyid/id/nextSegmentIdSimple` | `200` text, `currentId,loadingId,maxId,delta,remainder` |
//!
//! Any HTTP method; the parameters `bizType`, `token` and `batchSize` come from the query
//! string or an `application/x-www-form-urlencoded` body (the query first, as the servlet
//! API reads them). `bizType` is a segment tag. `token` is checked as an idmint bearer token
//! needing `mint:segment:<bizType>`; `Authorization: Bearer` is not read here.
//!
//! A bizType is served when the store holds its tag, or when `[tinyid]` creates it (listed
//! under `[tinyid.biz_types]`, or `auto_create`); otherwise it is refused as `unknown_tag`,
//! as Tinyid refuses a bizType its table lacks. Its rule (segment width, `delta`,
//! `remainder`) is core's [`TinyidRule`] from the configuration: a segment `(currentId, maxId]`
//! is one contiguous range of the tag, `step` wide, reported with the bizType's `delta` and
//! `remainder`, from which tinyid-client issues only the IDs with the remainder; `nextId`
//! answers `batchSize` IDs with the remainder, drawn as `batchSize × delta` contiguous IDs.
//!
//! Refusals have Tinyid's shape: status `200` with `{"data":null,"code":5,"message":"token is
//! error"}` (missing or refused token, unknown bizType: Tinyid's token check) or
//! `{"data":null,"code":6,"message":"<idmint's message>"}` on the JSON endpoints (core's
//! [`TinyidFailure`] decides which), an empty body on the simple ones, never an ID. A non-2xx
//! status would make tinyid-client's `HttpURLConnection` throw, and the client log its whole
//! URL, `token` included, at SEVERE, once per call. The header `idmint-error-kind` names
//! idmint's kind, and the metrics count the request under the status idmint answers elsewhere
//! (401, 404, 503…). A `batchSize` outside `1..=max_count` is refused (Tinyid caps it
//! silently). IDs are JSON numbers, as Tinyid's Java client reads them: a JavaScript reader
//! rounds IDs above 2^53.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;

use idmint_core::segment::{IdRange, TagHandle, TagSpec, TinyidFailure, TinyidRule, TinyidSegment};

use crate::auth::Need;
use crate::compat::{form_pairs, text, Outcome, JSON_UTF8, TEXT_UTF8};
use crate::error::ApiError;
use crate::Server;

/// The header a refusal names idmint's error kind in (its status is `200`, as Tinyid's); the
/// same name as the gRPC metadata of a refusal.
///
/// ```
/// assert_eq!(idmint_server::tinyid::ERROR_KIND_HEADER, "idmint-error-kind");
/// ```
pub const ERROR_KIND_HEADER: &str = "idmint-error-kind";

/// Tinyid's routes.
pub fn routes() -> Router<Arc<Server>> {
    Router::new()
        .route("/tinyid/id/nextId", any(next_id))
        .route("/tinyid/id/nextIdSimple", any(next_id_simple))
        .route("/tinyid/id/nextSegmentId", any(next_segment_id))
        .route(
            "/tinyid/id/nextSegmentIdSimple",
            any(next_segment_id_simple),
        )
}

/// A Tinyid request's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    /// `bizType`: the segment tag.
    pub biz_type: String,
    /// `token`.
    pub token: Option<String>,
    /// `batchSize` as given (absent: `None`).
    pub batch_size: Option<u64>,
}

/// The parameters from the query string, then a form body (the first value of a name wins).
///
/// ```
/// use idmint_server::tinyid::params;
/// let p = params(Some("bizType=t"), Some("application/x-www-form-urlencoded"), b"token=k&batchSize=3")?;
/// assert_eq!((p.biz_type.as_str(), p.token.as_deref(), p.batch_size), ("t", Some("k"), Some(3)));
/// assert_eq!(params(Some("bizType=t&batchSize=x"), None, b"").unwrap_err().kind(), "bad_request");
/// assert_eq!(params(None, None, b"").unwrap_err().kind(), "bad_request");
/// # Ok::<(), idmint_server::error::ApiError>(())
/// ```
pub fn params(
    query: Option<&str>,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<Params, ApiError> {
    let mut pairs = form_pairs(query.unwrap_or(""));
    let is_form = content_type.is_some_and(|ct| {
        ct.trim()
            .to_ascii_lowercase()
            .starts_with("application/x-www-form-urlencoded")
    });
    if is_form && !body.is_empty() {
        let text = std::str::from_utf8(body).map_err(|_| {
            ApiError::BadRequest("the form body is not UTF-8 (percent-encode its bytes)".into())
        })?;
        pairs.extend(form_pairs(text));
    }
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let biz_type = get("bizType").filter(|b| !b.is_empty()).ok_or_else(|| {
        ApiError::BadRequest("missing parameter `bizType`: the segment tag to draw from".into())
    })?;
    let batch_size = match get("batchSize").filter(|b| !b.trim().is_empty()) {
        None => None,
        Some(b) => Some(b.trim().parse::<u64>().map_err(|_| {
            ApiError::BadRequest(format!(
                "parameter `batchSize` = {:?}: a whole number of IDs, 1..=the server's max_count",
                b.chars().take(40).collect::<String>()
            ))
        })?),
    };
    Ok(Params {
        biz_type,
        token: get("token"),
        batch_size,
    })
}

/// Reads the parameters and checks the token for `mint:segment:<bizType>`.
fn authorized(
    s: &Server,
    query: Option<String>,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Params, ApiError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    let p = params(query.as_deref(), content_type, body)?;
    s.auth()
        .check_token(p.token.as_deref(), Need::mint("segment", &p.biz_type))?;
    Ok(p)
}

/// The bizType's tag: one the store holds, or one `[tinyid]` creates (never through
/// `[segment] auto_create`, which is for idmint's own API).
async fn biz_type(s: &Server, tag: &str) -> Result<TagHandle, ApiError> {
    let segments = &s.ids.segments;
    match segments.existing_tag_async(tag).await {
        Err(idmint_core::Error::UnknownTag { .. }) if s.config.tinyid.creates(tag) => {
            let spec = TagSpec::new(tag)?.step(s.config.segment.default_step)?;
            segments.create_tag_async(&spec).await?;
            Ok(segments.existing_tag_async(tag).await?)
        }
        other => Ok(other?),
    }
}

/// Tinyid's JSON envelope around `data` (already JSON text).
fn envelope_text(data: &str, code: u16, message: &str) -> String {
    format!(
        "{{\"data\":{data},\"code\":{code},\"message\":{}}}",
        serde_json::to_string(message).expect("a str serializes")
    )
}

/// A success: Tinyid's envelope, code 200, empty message.
fn json_ok(data: &str) -> Response {
    (
        [(header::CONTENT_TYPE, JSON_UTF8)],
        envelope_text(data, 200, ""),
    )
        .into_response()
}

/// A refusal as Tinyid answers one: `200`, `body` (Tinyid's failure body, never an ID), the
/// kind in [`ERROR_KIND_HEADER`], and the status idmint stands for kept for the metrics.
fn refused(e: &ApiError, content_type: &'static str, body: String) -> Response {
    let mut response = ([(header::CONTENT_TYPE, content_type)], body).into_response();
    response.headers_mut().insert(
        HeaderName::from_static(ERROR_KIND_HEADER),
        HeaderValue::from_static(e.kind()),
    );
    response.extensions_mut().insert(Outcome(e.status()));
    response
}

/// Tinyid's failure body of the JSON endpoints for `e`, `data` null: core's
/// [`TinyidFailure`] of its kind (code 5 `token is error` for a missing or refused token and
/// for an unknown bizType, as Tinyid's token check answers them; code 6 with idmint's message
/// otherwise).
///
/// ```
/// use idmint_server::error::ApiError;
/// use idmint_server::tinyid::json_failure;
/// assert_eq!(json_failure(&ApiError::Unauthorized("no".into())), r#"{"data":null,"code":5,"message":"token is error"}"#);
/// let e = ApiError::from(idmint_core::Error::UnknownTag { tag: "t".into() });
/// assert_eq!(json_failure(&e), r#"{"data":null,"code":5,"message":"token is error"}"#);
/// let e = ApiError::BadRequest("missing parameter `bizType`".into());
/// assert_eq!(json_failure(&e), r#"{"data":null,"code":6,"message":"missing parameter `bizType`"}"#);
/// ```
pub fn json_failure(e: &ApiError) -> String {
    let message = e.to_string();
    let failure = TinyidFailure::of(e.kind(), &message);
    envelope_text("null", failure.code, failure.message)
}

fn json_error(e: ApiError) -> Response {
    refused(&e, JSON_UTF8, json_failure(&e))
}

/// A refusal of a simple endpoint: an empty body, as Tinyid's.
fn empty_error(e: ApiError) -> Response {
    refused(&e, TEXT_UTF8, String::new())
}

fn id_csv(ids: impl Iterator<Item = u64>, len: u64) -> String {
    let mut out = String::with_capacity(len.min(1 << 20) as usize * 8);
    let mut buf = itoa::Buffer::new();
    for (i, id) in ids.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(buf.format(id));
    }
    out
}

/// The tag's IDs drawn for a batch of `batchSize` IDs with the bizType's remainder, and its
/// rule, whose [`TinyidRule::ids_in`] picks them.
async fn ids(
    s: &Server,
    query: Option<String>,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(TinyidRule, IdRange, u64), ApiError> {
    let p = authorized(s, query, headers, body)?;
    let n = s.ids.count(p.batch_size)? as u64;
    let rule = s.config.tinyid.rule(&p.biz_type)?;
    let span = rule.span(n)?;
    let range = biz_type(s, &p.biz_type).await?.next_ids_async(span).await?;
    s.ids.metrics.issued("segment", &p.biz_type, range.len());
    Ok((rule, range, n))
}

/// One segment of the bizType: its rule's `step` of contiguous IDs.
async fn segment(
    s: &Server,
    query: Option<String>,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<TinyidSegment, ApiError> {
    let p = authorized(s, query, headers, body)?;
    let rule = s.config.tinyid.rule(&p.biz_type)?;
    let range = biz_type(s, &p.biz_type)
        .await?
        .next_ids_async(rule.step())
        .await?;
    s.ids.metrics.issued("segment", &p.biz_type, range.len());
    Ok(rule.segment(range))
}

async fn next_id(
    State(s): State<Arc<Server>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match ids(&s, query, &headers, &body).await {
        Ok((rule, range, n)) => json_ok(&format!("[{}]", id_csv(rule.ids_in(range), n))),
        Err(e) => json_error(e),
    }
}

async fn next_id_simple(
    State(s): State<Arc<Server>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match ids(&s, query, &headers, &body).await {
        Ok((rule, range, n)) => text(id_csv(rule.ids_in(range), n)),
        Err(e) => empty_error(e),
    }
}

async fn next_segment_id(
    State(s): State<Arc<Server>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match segment(&s, query, &headers, &body).await {
        Ok(g) => json_ok(&format!(
            "{{\"maxId\":{},\"loadingId\":{},\"currentId\":{},\"delta\":{},\"remainder\":{}}}",
            g.max_id, g.loading_id, g.current_id, g.delta, g.remainder
        )),
        Err(e) => json_error(e),
    }
}

async fn next_segment_id_simple(
    State(s): State<Arc<Server>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match segment(&s, query, &headers, &body).await {
        Ok(g) => text(format!(
            "{},{},{},{},{}",
            g.current_id, g.loading_id, g.max_id, g.delta, g.remainder
        )),
        Err(e) => empty_error(e),
    }
}
