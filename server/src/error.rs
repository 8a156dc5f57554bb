//! The one error type of the API: core's errors (their kind and message as core wrote them)
//! and the server's own refusals (auth, rate, unknown route), each one HTTP status, one gRPC
//! code and the body `{"error": {"kind", "message", "status", "retryable", "fields"}}`; the
//! status, code and retryability of each kind are core's ([`ErrorKind`]), not decided here.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use idmint_core::ErrorKind;

/// Why a request was refused.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    /// Core refused or failed: the kind and message are core's.
    #[error(transparent)]
    Core(#[from] idmint_core::Error),
    /// No credentials, or credentials that match no token (401).
    #[error("{0}")]
    Unauthorized(String),
    /// A valid token without the scope this request needs (403).
    #[error("{0}")]
    Forbidden(String),
    /// The token's rate was exceeded (429), retry after this many seconds.
    #[error("rate limit of token `{token}` exceeded: retry after {retry_after_s} s")]
    RateLimited {
        /// The token's name (never the token).
        token: String,
        /// Seconds until a request would pass.
        retry_after_s: u64,
    },
    /// A request the API cannot read: a bad query or body (400).
    #[error("{0}")]
    BadRequest(String),
    /// No such route or disabled endpoint (404).
    #[error("{0}")]
    NotFound(String),
    /// The server is shutting down (503).
    #[error("the server is shutting down")]
    ShuttingDown,
    /// A route asked with a method it does not take (405); the `Allow` header lists those it
    /// does.
    #[error("method {0} is not allowed on this route: the Allow header lists those that are (see /openapi.json)")]
    MethodNotAllowed(String),
    /// A request body above `limits.max_body_bytes` (413).
    #[error("{0}")]
    PayloadTooLarge(String),
    /// A request that took longer than `limits.request_timeout_ms` (503).
    #[error(
        "the request took longer than this server's limit of {0} ms (limits.request_timeout_ms)"
    )]
    Timeout(u64),
}

// The JSON body of every error response: core's wire type, which the `http(s)://` stores read.
pub use idmint_core::wire::{ErrorBody, ErrorDetail};

