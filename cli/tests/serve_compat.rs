//! `idmint serve`'s Meituan Leaf and Didi Tinyid endpoints, end to end: the exact bytes of each
//! success (status, content type, body), the error statuses and shapes, tokens, Tinyid's form
//! bodies, uniqueness across every compatible endpoint at once, and a live `leaf_alloc` table
//! shared with an allocator running Leaf's own statements.

mod serve_util;

use std::collections::HashSet;
use std::time::Duration;

use reqwest::blocking::{Client, Response};
use serve_util::Served;

const TEXT: &str = "text/plain;charset=UTF-8";
const JSON: &str = "application/json;charset=UTF-8";
const FORM: &str = "application/x-www-form-urlencoded";

// Tokens and their SHA-256 (`printf %s TOKEN | sha256sum`), as `[[tokens]]` holds them.
const TOK_MINT: &str = "tok-mint";
const TOK_MINT_SHA: &str = "d56fcd7591f13e95103e35c04288bda95549a15cd52851dc2cde75586e19862b";
const TOK_OTHER: &str = "tok-other";
const TOK_OTHER_SHA: &str = "e3f9bc1521731470a89e52aa59943e8fb052106b3f0a15d6f51e3a18f32aaa29";
const TOK_READ: &str = "tok-read";
const TOK_READ_SHA: &str = "a2f0a437be4fd6ceaaa59fac18e495e88345b0aa6fb8ccbddd05a8d88e7a3e56";
const TOK_ADMIN: &str = "tok-admin";
const TOK_ADMIN_SHA: &str = "df6adb0b23fa33235f4aee6a0d62c118b00d71c07c81be87067b4f5892e66dbc";

fn http() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .expect("client")
}

/// Status, content type, body.
fn got(r: Response) -> (u16, String, String) {
    let status = r.status().as_u16();
    let ct = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    (status, ct, r.text().expect("body"))
}

fn get(c: &Client, url: String) -> (u16, String, String) {
    got(c.get(url).send().expect("request"))
}

fn error_kind(body: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    v["error"]["kind"].as_str().unwrap_or_default().to_string()
}

