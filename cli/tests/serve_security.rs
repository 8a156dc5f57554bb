//! `idmint serve`'s security, end to end on a real process: bearer tokens by scope (401, 403,
//! nothing minted by a refused request), the per-token rate limit (429 + Retry-After), token
//! rotation by SIGHUP, no secret in logs or error bodies, TLS (HTTPS only on the TLS port,
//! client certificates, certificate reload by SIGHUP), and anonymous access on loopback.

mod serve_util;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use reqwest::blocking::{Client, RequestBuilder};
use reqwest::header::HeaderMap;
use serde_json::Value;
use serve_util::Served;

/// One configured token. `sha256` is `printf %s TOKEN | sha256sum`, computed once and
/// hardcoded (the server keeps only the hash; the tests need the token itself).
struct Token {
    name: &'static str,
    secret: &'static str,
    sha256: &'static str,
    scopes: &'static str,
    rate_per_sec: u32,
}

const ORDERS: Token = Token {
    name: "orders-app",
    secret: "idm-orders-Xq7pL2vN9s",
    sha256: "961901e6c69fe2c7b97aa1120f9c86ab0d93bca2381a000efbc3b19b21acf271",
    scopes: r#"["mint:segment:orders"]"#,
    rate_per_sec: 0,
};
const MINT: Token = Token {
    name: "minter",
    secret: "idm-mint-Kd4wR8tY1z",
    sha256: "b320f692f30c66a85f26f26a7165eb5b86835eafcd2f65b8e0cc49ffcab53c69",
    scopes: r#"["mint"]"#,
    rate_per_sec: 0,
};
/// The same scope as MINT: the token being rotated out.
const MINT2: Token = Token {
    name: "minter-old",
    secret: "idm-mint2-Hb6nM3cV5x",
    sha256: "cac7abbea1f98226c6ead1ddf2299acfd5e71f0afa0d8bb10406964f95b979ab",
    scopes: r#"["mint"]"#,
    rate_per_sec: 0,
};
const LEASE: Token = Token {
    name: "leaser",
    secret: "idm-lease-Pf2gJ9kS4a",
    sha256: "e6e0906ade6b39f99e009e59b67fd64ae42089fd348549fd34275e253af9e134",
    scopes: r#"["lease"]"#,
    rate_per_sec: 0,
};
const ADMIN: Token = Token {
    name: "ops",
    secret: "idm-admin-Wt8eZ1uQ7r",
    sha256: "f15359d495ee0938c251863871d29cb84b71fe62e346632f04c351dd721fbc63",
    scopes: r#"["admin"]"#,
    rate_per_sec: 0,
};
const RATED: Token = Token {
    name: "rated",
    secret: "idm-rated-Ly5oA3iD6m",
    sha256: "4fbc5c7196b0067911d43515780728e6959d76079e25d44ca9d63ee5aff6c72d",
    scopes: r#"["mint"]"#,
    rate_per_sec: 5,
};
/// Configured nowhere.
const WRONG: &str = "idm-wrong-Vn3sT6yB8c";

const ALL: [&Token; 6] = [&ORDERS, &MINT, &MINT2, &LEASE, &ADMIN, &RATED];

fn tokens_toml(tokens: &[&Token]) -> String {
    tokens
        .iter()
        .map(|t| {
            format!(
                "[[tokens]]\nname = \"{}\"\nsha256 = \"{}\"\nscopes = {}\nrate_per_sec = {}\n\n",
                t.name, t.sha256, t.scopes, t.rate_per_sec
            )
        })
        .collect()
}

