//! The baseline of the server bench (server/bench.sh, docs/bench/server.md): the stack `idmint
//! serve` runs on, with no idmint in it. The same tokio multi-thread runtime, axum 0.8 and the
//! same kind of hyper-util accept loop as `idmint_server::listen` (auto HTTP/1.1 + HTTP/2
//! builder with the same timer, header timeout and buffer limit, `TCP_NODELAY`, a connection
//! semaphore, graceful shutdown), one `POST /bare` route answering a constant small JSON body.
//! No store, no auth, no metrics, no body-limit or timeout layers: what idmint's routes cost on
//! top of this is what the bench compares.
//!
//! ```text
//! cargo run --release -p idmint-server --example bare_axum -- 127.0.0.1:18080
//! curl -X POST http://127.0.0.1:18080/bare   # {"ids":["1"]}
//! ```
//!
//! Stops on SIGTERM or SIGINT.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// About the size of idmint's answer to one ID (`{"ids":["1541815603606036480"]}`).
const BODY: &str = r#"{"ids":["1541815603606036480"]}"#;

async fn bare() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], BODY)
}

async fn serve(listener: TcpListener, app: Router) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(10))
        .max_buf_size(64 * 1024);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_header_list_size(64 * 1024)
        .keep_alive_interval(Some(Duration::from_secs(30)));
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(10_000));
    let stop = shutdown_signal();
    tokio::pin!(stop);
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let conn = builder
            .serve_connection(TokioIo::new(stream), service)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(slot);
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(Duration::from_secs(5)) => {}
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        let _ = tokio::signal::ctrl_c().await;
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}

fn main() -> std::io::Result<()> {
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18080".into())
        .parse()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("bare-axum")
        .build()?;
    runtime.block_on(async {
        let listener = TcpListener::bind(addr).await?;
        eprintln!("bare_axum: listening on {}", listener.local_addr()?);
        let app = Router::new().route("/bare", post(bare));
        serve(listener, app).await;
        Ok::<(), std::io::Error>(())
    })?;
    runtime.shutdown_background();
    Ok(())
}
