//! Every network store over TLS, against the real servers of tests/servers.sh: the TLS-only
//! Redis (`redis-tls`, which asks for a client certificate), and PostgreSQL and MariaDB with a
//! user each that may connect only over TLS with a client certificate. Their certificates are
//! made by tests/servers.sh for the name `localhost` only, signed by a test CA
//! (`IDMINT_TEST_TLS_DIR`).
//!
//! Each store: works with the CA and client certificate given; refuses a server certificate of
//! another CA, and one that is not for the host name connected to (`127.0.0.1`), with an error
//! naming the host; refuses a plain connection; never shows the password.
#![cfg(all(feature = "postgres", feature = "mysql", feature = "redis"))]

mod segment_util;

use std::time::Duration;

use idmint_core::lease::{open_lease_store, LeaseRequest};
use idmint_core::segment::{
    open_daily_counter, open_store, DailyCounterOptions, StoreOptions, TagSpec,
};
use idmint_core::RedisSnowflake;
use segment_util::{server, unique};

/// The certificate files of tests/servers.sh, or None (skipped) when the servers are not up.
fn tls_dir() -> Option<String> {
    let dir = std::env::var("IDMINT_TEST_TLS_DIR")
        .ok()
        .filter(|d| !d.is_empty());
    if dir.is_none() {
        assert!(
            std::env::var("IDMINT_REQUIRE_SERVERS").as_deref() != Ok("1"),
            "IDMINT_TEST_TLS_DIR is not set but IDMINT_REQUIRE_SERVERS=1"
        );
        eprintln!("skipped: IDMINT_TEST_TLS_DIR is not set (tests/servers.sh starts the servers)");
    }
    dir
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Opens a segment store at `url` and draws a block: the whole round trip over the connection.
fn draw(url: &str) -> idmint_core::Result<()> {
    rt().block_on(async {
        let store = open_store(url, &StoreOptions::default()).await?;
        let tag = unique("tls").replace('_', "-");
        store.create_tag(&TagSpec::new(&tag)?).await?;
        store.allocate(&tag, 10).await?;
        Ok(())
    })
}

/// `url` must fail; its error names `host`, says why (`why`, any of) and hides `secret`.
fn refused(url: &str, host: &str, why: &[&str], secret: &str) {
    let err = draw(url).expect_err(url).to_string();
    eprintln!("refused as expected: {err}");
    assert!(err.contains(host), "the error should name {host}: {err}");
    assert!(
        why.iter().any(|w| err.contains(w)),
        "the error should say one of {why:?}: {err}"
    );
    assert!(!err.contains(secret), "the error shows the password: {err}");
}

/// `{scheme}://{user}@localhost:port/db` as `{scheme}://{user}@127.0.0.1:port/db`: the server's
/// certificate is for `localhost` only.
fn wrong_host(url: &str) -> String {
    url.replacen("@localhost:", "@127.0.0.1:", 1)
        .replacen("://localhost:", "://127.0.0.1:", 1)
}

/// Words in the errors of rustls for a certificate that does not verify.
const BAD_CERT: &[&str] = &["UnknownIssuer", "certificate", "Certificate"];
const BAD_NAME: &[&str] = &["NotValidForName", "not valid for", "certificate"];

/// A SQL engine's TLS options (the driver's URL names) and how its TLS-only user is refused.
struct Sql {
    server: &'static str,
    secret: &'static str,
    /// Its `sslmode` names: verify the certificate and host, the CA only, encrypt only, plain.
    mode: &'static str,
    full: &'static str,
    ca_only: &'static str,
    encrypt: &'static str,
    plain: &'static str,
    /// The file options: CA, client certificate, client key.
    files: [&'static str; 3],
    /// Words of the server's refusal of the user unencrypted, and without a client certificate.
    no_tls: &'static [&'static str],
    no_cert: &'static [&'static str],
}

fn sql_over_tls(e: Sql) {
    let (Some(base), Some(t)) = (server(e.server), tls_dir()) else {
        return;
    };
    let [ca, cert, key] = e.files;
    let client = format!("{cert}={t}/client.pem&{key}={t}/client.key");
    let mode = |m: &str, ca_file: &str| format!("{}={m}&{ca}={t}/{ca_file}", e.mode);
    let table = || format!("table={}", unique("t"));
    draw(&format!(
        "{base}?{}&{client}&{}",
        mode(e.full, "ca.pem"),
        table()
    ))
    .unwrap();
    // Encrypted, the certificate unchecked.
    draw(&format!(
        "{base}?{}={}&{client}&{}",
        e.mode,
        e.encrypt,
        table()
    ))
    .unwrap();
    // The CA only should skip the host name check, but sqlx 0.8.6 checks it too with this
    // rustls (sqlx issue #3793; docs/segments.md): tried by the certificate's name.
    draw(&format!(
        "{base}?{}&{client}&{}",
        mode(e.ca_only, "ca.pem"),
        table()
    ))
    .unwrap();

    let other = format!("{base}?{}&{client}", mode(e.ca_only, "other-ca.pem"));
    refused(&other, "localhost", BAD_CERT, e.secret);
    let name = format!("{}?{}&{client}", wrong_host(&base), mode(e.full, "ca.pem"));
    refused(&name, "127.0.0.1", BAD_NAME, e.secret);
    // The user may not connect unencrypted, nor without a client certificate.
    let plain = format!("{base}?{}={}", e.mode, e.plain);
    refused(&plain, "localhost", e.no_tls, e.secret);
    let no_cert = format!("{base}?{}", mode(e.full, "ca.pem"));
    refused(&no_cert, "localhost", e.no_cert, e.secret);
}