/// A finished request: status, headers, body text.
struct Answer {
    status: u16,
    headers: HeaderMap,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    fn kind(&self) -> String {
        self.json()["error"]["kind"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The first ID of a `{"ids": [...]}` answer.
    fn first_id(&self) -> u64 {
        assert_eq!(self.status, 200, "{}", self.body);
        self.json()["ids"][0]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no ID: {}", self.body))
    }
}

fn send(req: RequestBuilder, token: Option<&str>) -> Answer {
    let req = match token {
        Some(t) => req.bearer_auth(t),
        None => req,
    };
    let r = req.send().expect("an HTTP answer");
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let body = r.text().expect("a body");
    Answer {
        status,
        headers,
        body,
    }
}

/// How long the test waits for the server's own signal (an answer, a log line, an exit):
/// generous, so a loaded 2-core machine never fails a test on speed.
const LIMIT: Duration = Duration::from_secs(120);

fn client() -> Client {
    Client::builder().timeout(LIMIT).build().expect("client")
}

/// A 401 as the API answers it: the header that says how to authenticate, the JSON kind.
fn assert_unauthorized(a: &Answer, what: &str) {
    assert_eq!(a.status, 401, "{what}: {}", a.body);
    assert_eq!(
        a.headers
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok()),
        Some("Bearer"),
        "{what}: {:?}",
        a.headers
    );
    assert_eq!(a.kind(), "unauthorized", "{what}: {}", a.body);
    assert!(
        a.json()["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{what}: {}",
        a.body
    );
}

fn assert_forbidden(a: &Answer, what: &str) {
    assert_eq!(a.status, 403, "{what}: {}", a.body);
    assert_eq!(a.kind(), "forbidden", "{what}: {}", a.body);
}

#[test]
fn tokens_scopes_rate_limit_and_rotation() {
    let config = format!(
        "store = \"sqlite:./idmint.db\"\n[segment]\ntags = [\"orders\"]\n\n{}",
        tokens_toml(&ALL)
    );
    let mut s = Served::start(&config);
    let http = client();
    let url = s.url();
    let post = |path: &str| http.post(format!("{url}{path}"));
    let get = |path: &str| http.get(format!("{url}{path}"));

    // No token, a wrong one, a header that is not a bearer token: 401.
    assert_unauthorized(&send(post("/v1/segment/orders"), None), "no token");
    assert_unauthorized(
        &send(post("/v1/segment/orders"), Some(WRONG)),
        "wrong token",
    );
    assert_unauthorized(
        &send(
            post("/v1/segment/orders").header("authorization", format!("Basic {}", ORDERS.secret)),
            None,
        ),
        "basic auth",
    );
    assert_unauthorized(&send(get("/v1/layout"), None), "read without a token");

    // The scoped token mints its tag, and only that.
    let first = send(post("/v1/segment/orders"), Some(ORDERS.secret)).first_id();
    let other = send(post("/v1/segment/other"), Some(ORDERS.secret));
    assert_forbidden(&other, "segment tag other with mint:segment:orders");
    assert!(other.body.contains("mint:segment:other"), "{}", other.body);
    assert_forbidden(
        &send(post("/v1/snowflake"), Some(ORDERS.secret)),
        "snowflake with mint:segment:orders",
    );
    assert_forbidden(
        &send(post("/v1/orders/daily"), Some(ORDERS.secret)),
        "orders with mint:segment:orders",
    );
    assert_forbidden(
        &send(get("/v1/admin/tags"), Some(ORDERS.secret)),
        "admin tags with mint:segment:orders",
    );
    assert_forbidden(
        &send(
            post("/v1/admin/tags").json(&serde_json::json!({"tag": "sneaky"})),
            Some(ORDERS.secret),
        ),
        "tag creation with mint:segment:orders",
    );
    assert_forbidden(
        &send(
            post("/v1/leases").json(&serde_json::json!({})),
            Some(ORDERS.secret),
        ),
        "lease with mint:segment:orders",
    );
    assert_forbidden(
        &send(get("/v1/admin/leases"), Some(ORDERS.secret)),
        "lease list with mint:segment:orders",
    );
    // Other scopes do not mint either.
    assert_forbidden(
        &send(post("/v1/segment/orders"), Some(LEASE.secret)),
        "segment with lease",
    );
    assert_forbidden(
        &send(post("/v1/segment/orders"), Some(ADMIN.secret)),
        "segment with admin",
    );
    assert_forbidden(
        &send(
            post("/v1/leases").json(&serde_json::json!({})),
            Some(ADMIN.secret),
        ),
        "lease with admin",
    );
    assert_forbidden(
        &send(get("/v1/admin/tags"), Some(LEASE.secret)),
        "admin with lease",
    );
    // Every refusal above minted nothing: the tag's next ID follows the last one directly
    // (one server hands out its buffered range in order).
    let next = send(post("/v1/segment/orders"), Some(ORDERS.secret)).first_id();
    assert_eq!(next, first + 1, "a refused request consumed segment IDs");
    // The tag `other` was never created by the refused request.
    let tags = send(get("/v1/admin/tags"), Some(ADMIN.secret));
    assert_eq!(tags.status, 200, "{}", tags.body);
    let names: Vec<String> = tags
        .json()
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|t| t["tag"].as_str().map(str::to_string))
        .collect();
    assert!(names.iter().any(|t| t == "orders"), "{names:?}");
    for refused in ["other", "sneaky"] {
        assert!(
            !names.iter().any(|t| t == refused),
            "a refused request created the tag {refused}: {names:?}"
        );
    }

    // What each scope allows.
    let snowflake = send(post("/v1/snowflake"), Some(MINT.secret)).first_id();
    assert_eq!(
        send(post("/v1/segment/other"), Some(MINT.secret)).status,
        200
    );
    let parsed = send(
        get(&format!("/v1/parse?id={snowflake}")),
        Some(ORDERS.secret),
    );
    assert_eq!(
        parsed.status, 200,
        "parse with any valid token: {}",
        parsed.body
    );
    assert_unauthorized(
        &send(get(&format!("/v1/parse?id={snowflake}")), Some(WRONG)),
        "parse with a wrong token",
    );
    let lease = send(
        post("/v1/leases").json(&serde_json::json!({})),
        Some(LEASE.secret),
    );
    assert_eq!(lease.status, 201, "{}", lease.body);
    assert_eq!(
        send(get("/v1/admin/leases"), Some(ADMIN.secret)).status,
        200
    );

    // The rate limit: a burst of 5, then 429 with Retry-After; later it passes again. The
    // requests go in rounds of 15 at once, until one is refused: however slow the machine, the
    // requests of a round reach the limiter together. What passed is bounded by the burst plus
    // what the rate refills in the time it took, whatever that time was.
    let rate_began = Instant::now();
    let mut passed = 0;
    let limited = loop {
        let round: Vec<Answer> = std::thread::scope(|scope| {
            let senders: Vec<_> = (0..15)
                .map(|_| scope.spawn(|| send(post("/v1/uuid7"), Some(RATED.secret))))
                .collect();
            senders
                .into_iter()
                .map(|h| h.join().expect("sender"))
                .collect()
        });
        let mut limited = None;
        for a in round {
            match a.status {
                200 => passed += 1,
                429 => limited = Some(a),
                other => panic!("rate-limited token: {other} {}", a.body),
            }
        }
        if let Some(a) = limited {
            break a;
        }
        assert!(
            rate_began.elapsed() < LIMIT,
            "no 429 within {LIMIT:?} at rate_per_sec = 5 ({passed} passed)"
        );
    };
    let rate_took = rate_began.elapsed();
    let refilled = (rate_took.as_secs_f64() * f64::from(RATED.rate_per_sec)).ceil() as u32;
    eprintln!("rate limit: {passed} passed in {rate_took:?} before the 429");
    assert!(
        (1..=RATED.rate_per_sec + refilled + 1).contains(&passed),
        "{passed} passed before the 429, in {rate_took:?}"
    );
    assert_eq!(limited.kind(), "rate_limited", "{}", limited.body);
    assert!(limited.body.contains(RATED.name), "{}", limited.body);
    let retry: u64 = limited
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("429 without a numeric Retry-After: {:?}", limited.headers));
    assert!((1..=2).contains(&retry), "Retry-After: {retry}");
    // Another token is not limited by this one's rate.
    assert_eq!(send(post("/v1/uuid7"), Some(MINT.secret)).status, 200);
    std::thread::sleep(Duration::from_secs(retry));
    assert_eq!(
        send(post("/v1/uuid7"), Some(RATED.secret)).status,
        200,
        "still limited after Retry-After"
    );