/// idmint's kind of a Tinyid refusal (whose status is 200, as Tinyid's): its header.
fn tinyid_kind(r: &Response) -> String {
    r.headers()
        .get("idmint-error-kind")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// The IDs tinyid-client issues from a `nextSegmentIdSimple` answer
/// (`currentId,loadingId,maxId,delta,remainder`), as its `HttpSegmentIdServiceImpl` parses it
/// and its `SegmentId` (tinyid-base) steps through it: `init()` moves `currentId` up until
/// `currentId % delta == remainder` and then back by `delta`, each `nextId()` adds `delta`
/// until the ID passes `maxId`. Java `long` arithmetic, as the client's.
fn tinyid_client_ids(answer: &str) -> Vec<u64> {
    let f: Vec<i64> = answer
        .split(',')
        .map(|x| x.parse().unwrap_or_else(|e| panic!("{e}: {answer:?}")))
        .collect();
    let [current, _loading, max, delta, remainder] = f[..] else {
        panic!("not 5 fields: {answer:?}")
    };
    let mut current = current;
    if current % delta != remainder {
        for _ in 0..=delta {
            current += 1;
            if current % delta == remainder {
                current -= delta;
                break;
            }
        }
    }
    let mut out = Vec::new();
    loop {
        current += delta;
        if current > max {
            return out;
        }
        out.push(current as u64);
    }
}

#[test]
fn leaf_endpoints_answer_leafs_exact_bytes() {
    let s = Served::start("store = \"sqlite:./idmint.db\"\n");
    let c = http();
    let u = s.url();

    // Segment: bare decimal, no newline, any method, trailing slash too.
    assert_eq!(
        get(&c, format!("{u}/api/segment/get/leaf-t")),
        (200, TEXT.into(), "1".into())
    );
    assert_eq!(
        got(c
            .post(format!("{u}/api/segment/get/leaf-t"))
            .send()
            .unwrap()),
        (200, TEXT.into(), "2".into())
    );
    assert_eq!(
        get(&c, format!("{u}/api/segment/get/leaf-t/")),
        (200, TEXT.into(), "3".into())
    );

    // Snowflake: a bare decimal of the server's generator (the key is ignored).
    let (status, ct, body) = get(&c, format!("{u}/api/snowflake/get/anything"));
    assert_eq!((status, ct.as_str()), (200, TEXT), "{body}");
    assert!(body.bytes().all(|b| b.is_ascii_digit()), "{body:?}");
    assert!(body.parse::<u64>().unwrap() > 0);
    let (status, _, body2) = got(c.put(format!("{u}/api/snowflake/get/x")).send().unwrap());
    assert_eq!(status, 200);
    assert!(body2.parse::<u64>().unwrap() > body.parse::<u64>().unwrap());

    // decodeSnowflakeId: Leaf's fixed layout, its key order, every value a string.
    assert_eq!(
        get(&c, format!("{u}/decodeSnowflakeId?snowflakeId=1195926540542107700")),
        (
            200,
            JSON.into(),
            r#"{"workerId":"918","sequenceId":"52","timestamp":"1573966081162(2019-11-17 04:48:01.162)"}"#
                .into()
        )
    );
    assert_eq!(
        got(c
            .post(format!("{u}/decodeSnowflakeId?snowflakeId=5"))
            .send()
            .unwrap()),
        (
            200,
            JSON.into(),
            r#"{"workerId":"0","sequenceId":"5","timestamp":"1288834974657(2010-11-04 01:42:54.657)"}"#
                .into()
        )
    );

    // Errors: idmint's status and JSON body, never a placeholder ID.
    let (status, ct, body) = get(&c, format!("{u}/decodeSnowflakeId"));
    assert_eq!((status, ct.as_str()), (400, "application/json"), "{body}");
    assert_eq!(error_kind(&body), "bad_request");
    let (status, _, body) = get(&c, format!("{u}/decodeSnowflakeId?snowflakeId=abc"));
    assert_eq!(status, 400, "{body}");
    assert_eq!(error_kind(&body), "invalid_id");
    let (status, _, body) = get(&c, format!("{u}/api/segment/get/bad%20tag"));
    assert_eq!(status, 400, "{body}");
    assert_eq!(error_kind(&body), "invalid_tag");
}

#[test]
fn tinyid_endpoints_answer_tinyids_exact_bytes() {
    let s = Served::start("store = \"sqlite:./idmint.db\"\n[tinyid]\nauto_create = true\n");
    let c = http();
    let u = s.url();
    let t = format!("{u}/tinyid/id");

    assert_eq!(
        get(&c, format!("{t}/nextId?bizType=tt&batchSize=3")),
        (
            200,
            JSON.into(),
            r#"{"data":[1,2,3],"code":200,"message":""}"#.into()
        )
    );
    assert_eq!(
        got(c
            .post(format!("{t}/nextIdSimple?bizType=tt&batchSize=3"))
            .send()
            .unwrap()),
        (200, TEXT.into(), "4,5,6".into())
    );
    // batchSize defaults to 1.
    assert_eq!(
        get(&c, format!("{t}/nextIdSimple?bizType=tt")),
        (200, TEXT.into(), "7".into())
    );
    assert_eq!(
        get(&c, format!("{t}/nextId?bizType=tt")),
        (
            200,
            JSON.into(),
            r#"{"data":[8],"code":200,"message":""}"#.into()
        )
    );

    // Segments: `[tinyid] step` wide (100 000 by default, as Tinyid's schema, whatever the
    // tag's own step), Tinyid's key order; the client issues (currentId, maxId].
    assert_eq!(
        get(&c, format!("{t}/nextSegmentId?bizType=ts")),
        (
            200,
            JSON.into(),
            r#"{"data":{"maxId":100000,"loadingId":20000,"currentId":0,"delta":1,"remainder":0},"code":200,"message":""}"#
                .into()
        )
    );
    let mut last_max = 100_000;
    for _ in 0..5 {
        let (status, ct, body) = got(c
            .post(format!("{t}/nextSegmentIdSimple?bizType=ts"))
            .header("content-type", FORM)
            .header("content-length", "0")
            .send()
            .unwrap());
        assert_eq!((status, ct.as_str()), (200, TEXT), "{body}");
        let f: Vec<u64> = body.split(',').map(|x| x.parse().unwrap()).collect();
        let [current, loading, max, delta, remainder] = f[..] else {
            panic!("{body}")
        };
        assert!(
            current >= last_max,
            "{body} overlaps an earlier segment ending {last_max}"
        );
        assert_eq!(max - current, 100_000, "{body}: the default width");
        assert_eq!(loading, current + (max - current) * 20 / 100, "{body}");
        assert_eq!((delta, remainder), (1, 0));
        last_max = max;
    }

    // Form bodies, alone or with the query (which the servlet API reads first).
    assert_eq!(
        got(c
            .post(format!("{t}/nextIdSimple"))
            .header("content-type", FORM)
            .body("bizType=tf&batchSize=2")
            .send()
            .unwrap()),
        (200, TEXT.into(), "1,2".into())
    );
    assert_eq!(
        got(c
            .post(format!("{t}/nextId?bizType=tf"))
            .header(
                "content-type",
                "application/x-www-form-urlencoded; charset=UTF-8"
            )
            .body("batchSize=2&bizType=ignored")
            .send()
            .unwrap()),
        (
            200,
            JSON.into(),
            r#"{"data":[3,4],"code":200,"message":""}"#.into()
        )
    );
    // A body of another type is not read.
    let (status, _, body) = got(c
        .post(format!("{t}/nextIdSimple"))
        .header("content-type", "text/plain")
        .body("bizType=tf")
        .send()
        .unwrap());
    assert_eq!((status, body.as_str()), (200, ""));

    // Errors in Tinyid's shape: status 200 (a non-2xx makes tinyid-client log its URL, token
    // included), code 6 and data null on the JSON endpoints, an empty body on the simple
    // ones, idmint's kind in a header.
    for (query, kind) in [
        ("bizType=tt&batchSize=abc", "bad_request"),
        ("bizType=tt&batchSize=0", "invalid_argument"),
        ("bizType=tt&batchSize=100001", "invalid_argument"),
        ("bizType=tt&batchSize=-1", "bad_request"),
        ("batchSize=2", "bad_request"),
        ("bizType=bad%20tag", "invalid_tag"),
    ] {
        let r = c.get(format!("{t}/nextId?{query}")).send().unwrap();
        assert_eq!(tinyid_kind(&r), kind, "{query}");
        let (st, ct, body) = got(r);
        assert_eq!((st, ct.as_str()), (200, JSON), "{query}: {body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["data"], serde_json::Value::Null, "{body}");
        assert_eq!(v["code"], 6, "{body}");
        assert!(!v["message"].as_str().unwrap().is_empty(), "{body}");
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        assert!(
            body.starts_with(r#"{"data":null,"code":6,"message":"#),
            "{body} {keys:?}"
        );
        let r = c.get(format!("{t}/nextIdSimple?{query}")).send().unwrap();
        assert_eq!(tinyid_kind(&r), kind, "{query}");
        assert_eq!(got(r), (200, TEXT.into(), String::new()), "{query}");
    }
    let (st, _, body) = get(&c, format!("{t}/nextSegmentIdSimple?batchSize=1"));
    assert_eq!((st, body.as_str()), (200, ""));
    let (st, _, body) = get(&c, format!("{t}/nextSegmentId"));
    assert_eq!(st, 200);
    assert!(
        body.starts_with(r#"{"data":null,"code":6,"message":"#),
        "{body}"
    );
}

#[test]
fn tokens_and_unknown_tags() {
    let config = format!(
        "store = \"sqlite:./idmint.db\"
[segment]
auto_create = false
[[tokens]]
name = \"mint\"
sha256 = \"{TOK_MINT_SHA}\"
scopes = [\"mint:segment:biz\", \"mint:segment:nope\", \"mint:snowflake\"]
[[tokens]]
name = \"other\"
sha256 = \"{TOK_OTHER_SHA}\"
scopes = [\"mint:segment:other\"]
[[tokens]]
name = \"read\"
sha256 = \"{TOK_READ_SHA}\"
scopes = [\"lease\"]
[[tokens]]
name = \"admin\"
sha256 = \"{TOK_ADMIN_SHA}\"
scopes = [\"admin\"]
"
    );
    let s = Served::start(&config);
    let c = http();
    let u = s.url();
    let r = c
        .post(format!("{u}/v1/admin/tags"))
        .bearer_auth(TOK_ADMIN)
        .json(&serde_json::json!({"tag": "biz", "step": 100}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().unwrap());

    // Leaf: bearer tokens, idmint's statuses and bodies.
    let leaf = format!("{u}/api/segment/get/biz");
    let (st, _, body) = get(&c, leaf.clone());
    assert_eq!(
        (st, error_kind(&body).as_str()),
        (401, "unauthorized"),
        "{body}"
    );
    let (st, _, body) = got(c.get(&leaf).bearer_auth(TOK_OTHER).send().unwrap());
    assert_eq!(
        (st, error_kind(&body).as_str()),
        (403, "forbidden"),
        "{body}"
    );
    assert_eq!(
        got(c.get(&leaf).bearer_auth(TOK_MINT).send().unwrap()),
        (200, TEXT.into(), "1".into())
    );
    let (st, _, body) = got(c
        .get(format!("{u}/api/segment/get/nope"))
        .bearer_auth(TOK_MINT)
        .send()
        .unwrap());
    assert_eq!(
        (st, error_kind(&body).as_str()),
        (404, "unknown_tag"),
        "{body}"
    );
    let (st, _, _) = get(&c, format!("{u}/api/snowflake/get/k"));
    assert_eq!(st, 401);
    let (st, _, _) = got(c
        .get(format!("{u}/api/snowflake/get/k"))
        .bearer_auth(TOK_OTHER)
        .send()
        .unwrap());
    assert_eq!(st, 403);
    let (st, ct, _) = got(c
        .get(format!("{u}/api/snowflake/get/k"))
        .bearer_auth(TOK_MINT)
        .send()
        .unwrap());
    assert_eq!((st, ct.as_str()), (200, TEXT));
    let decode = format!("{u}/decodeSnowflakeId?snowflakeId=5");
    assert_eq!(get(&c, decode.clone()).0, 401);
    assert_eq!(
        got(c.get(&decode).bearer_auth(TOK_READ).send().unwrap()).0,
        200,
        "any valid token may decode"
    );

    // Tinyid: the `token` parameter, in the query or the form body.
    let t = format!("{u}/tinyid/id");
    assert_eq!(
        get(
            &c,
            format!("{t}/nextId?bizType=biz&batchSize=2&token={TOK_MINT}")
        ),
        (
            200,
            JSON.into(),
            r#"{"data":[2,3],"code":200,"message":""}"#.into()
        )
    );
    // Refused tokens: 200 and Tinyid's code 5 (what Tinyid answers), idmint's kind in a header.
    let token_error = r#"{"data":null,"code":5,"message":"token is error"}"#;
    for (query, kind) in [
        (format!("bizType=biz&token={TOK_OTHER}"), "forbidden"),
        ("bizType=biz&token=wrong".to_string(), "unauthorized"),
    ] {
        let r = c.get(format!("{t}/nextId?{query}")).send().unwrap();
        assert_eq!(tinyid_kind(&r), kind);
        assert_eq!(got(r), (200, JSON.into(), token_error.into()));
    }
    assert_eq!(
        get(&c, format!("{t}/nextSegmentId?bizType=biz")),
        (200, JSON.into(), token_error.into())
    );
    // A bearer header is not Tinyid's way and does not count.
    let r = c
        .get(format!("{t}/nextIdSimple?bizType=biz"))
        .bearer_auth(TOK_MINT)
        .send()
        .unwrap();
    assert_eq!(tinyid_kind(&r), "unauthorized");
    assert_eq!(got(r).2, "");
    for path in ["nextIdSimple", "nextSegmentIdSimple"] {
        let (st, _, body) = get(&c, format!("{t}/{path}?bizType=biz&token={TOK_OTHER}"));
        assert_eq!((st, body.as_str()), (200, ""), "{path}");
        let (st, _, body) = get(&c, format!("{t}/{path}?bizType=biz"));
        assert_eq!((st, body.as_str()), (200, ""), "{path}");
    }
    // tinyid-client's own request: POST, token and bizType in the query, empty form body.
    let (st, ct, body) = got(c
        .post(format!(
            "{t}/nextSegmentIdSimple?token={TOK_MINT}&bizType=biz"
        ))
        .header("content-type", FORM)
        .header("content-length", "0")
        .send()
        .unwrap());
    assert_eq!((st, ct.as_str()), (200, TEXT), "{body}");
    let f: Vec<u64> = body.split(',').map(|x| x.parse().unwrap()).collect();
    assert_eq!(
        (f[2] - f[0], f[3], f[4]),
        (100_000, 1, 0),
        "{body}: [tinyid] step, not the tag's step of 100"
    );
    // Token in the form body.
    let (st, _, body) = got(c
        .post(format!("{t}/nextIdSimple"))
        .header("content-type", FORM)
        .body(format!("bizType=biz&token={TOK_MINT}&batchSize=2"))
        .send()
        .unwrap());
    assert_eq!(st, 200, "{body}");
    assert_eq!(body.split(',').count(), 2);
    // An unknown bizType: 200, Tinyid's answer (its token check refuses a bizType no token
    // names: code 5 "token is error"), idmint's kind in the header.
    let r = c
        .get(format!("{t}/nextId?bizType=nope&token={TOK_MINT}"))
        .send()
        .unwrap();
    assert_eq!(tinyid_kind(&r), "unknown_tag");
    let (st, ct, body) = got(r);
    assert_eq!((st, ct.as_str()), (200, JSON), "{body}");
    assert_eq!(body, r#"{"data":null,"code":5,"message":"token is error"}"#);
    let (st, _, body) = get(
        &c,
        format!("{t}/nextSegmentIdSimple?bizType=nope&token={TOK_MINT}"),
    );
    assert_eq!((st, body.as_str()), (200, ""));
}

/// Tinyid's own odd stream (its `db.sql` row `test_odd`: step 100000, delta 2, remainder 1) and
/// a narrow three-way shard, configured per bizType: every ID tinyid-client issues from a
/// segment, and every ID `nextId`/`nextIdSimple` answer, has the remainder; none repeats.
#[test]
fn tinyid_delta_and_remainder_hold_for_every_id() {
    let s = Served::start(
        "store = \"sqlite:./idmint.db\"
[tinyid.biz_types.test_odd]
delta = 2
remainder = 1
[tinyid.biz_types.shard]
step = 10
delta = 3
remainder = 2
",
    );
    let c = http();
    let u = s.url();
    let t = format!("{u}/tinyid/id");

    // The segment says so: delta and remainder beside (currentId, maxId], 100 000 wide.
    assert_eq!(
        get(&c, format!("{t}/nextSegmentId?bizType=test_odd")),
        (
            200,
            JSON.into(),
            r#"{"data":{"maxId":100000,"loadingId":20000,"currentId":0,"delta":2,"remainder":1},"code":200,"message":""}"#
                .into()
        )
    );
    let first = tinyid_client_ids("0,20000,100000,2,1");
    assert_eq!(
        (first.len(), first[0], first[first.len() - 1]),
        (50_000, 1, 99_999)
    );

    // Four callers at once, as the issue's run: tinyid-client's own request for segments,
    // and the server-side batches.
    let per_thread = 20_000;
    let all: Vec<Vec<u64>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let t = t.clone();
                sc.spawn(move || {
                    let c = http();
                    let mut ids = Vec::new();
                    while ids.len() < per_thread {
                        let (st, ct, body) = got(c
                            .post(format!("{t}/nextSegmentIdSimple?token=&bizType=test_odd"))
                            .header("content-type", FORM)
                            .header("content-length", "0")
                            .send()
                            .unwrap());
                        assert_eq!((st, ct.as_str()), (200, TEXT), "{body}");
                        assert!(body.ends_with(",2,1"), "{body}");
                        ids.extend(tinyid_client_ids(&body));
                        let (st, _, body) =
                            get(&c, format!("{t}/nextId?bizType=test_odd&batchSize=500"));
                        assert_eq!(st, 200, "{body}");
                        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
                        let batch: Vec<u64> = v["data"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|x| x.as_u64().unwrap())
                            .collect();
                        assert_eq!(batch.len(), 500, "{body}");
                        ids.extend(batch);
                        let (st, _, body) = get(
                            &c,
                            format!("{t}/nextIdSimple?bizType=test_odd&batchSize=100"),
                        );
                        assert_eq!(st, 200, "{body}");
                        let batch: Vec<u64> = body.split(',').map(|x| x.parse().unwrap()).collect();
                        assert_eq!(batch.len(), 100, "{body}");
                        ids.extend(batch);
                    }
                    ids
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut ids: Vec<u64> = first;
    ids.extend(all.into_iter().flatten());
    let violations = ids.iter().filter(|&&id| id % 2 != 1).count();
    let distinct: HashSet<u64> = ids.iter().copied().collect();
    eprintln!("test_odd: {} IDs, {violations} even", ids.len());
    assert!(ids.len() >= 80_000, "{}", ids.len());
    assert_eq!(violations, 0, "IDs without the remainder");
    assert_eq!(distinct.len(), ids.len(), "duplicates");

    // Segments 10 wide, delta 3: the client's alignment at every offset.
    let mut shard = Vec::new();
    for _ in 0..30 {
        let (st, _, body) = get(&c, format!("{t}/nextSegmentIdSimple?bizType=shard"));
        assert_eq!(st, 200, "{body}");
        let f: Vec<u64> = body.split(',').map(|x| x.parse().unwrap()).collect();
        assert_eq!((f[2] - f[0], f[3], f[4]), (10, 3, 2), "{body}");
        let got = tinyid_client_ids(&body);
        assert!((3..=4).contains(&got.len()), "{body}: {got:?}");
        shard.extend(got);
        let (st, _, body) = get(&c, format!("{t}/nextIdSimple?bizType=shard&batchSize=7"));
        assert_eq!(st, 200, "{body}");
        let batch: Vec<u64> = body.split(',').map(|x| x.parse().unwrap()).collect();
        assert_eq!(batch.len(), 7, "{body}");
        assert!(batch.windows(2).all(|w| w[1] - w[0] == 3), "{body}");
        shard.extend(batch);
    }
    assert_eq!(
        shard.iter().filter(|&&id| id % 3 != 2).count(),
        0,
        "{shard:?}"
    );
    let distinct: HashSet<u64> = shard.iter().copied().collect();
    assert_eq!(distinct.len(), shard.len(), "duplicates: {shard:?}");
}

/// With a broad `mint:segment` token and `[segment] auto_create` on (its default), a mistyped
/// bizType is refused and not created; an existing tag is served; the refusal counts in the
/// metrics as the 404 it stands for.
#[test]
fn tinyid_refuses_a_mistyped_biz_type_by_default() {
    let config = format!(
        "store = \"sqlite:./idmint.db\"
[[tokens]]
name = \"mint\"
sha256 = \"{TOK_MINT_SHA}\"
scopes = [\"mint:segment\"]
[[tokens]]
name = \"admin\"
sha256 = \"{TOK_ADMIN_SHA}\"
scopes = [\"admin\"]
"
    );
    let s = Served::start(&config);
    let c = http();
    let u = s.url();
    let t = format!("{u}/tinyid/id");
    // idmint's own API creates `orders` on first use ([segment] auto_create).
    let r = c
        .post(format!("{u}/v1/segment/orders"))
        .bearer_auth(TOK_MINT)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().unwrap());
    let (st, ct, body) = get(
        &c,
        format!("{t}/nextSegmentIdSimple?token={TOK_MINT}&bizType=orders"),
    );
    assert_eq!((st, ct.as_str()), (200, TEXT), "{body}");
    assert_eq!(tinyid_client_ids(&body).len(), 100_000, "{body}");

    // The mistyped one: Tinyid's empty answer (status 200), and idmint's kind in a header.
    for path in ["nextSegmentIdSimple", "nextIdSimple"] {
        let r = c
            .post(format!("{t}/{path}?token={TOK_MINT}&bizType=ordres"))
            .header("content-type", FORM)
            .header("content-length", "0")
            .send()
            .unwrap();
        assert_eq!(tinyid_kind(&r), "unknown_tag", "{path}");
        assert_eq!(got(r), (200, TEXT.into(), String::new()), "{path}");
    }
    for path in ["nextSegmentId", "nextId"] {
        let (st, ct, body) = get(&c, format!("{t}/{path}?token={TOK_MINT}&bizType=ordres"));
        assert_eq!((st, ct.as_str()), (200, JSON), "{path}: {body}");
        assert_eq!(
            body, r#"{"data":null,"code":5,"message":"token is error"}"#,
            "{path}: {body}"
        );
    }
    let tags: serde_json::Value = c
        .get(format!("{u}/v1/admin/tags"))
        .bearer_auth(TOK_ADMIN)
        .send()
        .unwrap()
        .json()
        .unwrap();
    let names: Vec<&str> = tags
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tag"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["orders"],
        "the mistyped bizType was created: {tags}"
    );

    let metrics = reqwest::blocking::get(format!("{}/metrics", s.admin_url()))
        .unwrap()
        .text()
        .unwrap();
    let counted = |route: &str, status: u16| {
        metrics.lines().any(|l| {
            l.starts_with("idmint_http_requests_total{")
                && l.contains(&format!("route=\"{route}\""))
                && l.contains(&format!("status=\"{status}\""))
        })
    };
    assert!(counted("/tinyid/id/nextSegmentIdSimple", 404), "{metrics}");
    assert!(counted("/tinyid/id/nextSegmentIdSimple", 200), "{metrics}");
    assert!(!counted("/tinyid/id/nextIdSimple", 200), "{metrics}");
}

#[test]
fn disabled_endpoints_do_not_exist() {
    let s = Served::start(
        "store = \"sqlite:./idmint.db\"\n[leaf]\nenabled = false\n[tinyid]\nenabled = false\n",
    );
    let c = http();
    let u = s.url();
    for path in [
        "/api/segment/get/t",
        "/api/snowflake/get/t",
        "/decodeSnowflakeId?snowflakeId=5",
        "/tinyid/id/nextId?bizType=t",
        "/tinyid/id/nextSegmentIdSimple?bizType=t",
    ] {
        let (st, _, body) = get(&c, format!("{u}{path}"));
        assert_eq!(st, 404, "{path}: {body}");
        assert_eq!(error_kind(&body), "not_found", "{path}");
    }
}

/// What one client thread drew.
fn tinyid_client_loop(u: &str, thread: usize, min_ids: usize) -> Vec<u64> {
    let c = http();
    let t = format!("{u}/tinyid/id");
    let mut ids = Vec::with_capacity(min_ids + 2000);
    let mut round = 0;
    while ids.len() < min_ids {
        round += 1;
        // A tinyid-client segment, expanded as the client does: (currentId, maxId].
        let (st, _, body) = got(c
            .post(format!("{t}/nextSegmentIdSimple?token=&bizType=u"))
            .header("content-type", FORM)
            .header("content-length", "0")
            .send()
            .unwrap());
        assert_eq!(st, 200, "{body}");
        let f: Vec<u64> = body.split(',').map(|x| x.parse().unwrap()).collect();
        ids.extend(f[0] + 1..=f[2]);
        // A nextId batch.
        let (st, _, body) = get(&c, format!("{t}/nextId?bizType=u&batchSize=500"));
        assert_eq!(st, 200, "{body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        ids.extend(
            v["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap()),
        );
        // nextIdSimple.
        let (st, _, body) = get(&c, format!("{t}/nextIdSimple?bizType=u&batchSize=100"));
        assert_eq!(st, 200, "{body}");
        ids.extend(body.split(',').map(|x| x.parse::<u64>().unwrap()));
        // Leaf's one-at-a-time calls.
        for _ in 0..20 {
            let (st, _, body) = get(&c, format!("{u}/api/segment/get/u"));
            assert_eq!(st, 200, "{body}");
            ids.push(body.parse().unwrap());
        }
        if round % 50 == 0 {
            eprintln!("thread {thread}: {} IDs", ids.len());
        }
    }
    ids
}

#[test]
fn no_duplicates_across_tinyid_and_leaf_endpoints() {
    let s = Served::start("store = \"sqlite:./idmint.db\"\n[tinyid.biz_types.u]\nstep = 1000\n");
    let u = s.url();
    let per_thread = 55_000;
    let all: Vec<Vec<u64>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let u = u.clone();
                sc.spawn(move || tinyid_client_loop(&u, i, per_thread))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let total: usize = all.iter().map(Vec::len).sum();
    let distinct: HashSet<u64> = all.iter().flatten().copied().collect();
    eprintln!("{total} IDs from 4 threads, {} distinct", distinct.len());
    assert!(total >= 200_000, "{total}");
    assert_eq!(
        distinct.len(),
        total,
        "duplicates: {}",
        total - distinct.len()
    );
}

/// One Leaf allocation, exactly as `SegmentIDGenImpl.updateSegmentFromDb` does it: in one
/// transaction `UPDATE leaf_alloc SET max_id = max_id + step WHERE biz_tag = ?` then
/// `SELECT biz_tag, max_id, step FROM leaf_alloc WHERE biz_tag = ?`; the range is
/// `max_id - step .. max_id`.
async fn leaf_allocate(pool: &sqlx::SqlitePool, tag: &str) -> std::ops::Range<u64> {
    use sqlx::Row;
    let mut tx = pool.begin().await.expect("begin");
    sqlx::query("UPDATE leaf_alloc SET max_id = max_id + step WHERE biz_tag = ?")
        .bind(tag)
        .execute(&mut *tx)
        .await
        .expect("update");
    let row = sqlx::query("SELECT biz_tag, max_id, step FROM leaf_alloc WHERE biz_tag = ?")
        .bind(tag)
        .fetch_one(&mut *tx)
        .await
        .expect("select");
    tx.commit().await.expect("commit");
    let (max_id, step): (i64, i64) = (row.get(1), row.get(2));
    (max_id - step) as u64..max_id as u64
}

#[test]
fn shares_a_live_leaf_alloc_table_with_a_leaf_allocator() {
    use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
    let dir = std::env::temp_dir().join(serve_util::unique("idmint-leaf-alloc"));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("leaf.db");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let step = 1000u64;
    let pool = rt.block_on(async {
        let opts = SqliteConnectOptions::new()
            .filename(&db)
            .create_if_missing(true)
            .busy_timeout(Duration::from_secs(120));
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(opts)
            .await
            .unwrap();
        // Leaf's DDL (scripts/leaf_alloc.sql) in SQLite's words, and its README's row.
        sqlx::query(
            "CREATE TABLE leaf_alloc (
                biz_tag varchar(128) NOT NULL DEFAULT '' PRIMARY KEY,
                max_id bigint NOT NULL DEFAULT 1,
                step int NOT NULL,
                description varchar(256) DEFAULT NULL,
                update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP
            )",
        )
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query("INSERT INTO leaf_alloc(biz_tag, max_id, step, description) VALUES ('leaf-segment-test', 1, ?, 'Test leaf Segment Mode Get Id')")
            .bind(step as i64)
            .execute(&pool)
            .await
            .unwrap();
        pool
    });
    let s = Served::start_in(
        dir.clone(),
        &format!(
            "store = \"sqlite:{}?schema=leaf\"\n[segment]\nauto_create = false\n",
            db.display()
        ),
    );
    let u = s.url();
    // Concurrently: the test's Leaf allocator and two threads of Leaf callers on idmint serve.
    let (leaf_ranges, served): (Vec<std::ops::Range<u64>>, Vec<u64>) = std::thread::scope(|sc| {
        let callers: Vec<_> = (0..2)
            .map(|_| {
                let u = u.clone();
                sc.spawn(move || {
                    let c = http();
                    let mut ids = Vec::new();
                    for _ in 0..12_000 {
                        let (st, _, body) =
                            get(&c, format!("{u}/api/segment/get/leaf-segment-test"));
                        assert_eq!(st, 200, "{body}");
                        ids.push(body.parse::<u64>().unwrap());
                    }
                    ids
                })
            })
            .collect();
        let mut ranges = Vec::new();
        for _ in 0..80 {
            ranges.push(rt.block_on(leaf_allocate(&pool, "leaf-segment-test")));
            std::thread::sleep(Duration::from_millis(5));
        }
        let served = callers
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        (ranges, served)
    });
    // Let any refill under way land before reading what is left: read again until the row's
    // max_id is every ID issued plus what idmint holds (at most 120 s; past that, the checks
    // below say what is off).
    let issued = served.len() as u64 + leaf_ranges.len() as u64 * step;
    let settling = std::time::Instant::now();
    let (remaining, final_max) = loop {
        let metrics = reqwest::blocking::get(format!("{}/metrics", s.admin_url()))
            .unwrap()
            .text()
            .unwrap();
        let remaining: u64 = metrics
            .lines()
            .find(|l| l.starts_with("idmint_segment_remaining{") && l.contains("leaf-segment-test"))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no idmint_segment_remaining in\n{metrics}"));
        let final_max: i64 = rt.block_on(async {
            sqlx::query_scalar("SELECT max_id FROM leaf_alloc WHERE biz_tag = 'leaf-segment-test'")
                .fetch_one(&pool)
                .await
                .unwrap()
        });
        if final_max as u64 == issued + remaining + 1
            || settling.elapsed() > Duration::from_secs(120)
        {
            break (remaining, final_max);
        }
        std::thread::sleep(Duration::from_millis(50));
    };

    let mut all: Vec<u64> = served.clone();
    for r in &leaf_ranges {
        assert_eq!(r.end - r.start, step);
        all.extend(r.clone());
    }
    let total = all.len();
    all.sort_unstable();
    all.dedup();
    eprintln!(
        "leaf allocator: {} ranges ({} IDs), idmint serve: {} IDs, {} distinct, max_id now {final_max}, idmint holds {remaining}",
        leaf_ranges.len(),
        leaf_ranges.len() as u64 * step,
        served.len(),
        all.len()
    );
    assert!(total >= 100_000, "{total}");
    assert_eq!(all.len(), total, "duplicates: {}", total - all.len());
    // The ranges meet exactly: from Leaf's first ID up to the row's max_id (the next free ID),
    // every ID was issued by one of the two, except those still in idmint's memory.
    assert_eq!(all[0], 1);
    assert!(*all.last().unwrap() < final_max as u64);
    let missing = (final_max as u64 - 1) - all.len() as u64;
    assert_eq!(
        missing, remaining,
        "IDs neither allocator issued nor idmint holds"
    );
    drop(s);
    rt.block_on(pool.close());
    let _ = std::fs::remove_dir_all(&dir);
}
