//! The listeners and the server's life: accept loops (plain or TLS, HTTP/1.1 and HTTP/2 on one
//! port), limits a slow or greedy client cannot get past, signals (SIGHUP reloads tokens and
//! TLS; SIGTERM and SIGINT drain and stop), the lease released on the way out.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};

use crate::config::{Config, TlsConfig};
use crate::{ServeError, Server};

/// TLS settings in force, swapped whole on SIGHUP.
pub type SharedTls = Arc<ArcSwap<rustls::ServerConfig>>;

/// Reads a `[tls]` section: the certificate chain, the key, and the client CA when set.
///
/// ```
/// let tls = idmint_server::config::TlsConfig { cert: "/nonexistent.pem".into(), key: "/k.pem".into(), client_ca: None };
/// let err = idmint_server::listen::tls_config(&tls).unwrap_err();
/// assert!(err.starts_with("tls.cert /nonexistent.pem"), "{err}");
/// ```
pub fn tls_config(tls: &TlsConfig) -> Result<rustls::ServerConfig, String> {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&tls.cert)
        .and_then(|it| it.collect::<Result<_, _>>())
        .map_err(|e| format!("tls.cert {}: {e}", tls.cert.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "tls.cert {}: no certificate in it",
            tls.cert.display()
        ));
    }
    let key = PrivateKeyDer::from_pem_file(&tls.key)
        .map_err(|e| format!("tls.key {}: {e}", tls.key.display()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("tls: {e}"))?;
    let builder = match &tls.client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for c in CertificateDer::pem_file_iter(ca)
                .map_err(|e| format!("tls.client_ca {}: {e}", ca.display()))?
            {
                let c = c.map_err(|e| format!("tls.client_ca {}: {e}", ca.display()))?;
                roots
                    .add(c)
                    .map_err(|e| format!("tls.client_ca {}: {e}", ca.display()))?;
            }
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .build()
            .map_err(|e| format!("tls.client_ca {}: {e}", ca.display()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder
        .with_single_cert(certs, key)
        .map_err(|e| format!("tls.key {}: {e}", tls.key.display()))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// One accept loop: until `stop` turns true, then waits for the connections' requests in
/// flight (at most `grace`).
async fn serve(
    listener: TcpListener,
    app: Router,
    tls: Option<SharedTls>,
    config: &Config,
    mut stop: watch::Receiver<bool>,
) {
    let limits = &config.limits;
    let header_timeout = Duration::from_millis(limits.header_read_timeout_ms);
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .max_buf_size(64 * 1024);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_header_list_size(64 * 1024)
        .keep_alive_interval(Some(Duration::from_secs(30)));
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = stop.changed() => break,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::warn!(%peer, max = limits.max_connections, "connection refused: at max_connections");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let builder = builder.clone();
        match &tls {
            None => {
                let conn = builder
                    .serve_connection(TokioIo::new(stream), service)
                    .into_owned();
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    if let Err(e) = conn.await {
                        tracing::debug!(%peer, error = %e, "connection ended");
                    }
                    drop(slot);
                });
            }
            Some(tls) => {
                let acceptor = tokio_rustls::TlsAcceptor::from(tls.load_full());
                let watcher = graceful.watcher();
                tokio::spawn(async move {
                    // The handshake is bounded like the headers: a client that opens a socket
                    // and sends nothing is dropped.
                    let stream =
                        match tokio::time::timeout(header_timeout, acceptor.accept(stream)).await {
                            Ok(Ok(s)) => s,
                            Ok(Err(e)) => {
                                tracing::debug!(%peer, error = %e, "TLS handshake refused");
                                return;
                            }
                            Err(_) => return,
                        };
                    let conn = builder
                        .serve_connection(TokioIo::new(stream), service)
                        .into_owned();
                    if let Err(e) = watcher.watch(conn).await {
                        tracing::debug!(%peer, error = %e, "connection ended");
                    }
                    drop(slot);
                });
            }
        }
    }
    drop(listener);
    let grace = Duration::from_millis(limits.shutdown_grace_ms);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(grace) => {
            tracing::warn!(grace_ms = limits.shutdown_grace_ms, "requests still in flight after the grace period");
        }
    }
}

async fn bind(addr: SocketAddr, key: &str) -> Result<TcpListener, ServeError> {
    TcpListener::bind(addr)
        .await
        .map_err(|e| ServeError::Listen(format!("{key} = {addr}: {e}")))
}