    // Rotation: two tokens of one scope both work; the config without the old one, SIGHUP,
    // and the old one is refused while the new one (and every other) still works.
    assert_eq!(send(post("/v1/snowflake"), Some(MINT.secret)).status, 200);
    assert_eq!(send(post("/v1/snowflake"), Some(MINT2.secret)).status, 200);
    let rotated = format!(
        "store = \"sqlite:./idmint.db\"\n[segment]\ntags = [\"orders\"]\n\n{}",
        tokens_toml(&[&ORDERS, &MINT, &LEASE, &ADMIN, &RATED])
    );
    s.rewrite_config(&rotated);
    s.signal(libc::SIGHUP);
    let started = Instant::now();
    loop {
        let a = send(post("/v1/snowflake"), Some(MINT2.secret));
        if a.status == 401 {
            assert_unauthorized(&a, "the rotated-out token");
            break;
        }
        assert_eq!(a.status, 200, "{}", a.body);
        assert!(
            started.elapsed() < LIMIT,
            "the removed token still works {LIMIT:?} after SIGHUP:\n{}",
            s.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(send(post("/v1/snowflake"), Some(MINT.secret)).status, 200);
    let after = send(post("/v1/segment/orders"), Some(ORDERS.secret)).first_id();
    assert_eq!(after, next + 1);

    // A broken file on SIGHUP: the tokens in force stay.
    s.rewrite_config("store = \"sqlite:./idmint.db\"\n[[tokens]]\nname = \"x\"\n");
    s.signal(libc::SIGHUP);
    assert!(
        s.wait_log("configuration not reloaded", LIMIT),
        "no reload error logged:\n{}",
        s.log()
    );
    assert_eq!(send(post("/v1/snowflake"), Some(MINT.secret)).status, 200);
    assert_eq!(send(post("/v1/snowflake"), Some(MINT2.secret)).status, 401);
}

/// The store URL with a password in it: PostgreSQL (tests/servers.sh) when it runs — its
/// `postgres` user is trusted on loopback, so any password connects — else SQLite and no
/// store password. Returns (URL, password).
fn store_with_password() -> (String, Option<String>) {
    const PW: &str = "pg-Secr3t-Qm4Zx9";
    match serve_util::store_server("postgres") {
        Some(url) => {
            let (scheme, rest) = url.split_once("://").expect("a URL");
            let (user, host) = rest.split_once('@').expect("a user in the URL");
            match user.split_once(':') {
                Some((_, pw)) => (url.clone(), Some(pw.to_string())),
                None => (format!("{scheme}://{user}:{PW}@{host}"), Some(PW.into())),
            }
        }
        None => ("sqlite:./idmint.db".into(), None),
    }
}

/// The secrets, and for each its random tail too (a secret cut or re-encoded in a log line
/// still shows that).
fn secrets(extra: &[String]) -> Vec<String> {
    let mut out: Vec<String> = ALL.iter().map(|t| t.secret.to_string()).collect();
    out.push(WRONG.into());
    out.extend(extra.iter().cloned());
    let tails: Vec<String> = out
        .iter()
        .filter_map(|s| s.rsplit_once('-').map(|(_, tail)| tail.to_string()))
        .filter(|t| t.len() >= 8)
        .collect();
    out.extend(tails);
    out
}

fn assert_no_secret(text: &str, secrets: &[String], what: &str) {
    for s in secrets {
        assert!(
            !text.contains(s.as_str()),
            "{what} contains the secret `{s}`:\n{text}"
        );
    }
}

#[test]
fn no_secret_in_logs_or_error_bodies() {
    let (store, password) = store_with_password();
    let tag = serve_util::unique("sec");
    let config = format!(
        "store = \"{store}\"\n[log]\nlevel = \"debug\"\nformat = \"json\"\n\
         [segment]\ntags = [\"{tag}\"]\n[orders.daily]\ntemplate = \"SO%y%M%D%6S\"\n\n{}",
        tokens_toml(&ALL)
    );
    let mut s = Served::start(&config);
    let http = client();
    // HTTP/2 too (h2 logs frames at debug).
    let h2 = Client::builder()
        .http2_prior_knowledge()
        .timeout(LIMIT)
        .build()
        .expect("h2 client");
    let url = s.url();
    let mut bodies: Vec<(String, Answer)> = Vec::new();
    let mut lease_secrets: Vec<String> = Vec::new();
    let every_token: Vec<Option<&str>> = ALL
        .iter()
        .map(|t| Some(t.secret))
        .chain([Some(WRONG), None])
        .collect();
    for (i, token) in every_token.iter().enumerate() {
        let c = if i % 2 == 0 { &http } else { &h2 };
        let p = |path: &str| c.post(format!("{url}{path}"));
        let g = |path: &str| c.get(format!("{url}{path}"));
        let requests: Vec<(&str, RequestBuilder)> = vec![
            ("segment", p(&format!("/v1/segment/{tag}?count=2"))),
            ("segment other", p("/v1/segment/other")),
            (
                "segment range",
                p(&format!("/v1/segment/{tag}/range?count=3")),
            ),
            (
                "segment bad count",
                p(&format!("/v1/segment/{tag}?count=zero")),
            ),
            ("snowflake", p("/v1/snowflake")),
            ("objectid", p("/v1/objectid")),
            ("uuid7", p("/v1/uuid7")),
            ("orders", p("/v1/orders/daily")),
            ("orders unknown", p("/v1/orders/nope")),
            ("parse", g("/v1/parse?id=1541815603606036480")),
            ("parse bad", g("/v1/parse?id=zzz")),
            ("layout", g("/v1/layout")),
            (
                "lease",
                p("/v1/leases").json(&serde_json::json!({"ttl_ms": 5000})),
            ),
            ("lease bad body", p("/v1/leases").body("{not json")),
            ("admin tags", g("/v1/admin/tags")),
            (
                "admin tag create",
                p("/v1/admin/tags").json(&serde_json::json!({"tag": format!("{tag}_new")})),
            ),
            (
                "admin tag patch",
                c.patch(format!("{url}/v1/admin/tags/{tag}"))
                    .json(&serde_json::json!({"description": "d"})),
            ),
            ("admin leases", g("/v1/admin/leases")),
            ("openapi", g("/openapi.json")),
            ("no such route", g("/v1/nope")),
            ("leaf segment", g(&format!("/api/segment/get/{tag}"))),
            ("leaf snowflake", g("/api/snowflake/get/x")),
        ];
        for (what, req) in requests {
            let a = send(req, *token);
            if what == "lease" && a.status == 201 {
                let lease = a.json();
                let secret = lease["token"].as_str().expect("a lease token").to_string();
                let value = lease["value"].as_u64().expect("a value");
                let fence = lease["fence_ms"].as_u64().expect("a fence");
                for op in ["renew", "release"] {
                    let r = send(
                        p(&format!("/v1/leases/{value}/{op}"))
                            .json(&serde_json::json!({"token": secret, "fence_ms": fence})),
                        *token,
                    );
                    assert_eq!(r.status, 200, "{op}: {}", r.body);
                    bodies.push((format!("lease {op}"), r));
                }
                // A wrong lease token: lease_lost, and the right one not echoed.
                let r = send(
                    p(&format!("/v1/leases/{value}/renew")).json(
                        &serde_json::json!({"token": format!("{secret}x"), "fence_ms": fence}),
                    ),
                    *token,
                );
                assert_ne!(r.status, 200, "{}", r.body);
                bodies.push(("lease renew, wrong lease token".into(), r));
                lease_secrets.push(secret);
                continue;
            }
            bodies.push((what.to_string(), a));
        }
        // Tinyid's style: the token in the query string.
        let tinyid_token = token.unwrap_or(WRONG);
        for path in ["nextIdSimple", "nextId"] {
            let a = send(
                g(&format!(
                    "/tinyid/id/{path}?bizType={tag}&batchSize=2&token={tinyid_token}"
                )),
                None,
            );
            bodies.push((format!("tinyid {path}"), a));
        }
    }
    // The admin listener's pages.
    for path in ["/metrics", "/readyz", "/healthz"] {
        let a = send(http.get(format!("{}{path}", s.admin_url())), None);
        assert_eq!(a.status, 200, "{path}: {}", a.body);
        bodies.push((path.to_string(), a));
    }
    // Sanity: the tokens did what their scopes say, so the requests above reached the
    // handlers (not refused by something else before the secrets could be seen).
    let ok = |what: &str| {
        bodies
            .iter()
            .filter(|(w, a)| w == what && a.status < 300)
            .count()
    };
    assert_eq!(ok("segment"), 3, "segment: orders, mint and rated tokens");
    assert_eq!(ok("admin tags"), 1);
    assert_eq!(lease_secrets.len(), 1, "one lease token");
    assert_eq!(ok("lease release"), 1);

    // A reload (its log lines), then stop so every line is written.
    s.signal(libc::SIGHUP);
    assert!(s.wait_log("tokens reloaded", LIMIT), "{}", s.log());
    assert_eq!(s.term(LIMIT), Some(0), "{}", s.log());

    // Every secret is kept out of the log; out of the bodies too, except that a renewal
    // answers with the lease's own token, by design.
    let mut extra = lease_secrets.clone();
    extra.extend(password.clone());
    let all_secrets = secrets(&extra);
    let bearer_secrets = secrets(&password.iter().cloned().collect::<Vec<_>>());
    for (what, a) in &bodies {
        let secrets = if what == "lease renew" {
            &bearer_secrets
        } else {
            &all_secrets
        };
        assert_no_secret(
            &a.body,
            secrets,
            &format!("the body of `{what}` ({})", a.status),
        );
        for (name, v) in &a.headers {
            assert_no_secret(
                &String::from_utf8_lossy(v.as_bytes()),
                secrets,
                &format!("header {name} of `{what}`"),
            );
        }
    }
    let log = s.log();
    // The log is the JSON one at debug: not empty, one object a line.
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() >= 3, "too few log lines:\n{log}");
    for l in &lines {
        let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"));
        assert!(v["level"].is_string(), "{l}");
    }
    assert!(
        log.contains("DEBUG"),
        "no debug line: is level = debug in force?\n{log}"
    );
    assert_no_secret(&log, &all_secrets, "the log");
    if let Some(pw) = &password {
        // The store is named in the log, without its password.
        assert!(log.contains("postgres://"), "{log}");
        assert!(!log.contains(pw.as_str()));
    }
}

/// The test PKI, made with the `openssl` CLI as tests/servers.sh's `tls_files` makes it: CA 1
/// signs `server` (DNS localhost) and `client`; CA 2 (`other-ca`) signs `server2` (DNS
/// localhost, for the reload) and `client2` (a client the server must refuse).
fn make_pki(dir: &Path) {
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("run openssl");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    for (ca, cn) in [("ca", "idmint test CA"), ("other-ca", "idmint other CA")] {
        run(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "30",
            "-keyout",
            &format!("{ca}.key"),
            "-out",
            &format!("{ca}.pem"),
            "-subj",
            &format!("/CN={cn}"),
        ]);
    }
    for (who, ca, usage) in [
        ("server", "ca", "server"),
        ("client", "ca", "client"),
        ("server2", "other-ca", "server"),
        ("client2", "other-ca", "client"),
    ] {
        run(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            &format!("{who}.key"),
            "-out",
            &format!("{who}.csr"),
            "-subj",
            &format!("/CN=idmint test {who}"),
        ]);
        std::fs::write(
            dir.join(format!("{who}.ext")),
            format!("subjectAltName=DNS:localhost\nextendedKeyUsage={usage}Auth\n"),
        )
        .expect("ext file");
        run(&[
            "x509",
            "-req",
            "-in",
            &format!("{who}.csr"),
            "-CA",
            &format!("{ca}.pem"),
            "-CAkey",
            &format!("{ca}.key"),
            "-CAcreateserial",
            "-days",
            "30",
            "-extfile",
            &format!("{who}.ext"),
            "-out",
            &format!("{who}.pem"),
        ]);
    }
}