impl ApiError {
    /// The stable kind string.
    ///
    /// ```
    /// use idmint_server::error::ApiError;
    /// assert_eq!(ApiError::from(idmint_core::Error::UnknownTag { tag: "t".into() }).kind(), "unknown_tag");
    /// assert_eq!(ApiError::Unauthorized("no token".into()).kind(), "unauthorized");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            ApiError::Core(e) => e.kind(),
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::RateLimited { .. } => "rate_limited",
            ApiError::BadRequest(_) => "bad_request",
            ApiError::NotFound(_) => "not_found",
            ApiError::ShuttingDown => "shutting_down",
            ApiError::MethodNotAllowed(_) => "method_not_allowed",
            ApiError::PayloadTooLarge(_) => "payload_too_large",
            ApiError::Timeout(_) => "timeout",
        }
    }

    /// The entry of core's table of kinds for this refusal ([`ErrorKind::wire`]): its status,
    /// gRPC code and whether to retry are decided there, for the server and its clients alike.
    ///
    /// ```
    /// use idmint_server::error::ApiError;
    /// assert!(ApiError::ShuttingDown.entry().retryable());
    /// ```
    pub fn entry(&self) -> &'static ErrorKind {
        match self {
            ApiError::Core(e) => e.error_kind(),
            // Every kind of the server's own is in core's table (tested below).
            other => {
                ErrorKind::wire(other.kind()).expect("the server's kinds are in ErrorKind::SERVER")
            }
        }
    }

    /// The HTTP status, from core's table: 4xx for what the caller can fix, 503 for what
    /// retrying later fixes (a store down, a clock behind, a lease being renewed), 409 for a
    /// state conflict.
    ///
    /// ```
    /// use axum::http::StatusCode;
    /// use idmint_server::error::ApiError;
    /// let down = idmint_core::Error::StoreUnavailable { store: "x".into(), reason: "y".into() };
    /// assert_eq!(ApiError::from(down).status(), StatusCode::SERVICE_UNAVAILABLE);
    /// ```
    pub fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.entry().status).unwrap_or(StatusCode::BAD_REQUEST)
    }

    /// The gRPC status of the same refusal (the code core's table gives its HTTP status);
    /// `idmint-error-kind` metadata carries the kind.
    ///
    /// ```
    /// use idmint_server::error::ApiError;
    /// let s = ApiError::Forbidden("no".into()).grpc();
    /// assert_eq!(s.code(), tonic::Code::PermissionDenied);
    /// assert_eq!(s.metadata().get("idmint-error-kind").unwrap(), "forbidden");
    /// ```
    pub fn grpc(&self) -> tonic::Status {
        let code = tonic::Code::from(self.entry().grpc_code());
        let mut status = tonic::Status::new(code, self.to_string());
        status.metadata_mut().insert(
            "idmint-error-kind",
            tonic::metadata::MetadataValue::from_static(self.kind()),
        );
        status
    }

    /// The JSON body: kind, message, status and retryability, and a core error's fields (the
    /// server's own refusals carry their numbers as fields too).
    ///
    /// ```
    /// use idmint_server::error::ApiError;
    /// let b = ApiError::RateLimited { token: "ci".into(), retry_after_s: 3 }.body();
    /// assert_eq!(b.error.fields["retry_after_s"], "3");
    /// ```
    pub fn body(&self) -> ErrorBody {
        let mut body = match self {
            ApiError::Core(e) => return ErrorBody::of(e),
            other => ErrorBody::new(other.kind(), &other.to_string()),
        };
        let fields: Vec<(&str, String)> = match self {
            ApiError::RateLimited {
                token,
                retry_after_s,
            } => vec![
                ("token", token.clone()),
                ("retry_after_s", retry_after_s.to_string()),
            ],
            ApiError::Timeout(limit_ms) => vec![("limit_ms", limit_ms.to_string())],
            ApiError::MethodNotAllowed(method) => vec![("method", method.clone())],
            _ => Vec::new(),
        };
        body.error.fields = fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        body
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut response = (status, axum::Json(self.body())).into_response();
        let headers = response.headers_mut();
        match &self {
            ApiError::RateLimited { retry_after_s, .. } => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after_s));
            }
            ApiError::Unauthorized(_) => {
                headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            _ if self.entry().retryable() => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            _ => {}
        }
        response
    }
}

/// Query strings and JSON bodies that axum cannot read become `bad_request` with axum's text.
impl From<axum::extract::rejection::QueryRejection> for ApiError {
    fn from(r: axum::extract::rejection::QueryRejection) -> Self {
        ApiError::BadRequest(r.body_text())
    }
}

impl From<axum::extract::rejection::JsonRejection> for ApiError {
    fn from(r: axum::extract::rejection::JsonRejection) -> Self {
        // A body without a Content-Length that runs past the limit is found only while read.
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::PayloadTooLarge(r.body_text())
        } else {
            ApiError::BadRequest(r.body_text())
        }
    }
}

impl From<axum::extract::rejection::PathRejection> for ApiError {
    fn from(r: axum::extract::rejection::PathRejection) -> Self {
        ApiError::BadRequest(r.body_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every refusal of the server's own has its entry in core's table, with the status it
    /// has always answered.
    #[test]
    fn every_server_kind_is_in_cores_table() {
        let all = [
            (ApiError::Unauthorized("u".into()), 401),
            (ApiError::Forbidden("f".into()), 403),
            (
                ApiError::RateLimited {
                    token: "t".into(),
                    retry_after_s: 1,
                },
                429,
            ),
            (ApiError::BadRequest("b".into()), 400),
            (ApiError::NotFound("n".into()), 404),
            (ApiError::ShuttingDown, 503),
            (ApiError::MethodNotAllowed("PUT".into()), 405),
            (ApiError::PayloadTooLarge("p".into()), 413),
            (ApiError::Timeout(5), 503),
        ];
        assert_eq!(all.len(), ErrorKind::SERVER.len());
        for (e, status) in all {
            assert_eq!(e.status().as_u16(), status, "{}", e.kind());
            let body = e.body();
            assert_eq!(body.error.status, Some(status));
            assert_eq!(body.error.retryable, Some(e.entry().retryable()));
        }
    }
}
