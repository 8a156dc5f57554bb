//! The listeners and the server's life: accept loops (plain or TLS, HTTP/1.1 and HTTP/2 on one
//! port), limits a slow or greedy client cannot get past, signals (SIGHUP reloads tokens and
//! TLS; SIGTERM and SIGINT drain and stop), the lease released on the way out.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
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
async fn serve<S>(
    listener: TcpListener,
    app: S,
    tls: Option<SharedTls>,
    config: &Config,
    mut stop: watch::Receiver<bool>,
) where
    S: tower::Service<
            axum::http::Request<hyper::body::Incoming>,
            Response = axum::response::Response,
            Error = std::convert::Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
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
    // The handlers first, before anything can tell the world this process exists: a SIGTERM
    // that lands the instant "ready" is logged (Kubernetes and systemd send it at any moment)
    // must drain, and a SIGHUP must reload, never get the default action that kills.
    let mut signals = Signals::install()?;
    let tls = match &config.tls {
        Some(t) => Some(Arc::new(ArcSwap::from_pointee(
            tls_config(t).map_err(|r| crate::config::bad("tls", r))?,
        ))),
        None => None,
    };
    let api = bind(config.listen, "listen").await?;
    let admin = bind(config.admin_listen, "admin_listen").await?;
    let bound = Bound::of(&api, &admin)?;
    // Opening waits on the store (the lease, the preloaded tags): a SIGTERM meanwhile stops
    // the start instead of waiting for it.
    let server = loop {
        tokio::select! {
            opened = Server::open(config.clone()) => break opened?,
            signal = signals.next() => match signal {
                Signal::Stop => {
                    tracing::info!("stopped before ready");
                    return Ok(());
                }
                Signal::Reload => tracing::info!("SIGHUP while starting: the configuration is read as the server starts"),
            },
        }
    };
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
    tracing::info!(
        listen = %bound.listen,
        admin = %bound.admin_listen,
        store = %idmint_core::segment::describe_url(&config.store),
        layout = %server.ids.snowflake.layout().spec(),
        nodes = ?server.ids.snowflake.nodes(),
        tls = tls.is_some(),
        tokens = config.tokens.len(),
        "idmint serve: ready"
    );
    // The core decides when a layout is near enough its end to say so.
    if let Some(warning) = server.ids.snowflake.lifetime_warning() {
        tracing::warn!("{warning}");
    }
    if let Some(path) = &config.ready_file {
        bound.write(path)?;
    }
    // Only now does /readyz say ready: whoever acts on it finds the handlers in place.
    server.ids.started.store(true, Ordering::Release);
    signals.serve(&server, tls.as_ref()).await;
    if let Some(path) = &config.ready_file {
        let _ = std::fs::remove_file(path);
    }
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
    // No request is in flight any more: the unused tails of the segment ranges this server
    // holds go back to the store where nobody allocated after them (bounded by the segment
    // client's op timeout), so a restart carries on where this process stopped.
    let given = server.ids.segments.close_async().await;
    tracing::info!(
        ids = given,
        "segment ranges: unused tails given back to the store"
    );
    // The last handle on the generators: dropping the snowflake generator releases the node
    // lease with its fence (a blocking store call, so off the runtime's workers).
    let released = tokio::task::spawn_blocking(move || drop(server)).await;
    if released.is_err() {
        tracing::warn!("releasing the node lease failed; it expires after its TTL");
    }
    tracing::info!("stopped");
    Ok(())
}

/// The addresses the listeners actually bound (the OS's pick where the configuration said port
/// 0), as the ready file gives them.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let api = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// let admin = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// let bound = idmint_server::listen::Bound::of(&api, &admin).unwrap();
/// assert_ne!(bound.listen.port(), 0);
/// let json: serde_json::Value = serde_json::from_str(&bound.to_json()).unwrap();
/// assert_eq!(json["listen"], bound.listen.to_string());
/// # });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// The API listener's address.
    pub listen: SocketAddr,
    /// The admin listener's address.
    pub admin_listen: SocketAddr,
}

impl Bound {
    /// The local addresses of the two listeners.
    pub fn of(api: &TcpListener, admin: &TcpListener) -> Result<Bound, ServeError> {
        let local = |l: &TcpListener, key: &str| {
            l.local_addr()
                .map_err(|e| ServeError::Listen(format!("{key}: the bound address: {e}")))
        };
        Ok(Bound {
            listen: local(api, "listen")?,
            admin_listen: local(admin, "admin_listen")?,
        })
    }

    /// `{"listen":"127.0.0.1:34567","admin_listen":"127.0.0.1:34568","pid":4242}`.
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "listen": self.listen.to_string(),
            "admin_listen": self.admin_listen.to_string(),
            "pid": std::process::id(),
        })
        .to_string()
    }

    /// Writes [`Bound::to_json`] to `path` whole: to a temporary file beside it, renamed, so a
    /// reader never sees half of it.
    fn write(&self, path: &std::path::Path) -> Result<(), ServeError> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        std::fs::write(&tmp, self.to_json() + "\n")
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| ServeError::Listen(format!("ready_file = {}: {e}", path.display())))
    }
}

/// What a signal asks of the server.
enum Signal {
    /// SIGTERM or SIGINT: drain and stop.
    Stop,
    /// SIGHUP: reload tokens and TLS.
    Reload,
}

/// The handlers of SIGTERM, SIGINT and SIGHUP, installed once at the very start; signals that
/// arrive before anyone waits on them are kept, not lost.
struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl Signals {
    fn install() -> Result<Signals, ServeError> {
        use tokio::signal::unix::{signal, SignalKind};
        let install = |kind: SignalKind, name: &str| {
            signal(kind)
                .map_err(|e| ServeError::Listen(format!("cannot install the {name} handler: {e}")))
        };
        Ok(Signals {
            term: install(SignalKind::terminate(), "SIGTERM")?,
            int: install(SignalKind::interrupt(), "SIGINT")?,
            hup: install(SignalKind::hangup(), "SIGHUP")?,
        })
    }

    async fn next(&mut self) -> Signal {
        tokio::select! {
            _ = self.term.recv() => Signal::Stop,
            _ = self.int.recv() => Signal::Stop,
            _ = self.hup.recv() => Signal::Reload,
        }
    }

    /// Until SIGTERM or SIGINT; answers SIGHUP by reloading tokens and TLS.
    async fn serve(&mut self, server: &Arc<Server>, tls: Option<&SharedTls>) {
        while let Signal::Reload = self.next().await {
            match server.reload() {
                Ok(()) => tracing::info!("SIGHUP: tokens reloaded"),
                Err(e) => {
                    tracing::error!(error = %e, "SIGHUP: configuration not reloaded; the old tokens stay")
                }
            }
            if let (Some(tls), Some(t)) = (tls, server.config.tls.as_ref()) {
                match tls_config(t) {
                    Ok(c) => {
                        tls.store(Arc::new(c));
                        tracing::info!("SIGHUP: TLS certificate reloaded");
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "SIGHUP: TLS not reloaded; the old certificate stays")
                    }
                }
            }
        }
    }
}
