//! What the Leaf and Tinyid endpoints share: their content types and the reading of
//! `application/x-www-form-urlencoded` text (Tinyid's parameters, Leaf's `snowflakeId`). A
//! file of its own, so neither endpoint set imports the other.

use axum::http::header;
use axum::response::{IntoResponse, Response};

/// Leaf's and Tinyid's text responses' content type.
pub const TEXT_UTF8: &str = "text/plain;charset=UTF-8";

/// Leaf's and Tinyid's JSON responses' content type.
pub const JSON_UTF8: &str = "application/json;charset=UTF-8";

/// A `200` with `body` as [`TEXT_UTF8`].
///
/// ```
/// let r = idmint_server::compat::text("7".into());
/// assert_eq!(r.headers()["content-type"], "text/plain;charset=UTF-8");
/// ```
pub fn text(body: String) -> Response {
    ([(header::CONTENT_TYPE, TEXT_UTF8)], body).into_response()
}

/// Reads `application/x-www-form-urlencoded` text (also a query string) into its pairs, in
/// order: `+` is a space, `%XX` a byte; an invalid escape stays as written.
///
/// ```
/// let pairs = idmint_server::compat::form_pairs("bizType=a%20b&token=x+y&flag");
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

/// The status a compatible endpoint's answer stands for when the peer's protocol answers a
/// refusal with `200` (Tinyid's): the request metrics count it under this status, so a
/// refused or failed call shows as one there.
///
/// ```
/// use axum::response::IntoResponse;
/// let mut r = "".into_response();
/// r.extensions_mut().insert(idmint_server::compat::Outcome(axum::http::StatusCode::NOT_FOUND));
/// assert_eq!(idmint_server::compat::Outcome::status_of(&r), 404);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome(pub axum::http::StatusCode);

impl Outcome {
    /// The status to count `response` under: its [`Outcome`] if it has one, else its own.
    ///
    /// ```
    /// use axum::response::IntoResponse;
    /// assert_eq!(idmint_server::compat::Outcome::status_of(&"ok".into_response()), 200);
    /// ```
    pub fn status_of(response: &Response) -> u16 {
        response
            .extensions()
            .get::<Outcome>()
            .map_or(response.status(), |o| o.0)
            .as_u16()
    }
}