/// A fresh directory with the PKI in it (the server runs there; it is removed with it).
fn tls_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(serve_util::unique("idmint-tls"));
    std::fs::create_dir_all(&dir).expect("temp dir");
    make_pki(&dir);
    dir
}

/// An HTTPS client that trusts only `ca` (no built-in roots), sends `identity` (a client
/// certificate and key) if given, resolves `localhost` to the server, and opens a new
/// connection for every request (so a reloaded certificate is seen).
fn tls_client(dir: &Path, ca: &str, identity: Option<&str>, port: u16) -> Client {
    let pem = |name: &str| std::fs::read(dir.join(name)).expect("a PEM file");
    let mut b = Client::builder()
        .use_rustls_tls()
        .tls_built_in_root_certs(false)
        .add_root_certificate(
            reqwest::Certificate::from_pem(&pem(&format!("{ca}.pem"))).expect("CA"),
        )
        .resolve("localhost", ([127, 0, 0, 1], port).into())
        .pool_max_idle_per_host(0)
        .timeout(LIMIT);
    if let Some(who) = identity {
        let mut both = pem(&format!("{who}.pem"));
        both.extend(pem(&format!("{who}.key")));
        b = b.identity(reqwest::Identity::from_pem(&both).expect("identity"));
    }
    b.build().expect("TLS client")
}

