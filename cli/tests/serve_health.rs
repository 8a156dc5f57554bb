//! `/readyz` applies the core's health rule (`idmint_core::health`, the rule of the packages'
//! `health()` and the Spring Boot starter's Actuator health): a tag with no IDs buffered whose
//! store calls failed takes the server out of rotation, with the core's reason.

mod serve_util;

use std::time::{Duration, Instant};

use reqwest::blocking::Client;
use serve_util::Served;

fn http() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

#[test]
fn readyz_is_down_while_a_tag_is_starved_by_a_failing_store() {
    // No `[segment] tags`: the server's own preload check stays out of it, only the core's
    // rule can turn /readyz off.
    let s = Served::start("store = \"sqlite:./idmint.db\"\n[segment]\nmax_wait_ms = 200\n");
    let c = http();
    let readyz = |c: &Client| {
        let r = c.get(format!("{}/readyz", s.admin_url())).send().unwrap();
        (r.status().as_u16(), r.text().unwrap())
    };
    let first = c
        .post(format!("{}/v1/segment/orders?count=1", s.url()))
        .send()
        .unwrap();
    assert!(first.status().is_success(), "{:?}", first.text());
    assert_eq!(readyz(&c), (200, "ready\n".to_string()));

    // The store stops answering for the tag: its table is gone, every refill fails.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
        let opts = SqliteConnectOptions::new()
            .filename(s.dir.join("idmint.db"))
            .busy_timeout(Duration::from_secs(120));
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(opts)
            .await
            .unwrap();
        sqlx::query("DROP TABLE idmint_segments")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    });

    // Hand out what is buffered until the server has none left for the tag: a run of `count`
    // contiguous IDs can fail while fewer are left, so the count halves down to one ID, which
    // fails only when nothing is buffered (after max_wait_ms).
    let started = Instant::now();
    let (mut served, mut count) = (0u64, 1000u64);
    loop {
        let r = c
            .post(format!("{}/v1/segment/orders/range?count={count}", s.url()))
            .send()
            .unwrap();
        if r.status().is_success() {
            served += count;
        } else if count == 1 {
            break;
        } else {
            count /= 2;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "still serving after {served} IDs:\n{}",
            s.log()
        );
    }

    // Nothing buffered and failed store calls: not ready, for the core's reason.
    let started = Instant::now();
    loop {
        let (status, text) = readyz(&c);
        if status == 503 {
            assert!(
                text.starts_with("not ready: tag `orders` has no IDs buffered and ")
                    && text.contains(" store call"),
                "{text}"
            );
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "/readyz still {status} {text:?} with the tag starved:\n{}",
            s.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `idmint probe` (the container image's HEALTHCHECK): 0 and the body while /readyz (or /healthz)
/// answers 200, 1 with the URL once nothing answers. The API address of the image
/// (`IDMINT_LISTEN=0.0.0.0:8080`, refused by serve without tokens) does not stop it.
#[test]
fn idmint_probe_asks_the_admin_listener() {
    let mut s = Served::start("store = \"memory:\"\n");
    let admin = format!("127.0.0.1:{}", s.admin_port);
    let dir = s.dir.clone();
    let probe = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_idmint"))
            .args(["probe", "--config", "config.toml", "--admin-listen", &admin])
            .args(extra)
            .current_dir(&dir)
            .env("IDMINT_LISTEN", "0.0.0.0:8080")
            .output()
            .unwrap()
    };
    let text = |b: &[u8]| String::from_utf8_lossy(b).trim().to_string();
    let out = probe(&[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "ready");
    let out = probe(&["--path", "/healthz"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "ok");

    assert_eq!(s.term(Duration::from_secs(60)), Some(0), "{}", s.log());
    let out = probe(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.starts_with(&format!("error: http://{admin}/readyz: ")),
        "{err}"
    );
}
