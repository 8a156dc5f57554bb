//! `idmint serve` end to end: a real server process on loopback, driven over HTTP.

mod serve_util;

use serve_util::Served;

#[test]
fn mints_every_kind_on_the_embedded_default() {
    let s = Served::start("store = \"sqlite:./idmint.db\"\n");
    let http = reqwest::blocking::Client::new();
    let body: serde_json::Value = http
        .post(format!("{}/v1/segment/orders?count=3", s.url()))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(body["ids"], serde_json::json!(["1", "2", "3"]), "{body}");
    let r = http
        .post(format!("{}/v1/segment/orders?count=0", s.url()))
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
    let body: serde_json::Value = r.json().unwrap();
    assert_eq!(body["error"]["kind"], "invalid_argument", "{body}");
}