/// Starts logging as `log.format` and `log.level` say (once per process).
pub fn init_logging(config: &Config) {
    let level = match config.log.level.as_str() {
        "error" => tracing::Level::ERROR,
        "warn" => tracing::Level::WARN,
        "debug" => tracing::Level::DEBUG,
        "trace" => tracing::Level::TRACE,
        _ => tracing::Level::INFO,
    };
    use std::io::IsTerminal;
    let builder = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = if config.log.format == "json" {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

/// See [`crate::run`].
pub async fn run(config: Config) -> Result<(), ServeError> {
    let tls = match &config.tls {
        Some(t) => Some(Arc::new(ArcSwap::from_pointee(
            tls_config(t).map_err(|r| crate::config::bad("tls", r))?,
        ))),
        None => None,
    };
    let api = bind(config.listen, "listen").await?;
    let admin = bind(config.admin_listen, "admin_listen").await?;
    let server = Server::open(config.clone()).await?;
    tracing::info!(
        listen = %config.listen,
        admin = %config.admin_listen,
        store = %idmint_core::segment::describe_url(&config.store),
        layout = %server.ids.snowflake.layout().spec(),
        nodes = ?server.ids.snowflake.nodes(),
        tls = tls.is_some(),
        tokens = config.tokens.len(),
        "idmint serve: ready"
    );
    let (stop_tx, stop_rx) = watch::channel(false);
    // The admin listener stops last, so /readyz answers 503 (not "connection refused") while
    // the API drains.
    let (admin_stop_tx, admin_stop_rx) = watch::channel(false);
    let api_task = tokio::spawn({
        let (app, tls, config, stop) = (server.api_router(), tls.clone(), config.clone(), stop_rx);
        async move { serve(api, app, tls, &config, stop).await }
    });
    let admin_task = tokio::spawn({
        let (app, config, stop) = (
            crate::admin::router(server.clone()),
            config.clone(),
            admin_stop_rx,
        );
        async move { serve(admin, app, None, &config, stop).await }
    });
    signals(&server, tls.as_ref()).await;
    // Readiness off first, so a balancer stops sending. For `limits.drain_delay_ms` the API
    // still answers everything, each HTTP/1.1 answer with `Connection: close`, so clients stop
    // reusing their connections; only then does the listener close, and connections still idle
    // are closed: a request a client wrote just before SIGTERM is answered, not dropped.
    server.ids.accepting.store(false, Ordering::Release);
    tracing::info!(
        drain_delay_ms = config.limits.drain_delay_ms,
        "stopping: readiness off, draining requests in flight"
    );
    tokio::time::sleep(Duration::from_millis(config.limits.drain_delay_ms)).await;
    let _ = stop_tx.send(true);
    let _ = api_task.await;
    let _ = admin_stop_tx.send(true);
    let _ = admin_task.await;
    // The last handle on the generators: dropping the snowflake generator releases the node
    // lease with its fence (a blocking store call, so off the runtime's workers).
    let released = tokio::task::spawn_blocking(move || drop(server)).await;
    if released.is_err() {
        tracing::warn!("releasing the node lease failed; it expires after its TTL");
    }
    tracing::info!("stopped");
    Ok(())
}

/// Waits for SIGTERM or SIGINT; answers SIGHUP by reloading tokens and TLS.
async fn signals(server: &Arc<Server>, tls: Option<&SharedTls>) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        tracing::error!("cannot install signal handlers; stopping on Ctrl-C only");
        let _ = tokio::signal::ctrl_c().await;
        return;
    };
    loop {
        tokio::select! {
            _ = term.recv() => return,
            _ = int.recv() => return,
            _ = hup.recv() => {
                match server.reload() {
                    Ok(()) => tracing::info!("SIGHUP: tokens reloaded"),
                    Err(e) => tracing::error!(error = %e, "SIGHUP: configuration not reloaded; the old tokens stay"),
                }
                if let (Some(tls), Some(t)) = (tls, server.config.tls.as_ref()) {
                    match tls_config(t) {
                        Ok(c) => {
                            tls.store(Arc::new(c));
                            tracing::info!("SIGHUP: TLS certificate reloaded");
                        }
                        Err(e) => tracing::error!(error = %e, "SIGHUP: TLS not reloaded; the old certificate stays"),
                    }
                }
            }
        }
    }
}