#[test]
fn postgres_over_tls() {
    // pg_hba.conf: `hostnossl … tlsonly reject`, `hostssl … tlsonly trust clientcert=verify-ca`
    // (the password in the URL is unused, there to be hidden from errors).
    sql_over_tls(Sql {
        server: "postgres_tls",
        secret: "tlsonly-pw",
        mode: "sslmode",
        full: "verify-full",
        ca_only: "verify-ca",
        encrypt: "require",
        plain: "disable",
        files: ["sslrootcert", "sslcert", "sslkey"],
        no_tls: &["no encryption"],
        no_cert: &["certificate"],
    });
}

#[test]
fn mysql_over_tls() {
    // The user `idmint_tls` is created `REQUIRE X509`.
    sql_over_tls(Sql {
        server: "mysql_tls",
        secret: "idmint-tls-pw",
        mode: "ssl-mode",
        full: "VERIFY_IDENTITY",
        ca_only: "VERIFY_CA",
        encrypt: "REQUIRED",
        plain: "DISABLED",
        files: ["ssl-ca", "ssl-cert", "ssl-key"],
        no_tls: &["Access denied"],
        no_cert: &["Access denied"],
    });
}

#[test]
fn redis_over_tls_for_every_redis_user() {
    let (Some(base), Some(t)) = (server("redis_tls"), tls_dir()) else {
        return;
    };
    let tls = format!("ca={t}/ca.pem&cert={t}/client.pem&key={t}/client.key");
    let ok = format!("{base}?{tls}");
    // Segments (plain and sharded), leases, daily counters, Redis-minted snowflakes: one
    // connect path (segment::redis_client).
    draw(&format!("{ok}&prefix={}", unique("p"))).unwrap();
    draw(&format!(
        "{ok}&prefix={}&shards=2&shard_refill=10",
        unique("p")
    ))
    .unwrap();
    rt().block_on(async {
        let leases = open_lease_store(&format!("{ok}&prefix={}", unique("l")))
            .await
            .unwrap();
        let req =
            LeaseRequest::new(0, 3, "tls-test", Duration::from_secs(5), Duration::ZERO).unwrap();
        assert!(leases.acquire(&req).await.unwrap().is_some());
    });
    let counter = open_daily_counter(
        &ok,
        &unique("c").replace('_', "-"),
        &DailyCounterOptions::default(),
    )
    .unwrap();
    assert_eq!(counter.next(20260101).unwrap(), 1);
    assert_eq!(counter.next(20260101).unwrap(), 2);
    let gen = RedisSnowflake::builder()
        .urls(&ok)
        .prefix(&unique("sf"))
        .shard(1)
        .connect_blocking()
        .unwrap();
    let (a, b) = (gen.next_id().unwrap(), gen.next_id().unwrap());
    assert!(b > a);

    let other = format!("{base}?ca={t}/other-ca.pem&cert={t}/client.pem&key={t}/client.key");
    refused(&other, "localhost", BAD_CERT, "-");
    refused(
        &format!("{}?{tls}", wrong_host(&base)),
        "127.0.0.1",
        BAD_NAME,
        "-",
    );
    // Without a client certificate the server ends the handshake; a plain client gets no reply.
    refused(
        &format!("{base}?ca={t}/ca.pem"),
        "localhost",
        &["connecting", "certificate"],
        "-",
    );
    let plain = base.replacen("rediss://", "redis://:redis-pw@", 1);
    refused(
        &plain,
        "localhost",
        &["connecting", "closed", "timed out", "reset"],
        "redis-pw",
    );
}

/// etcd over TLS (`etcds://`, the TLS-only member of tests/servers.sh, which asks for a client
/// certificate): segments, leases and a daily counter work with the CA and client certificate;
/// another CA, another host name, no client certificate and a plain client are refused.
#[cfg(feature = "etcd")]
#[test]
fn etcd_over_tls() {
    let (Some(base), Some(t)) = (server("etcd_tls"), tls_dir()) else {
        return;
    };
    let tls = format!("ca={t}/ca.pem&cert={t}/client.pem&key={t}/client.key");
    let ok = format!("{base}?{tls}");
    draw(&format!("{ok}&prefix={}", unique("p"))).unwrap();
    rt().block_on(async {
        let leases = open_lease_store(&format!("{ok}&prefix={}", unique("l")))
            .await
            .unwrap();
        let req =
            LeaseRequest::new(0, 3, "tls-test", Duration::from_secs(5), Duration::ZERO).unwrap();
        assert!(leases.acquire(&req).await.unwrap().is_some());
    });
    let counter = open_daily_counter(
        &format!("{ok}&prefix={}", unique("c")),
        &unique("c").replace('_', "-"),
        &DailyCounterOptions::default(),
    )
    .unwrap();
    let first = counter.next(20260101).unwrap();
    assert!(counter.next(20260101).unwrap() > first);

    let other = format!("{base}?ca={t}/other-ca.pem&cert={t}/client.pem&key={t}/client.key");
    refused(&other, "localhost", BAD_CERT, "-");
    refused(
        &format!("{}?{tls}", wrong_host(&base)),
        "127.0.0.1",
        BAD_NAME,
        "-",
    );
    // Without a client certificate the member ends the handshake; a plain client gets no reply
    // it understands.
    refused(
        &format!("{base}?ca={t}/ca.pem"),
        "localhost",
        &["connecting", "certificate", "transport", "handshake"],
        "-",
    );
    let plain = base.replacen("etcds://", "etcd://me:etcd-pw@", 1);
    refused(
        &plain,
        "localhost",
        &["connecting", "transport", "closed", "reset", "timed out"],
        "etcd-pw",
    );
}