fn https_layout(c: &Client, port: u16) -> Result<u16, reqwest::Error> {
    c.get(format!("https://localhost:{port}/v1/layout"))
        .send()
        .map(|r| r.status().as_u16())
}

/// What a plain-HTTP request to the TLS port gets back: never an HTTP response.
fn assert_plain_http_refused(port: u16) {
    let r = client()
        .get(format!("http://127.0.0.1:{port}/v1/layout"))
        .send();
    assert!(r.is_err(), "plain HTTP to the TLS port answered: {r:?}");
    use std::io::{Read, Write};
    let mut sock = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    sock.set_read_timeout(Some(LIMIT)).unwrap();
    sock.write_all(b"GET /v1/layout HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut got = Vec::new();
    let _ = sock.read_to_end(&mut got);
    assert!(
        !got.starts_with(b"HTTP/"),
        "plain HTTP to the TLS port answered: {}",
        String::from_utf8_lossy(&got)
    );
}

#[test]
fn tls_https_only_and_certificate_reload() {
    let dir = tls_dir();
    let config = format!(
        "store = \"sqlite:./idmint.db\"\n[tls]\ncert = \"{0}/server.pem\"\nkey = \"{0}/server.key\"\n",
        dir.display()
    );
    let s = Served::start_in(dir.clone(), &config);
    let ca1 = tls_client(&dir, "ca", None, s.port);
    let ca2 = tls_client(&dir, "other-ca", None, s.port);
    assert_eq!(
        https_layout(&ca1, s.port).expect("HTTPS with the test CA"),
        200
    );
    // Core's https:// store (a segment client of this server) trusts the test CA by `?ca=`, and
    // refuses the certificate when told to trust CA 2 only.
    let store = |ca: &str| {
        idmint_core::segment::SegmentClient::builder()
            .store_url(&format!(
                "https://localhost:{}?ca={}",
                s.port,
                dir.join(ca).display()
            ))
            .max_wait(LIMIT)
            .op_timeout(LIMIT)
            .connect_blocking()
            .expect("a client")
    };
    assert!(store("ca.pem").tag("tls").unwrap().next_id().unwrap() >= 1);
    let refused = store("other-ca.pem").tag("tls").unwrap_err();
    assert_eq!(refused.kind(), "store_unavailable", "{refused}");
    // HTTP/2 by ALPN on the same port.
    let r = ca1
        .get(format!("https://localhost:{}/v1/layout", s.port))
        .send()
        .expect("HTTPS");
    assert_eq!(r.version(), reqwest::Version::HTTP_2);
    assert_plain_http_refused(s.port);
    // The certificate names `localhost` only.
    let by_ip = Client::builder()
        .use_rustls_tls()
        .tls_built_in_root_certs(false)
        .add_root_certificate(
            reqwest::Certificate::from_pem(&std::fs::read(dir.join("ca.pem")).unwrap()).unwrap(),
        )
        .build()
        .unwrap()
        .get(format!("https://127.0.0.1:{}/v1/layout", s.port))
        .send();
    assert!(
        by_ip.is_err(),
        "a certificate for localhost passed for 127.0.0.1"
    );
    // A client that trusts only CA 2 is refused the CA 1 certificate…
    assert!(
        https_layout(&ca2, s.port).is_err(),
        "CA 2 trusted the CA 1 certificate"
    );

    // …until the files are swapped for CA 2's and SIGHUP reloads them.
    for ext in ["pem", "key"] {
        std::fs::copy(
            dir.join(format!("server2.{ext}")),
            dir.join(format!("server.{ext}")),
        )
        .expect("swap the certificate");
    }
    s.signal(libc::SIGHUP);
    let started = Instant::now();
    while https_layout(&ca2, s.port).is_err() {
        assert!(
            started.elapsed() < LIMIT,
            "the new certificate is not served {LIMIT:?} after SIGHUP:\n{}",
            s.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(https_layout(&ca2, s.port).unwrap(), 200);
    assert!(
        https_layout(&ca1, s.port).is_err(),
        "the old certificate is still served"
    );
    assert!(s.log().contains("TLS certificate reloaded"), "{}", s.log());

    // A broken file on SIGHUP: the certificate in force stays.
    std::fs::write(dir.join("server.pem"), "not a certificate\n").unwrap();
    s.signal(libc::SIGHUP);
    assert!(s.wait_log("TLS not reloaded", LIMIT), "{}", s.log());
    assert_eq!(
        https_layout(&ca2, s.port).expect("the old certificate stays"),
        200
    );
}

#[test]
fn tls_client_certificates() {
    let dir = tls_dir();
    let config = format!(
        "store = \"sqlite:./idmint.db\"\n[tls]\ncert = \"{0}/server.pem\"\nkey = \"{0}/server.key\"\nclient_ca = \"{0}/ca.pem\"\n",
        dir.display()
    );
    let s = Served::start_in(dir.clone(), &config);
    let anonymous = tls_client(&dir, "ca", None, s.port);
    assert!(
        https_layout(&anonymous, s.port).is_err(),
        "a client without a certificate was served"
    );
    let stranger = tls_client(&dir, "ca", Some("client2"), s.port);
    assert!(
        https_layout(&stranger, s.port).is_err(),
        "a client certificate of another CA was accepted"
    );
    let known = tls_client(&dir, "ca", Some("client"), s.port);
    assert_eq!(https_layout(&known, s.port).expect("mutual TLS"), 200);
    let r = known
        .post(format!(
            "https://localhost:{}/v1/segment/orders?count=2",
            s.port
        ))
        .send()
        .expect("mint over mutual TLS");
    assert_eq!(r.status(), 200);
    assert_plain_http_refused(s.port);
}

#[test]
fn anonymous_on_loopback_without_tokens() {
    let s = Served::start("store = \"sqlite:./idmint.db\"\n");
    let http = client();
    let url = s.url();
    let ok = |a: Answer, what: &str| assert!(a.status < 300, "{what}: {} {}", a.status, a.body);
    ok(
        send(http.post(format!("{url}/v1/segment/orders")), None),
        "segment",
    );
    ok(
        send(http.post(format!("{url}/v1/snowflake")), None),
        "snowflake",
    );
    ok(send(http.get(format!("{url}/v1/layout")), None), "layout");
    ok(
        send(http.get(format!("{url}/v1/admin/tags")), None),
        "admin",
    );
    let lease = send(
        http.post(format!("{url}/v1/leases"))
            .json(&serde_json::json!({})),
        None,
    );
    assert_eq!(lease.status, 201, "{}", lease.body);
    assert!(lease.json()["value"].is_u64(), "{}", lease.body);
    // A token, even a made-up one, is not needed and not refused.
    ok(
        send(http.post(format!("{url}/v1/uuid7")), Some(WRONG)),
        "uuid7 with a token",
    );
}

/// A configuration error must not print the line it is on: TOML's message quotes the line,
/// and on the `store` line that is the store's password — in the log on SIGHUP, on stderr at
/// start.
#[test]

fn config_errors_do_not_quote_the_store_password() {
    const PW: &str = "pw-In-Bad-Line-7Tq2";
    let bad = format!("store = \"postgres://ids:{PW}@db.example:5432/ids\" oops\n");
    // At start: the error on stderr.
    let dir = std::env::temp_dir().join(serve_util::unique("idmint-badconf"));
    std::fs::create_dir_all(&dir).unwrap();
    let path = serve_util::write(&dir, "bad.toml", &bad);
    let out = Command::new(env!("CARGO_BIN_EXE_idmint"))
        .args(["serve", "--config"])
        .arg(&path)
        .output()
        .expect("run idmint serve");
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("line 1"),
        "the error should still say where: {stderr}"
    );
    assert!(
        !stderr.contains(PW),
        "the start error quotes the password: {stderr}"
    );
    // On SIGHUP: the error in the log.
    let mut s = Served::start("store = \"sqlite:./idmint.db\"\n");
    s.rewrite_config(&bad);
    s.signal(libc::SIGHUP);
    assert!(
        s.wait_log("configuration not reloaded", LIMIT),
        "{}",
        s.log()
    );
    assert!(
        !s.log().contains(PW),
        "the reload error quotes the password:\n{}",
        s.log()
    );
}
