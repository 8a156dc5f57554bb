//! How the `http(s)://` stores read an `idmint serve`'s refusals: by the body's kind, its
//! fields and core's table of kinds, never by its message. A one-shot HTTP server on loopback
//! answers each request with a canned response.
#![cfg(feature = "http")]

use std::io::{Read, Write};
use std::net::TcpListener;

use idmint_core::segment::{HttpStore, SegmentStore};
use idmint_core::Error;

/// A server on loopback answering one request with `status` and `body`; its URL.
fn answer_once(status: &str, body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let status = status.to_string();
    std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        // Read the request head (the requests here have no body).
        let mut seen = Vec::new();
        let mut buf = [0u8; 1024];
        while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = conn.read(&mut buf).unwrap();
            if n == 0 {
                return;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        let response = format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        conn.write_all(response.as_bytes()).unwrap();
    });
    url
}

fn allocate(url: &str, tag: &str, count: u64) -> Error {
    let store = HttpStore::open(url).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(store.allocate(tag, count)).unwrap_err()
}

/// A `tag_exhausted` whose message is not core's English (a proxy that localises it, a newer
/// server that words it otherwise) still comes back with its numbers: they are read from the
/// body's fields.
#[test]
fn tag_exhausted_keeps_its_numbers_whatever_the_message() {
    let url = answer_once(
        "409 Conflict",
        r#"{"error":{"kind":"tag_exhausted","message":"le tag « orders » est épuisé","status":409,"retryable":false,
            "fields":{"tag":"orders","max_id":"9223372036854775000","count":"1000","limit":"9223372036854775807"}}}"#,
    );
    let err = allocate(&url, "orders", 1000);
    assert_eq!(
        err,
        Error::TagExhausted {
            tag: "orders".into(),
            max_id: 9_223_372_036_854_775_000,
            count: 1000,
            limit: i64::MAX,
        }
    );
}

/// Whether a refusal is worth retrying is its kind's, from core's table: a server stopping
/// answers 503 `shutting_down`, which a client retries as `store_unavailable`; a kind the
/// table calls permanent is not retried whatever the status says.
#[test]
fn retrying_follows_the_kind_not_the_status() {
    let url = answer_once(
        "503 Service Unavailable",
        r#"{"error":{"kind":"shutting_down","message":"the server is shutting down"}}"#,
    );
    assert_eq!(allocate(&url, "orders", 10).kind(), "store_unavailable");
    // A server older than the fields: the kind alone, the tag from the request.
    let url = answer_once(
        "404 Not Found",
        r#"{"error":{"kind":"unknown_tag","message":"unknown segment tag `orders`"}}"#,
    );
    assert_eq!(
        allocate(&url, "orders", 10),
        Error::UnknownTag {
            tag: "orders".into()
        }
    );
    // Not the API's body (a proxy's page): the status alone decides.
    let url = answer_once("502 Bad Gateway", r#"<html>bad gateway</html>"#);
    assert_eq!(allocate(&url, "orders", 10).kind(), "store_unavailable");
    let url = answer_once("403 Forbidden", r#"<html>no</html>"#);
    assert_eq!(allocate(&url, "orders", 10).kind(), "not_authorized");
}
