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
//! A segment `(currentId, maxId]` is one contiguous range of the tag's step (the dynamic step
//! of the server's segment client), taken from the server's buffered ranges: `currentId` is
//! one below its first ID, `loadingId` 20 % into it (Tinyid's `loadingPercent`), `delta` 1,
//! `remainder` 0.
//!
//! Where idmint deliberately differs: every failure has a non-2xx status (Tinyid answers 200
//! with `code` 5 for a bad token and `code` 6 otherwise, and `data: null`). The JSON endpoints
//! keep Tinyid's body shape (`code` 5 `token is error` for 401/403, `code` 6 with idmint's
//! message otherwise); the simple endpoints answer an empty body. A `batchSize` outside
//! `1..=max_count` is a 400 (Tinyid caps it silently). IDs are JSON numbers, as Tinyid's Java
//! client reads them: a JavaScript reader rounds IDs above 2^53.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;

use idmint_core::segment::IdRange;

use crate::auth::Need;
use crate::error::ApiError;
use crate::leaf::{JSON_UTF8, TEXT_UTF8};
use crate::Server;

/// Tinyid's `loadingPercent`: a client prefetches the next segment this far into one.
pub const LOADING_PERCENT: u64 = 20;

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

/// Reads `application/x-www-form-urlencoded` text (also a query string) into its pairs, in
/// order: `+` is a space, `%XX` a byte; an invalid escape stays as written.
///
/// ```
/// let pairs = idmint_server::tinyid::form_pairs("bizType=a%20b&token=x+y&flag");
/// assert_eq!(pairs, [("bizType".into(), "a b".into()), ("token".into(), "x y".into()), ("flag".into(), String::new())]);
/// ```
pub fn form_pairs(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode_component(k), decode_component(v))
        })
        .collect()
}

fn decode_component(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
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

/// `e`'s response (its status and headers: `Retry-After`, `WWW-Authenticate`) with `body`
/// instead of idmint's error JSON; no content type when `body` is empty.
fn with_body(e: ApiError, body: String) -> Response {
    let mut response = e.into_response();
    if body.is_empty() {
        response.headers_mut().remove(header::CONTENT_TYPE);
    } else {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static(JSON_UTF8),
        );
    }
    *response.body_mut() = axum::body::Body::from(body);
    response
}

/// A failure in Tinyid's shape, with idmint's status: code 5 (`token is error`) for a missing
/// or refused token, code 6 with idmint's message otherwise.
fn json_error(e: ApiError) -> Response {
    let (code, message) = match &e {
        ApiError::Unauthorized(_) | ApiError::Forbidden(_) => (5, "token is error".to_string()),
        _ => (6, e.to_string()),
    };
    let body = envelope_text("null", code, &message);
    with_body(e, body)
}

/// A failure of a simple endpoint: the status alone, empty body.
fn empty_error(e: ApiError) -> Response {
    with_body(e, String::new())
}

fn text(body: String) -> Response {
    ([(header::CONTENT_TYPE, TEXT_UTF8)], body).into_response()
}

fn id_csv(range: IdRange) -> String {
    let mut out = String::with_capacity(range.len().min(1 << 20) as usize * 8);
    let mut buf = itoa::Buffer::new();
    for (i, id) in range.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(buf.format(id));
    }
    out
}

/// `batchSize` contiguous IDs of the tag.
async fn ids(
    s: &Server,
    query: Option<String>,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<IdRange, ApiError> {
    let p = authorized(s, query, headers, body)?;
    Ok(s.ids.segment_range(&p.biz_type, p.batch_size).await?)
}

/// A Tinyid segment: `(currentId, loadingId, maxId)` of one contiguous range.
///
/// ```
/// let r = idmint_core::segment::IdRange::new(200_002, 300_002)?;
/// assert_eq!(idmint_server::tinyid::segment_of(r), (200_001, 220_001, 300_001));
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn segment_of(range: IdRange) -> (u64, u64, u64) {
    let current = range.start - 1;
    let loading = current + range.len() * LOADING_PERCENT / 100;
    (current, loading, range.last())
}

/// One segment of the tag's step.
async fn segment(
    s: &Server,
    query: Option<String>,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(u64, u64, u64), ApiError> {
    let p = authorized(s, query, headers, body)?;
    // One segment of the tag's step, within what one request may ask for.
    let n = s
        .ids
        .tag(&p.biz_type)
        .await?
        .step()
        .min(s.ids.max_count as u64);
    Ok(segment_of(s.ids.segment_range(&p.biz_type, Some(n)).await?))
}

async fn next_id(
    State(s): State<Arc<Server>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match ids(&s, query, &headers, &body).await {
        Ok(range) => json_ok(&format!("[{}]", id_csv(range))),
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
        Ok(range) => text(id_csv(range)),
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
        Ok((current, loading, max)) => json_ok(&format!(
            "{{\"maxId\":{max},\"loadingId\":{loading},\"currentId\":{current},\"delta\":1,\"remainder\":0}}"
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
        Ok((current, loading, max)) => text(format!("{current},{loading},{max},1,0")),
        Err(e) => empty_error(e),
    }
}
