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

/// What a listener serves: the API (its router behind [`crate::edge::Edge`]) or the admin
/// router.
trait Served:
    tower::Service<
        axum::http::Request<hyper::body::Incoming>,
        Response = axum::response::Response,
        Error = std::convert::Infallible,
        Future: Send + 'static,
    > + Clone
    + Send
    + 'static
{
}

impl<S> Served for S where
    S: tower::Service<
            axum::http::Request<hyper::body::Incoming>,
            Response = axum::response::Response,
            Error = std::convert::Infallible,
            Future: Send + 'static,
        > + Clone
        + Send
        + 'static
{
}

/// One accept loop: until `stop` turns true; then every connection the kernel already accepted
/// (the listener's backlog) is taken too, the listener closed, and the connections' requests
/// waited for (at most `grace`).
async fn serve<S>(
    listener: TcpListener,
    app: S,
    tls: Option<SharedTls>,
    config: &Config,
    mut stop: watch::Receiver<bool>,
) where
    S: Served,
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
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let conns = Conns {
        builder,
        app,
        tls,
        header_timeout,
        stop: stop.clone(),
        slots: slots.clone(),
        max_connections: limits.max_connections,
    };
    loop {
        let (stream, peer) = tokio::select! {
            // A stop seen first: what is queued is taken below, by the same rule.
            biased;
            () = until_true(&mut stop) => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        conns.spawn(stream, peer);
    }
    // Clients whose connect completed in the kernel's backlog before the listener closes have a
    // connection as far as they know, and may have written a request on it: take each (a
    // non-blocking accept until none is left) and answer it, instead of resetting them.
    match listener.into_std() {
        Ok(std_listener) => {
            while let Ok((stream, peer)) = std_listener.accept() {
                let stream = stream
                    .set_nonblocking(true)
                    .and_then(|()| tokio::net::TcpStream::from_std(stream));
                match stream {
                    Ok(stream) => conns.spawn(stream, peer),
                    Err(e) => tracing::debug!(%peer, error = %e, "queued connection lost"),
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "the backlog could not be read before closing"),
    }
    let grace = Duration::from_millis(limits.shutdown_grace_ms);
    // Every connection holds a slot until it ends: all slots back, all connections done.
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    if tokio::time::timeout(grace, slots.acquire_many(all))
        .await
        .is_err()
    {
        tracing::warn!(
            grace_ms = limits.shutdown_grace_ms,
            "requests still in flight after the grace period"
        );
    }
}

/// Until the flag is true (at once if it is; a dropped sender counts as true: nothing will change).
async fn until_true(flag: &mut watch::Receiver<bool>) {
    let _ = flag.wait_for(|s| *s).await;
}

/// What a listener's connections are served with.
struct Conns<S> {
    builder: auto::Builder<TokioExecutor>,
    app: S,
    tls: Option<SharedTls>,
    header_timeout: Duration,
    stop: watch::Receiver<bool>,
    slots: Arc<Semaphore>,
    max_connections: usize,
}

impl<S> Conns<S>
where
    S: Served,
{
    /// Serves one accepted connection on a task of its own, holding one of the
    /// `max_connections` slots (none free: the connection is closed).
    fn spawn(&self, stream: tokio::net::TcpStream, peer: SocketAddr) {
        let Ok(slot) = self.slots.clone().try_acquire_owned() else {
            tracing::warn!(%peer, max = self.max_connections, "connection refused: at max_connections");
            return;
        };
        let _ = stream.set_nodelay(true);
        let (builder, app, stop, header_timeout) = (
            self.builder.clone(),
            self.app.clone(),
            self.stop.clone(),
            self.header_timeout,
        );
        match &self.tls {
            None => {
                tokio::spawn(async move {
                    connection(builder, stream, app, stop, header_timeout, peer).await;
                    drop(slot);
                });
            }
            Some(tls) => {
                let acceptor = tokio_rustls::TlsAcceptor::from(tls.load_full());
                tokio::spawn(async move {
                    // The handshake is bounded like the headers: a client that opens a socket
                    // and sends nothing is dropped.
                    match tokio::time::timeout(header_timeout, acceptor.accept(stream)).await {
                        Ok(Ok(s)) => connection(builder, s, app, stop, header_timeout, peer).await,
                        Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake refused"),
                        Err(_) => {}
                    }
                    drop(slot);
                });
            }
        }
    }
}

/// One connection, served until it ends; once `stop` turns true it is shut down gracefully
/// (HTTP/1.1: after the answer in progress; HTTP/2: GOAWAY, streams in flight finish). Not
/// before its first request has come, though: a graceful shutdown of a connection still being
/// read for its protocol drops it unanswered (hyper-util cancels it), and its client, whose
/// connect the kernel completed, may be writing that request this instant. So it gets until
/// `header_timeout` after the stop to send it.
async fn connection<I, S>(
    builder: auto::Builder<TokioExecutor>,
    io: I,
    app: S,
    mut stop: watch::Receiver<bool>,
    header_timeout: Duration,
    peer: SocketAddr,
) where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    S: Served,
{
    use tower::ServiceExt;
    let (asked_tx, mut asked) = watch::channel(false);
    let asked_tx = Arc::new(asked_tx);
    let service = TowerToHyperService::new(app.map_request(move |req| {
        asked_tx.send_replace(true);
        req
    }));
    let conn = builder.serve_connection(TokioIo::new(io), service);
    tokio::pin!(conn);
    let ended = tokio::select! {
        r = conn.as_mut() => Some(r),
        () = until_true(&mut stop) => None,
    };
    let result = match ended {
        Some(r) => r,
        None => {
            let first = tokio::select! {
                r = conn.as_mut() => Some(r),
                asked = tokio::time::timeout(header_timeout, until_true(&mut asked)) => match asked {
                    // A request came (or had come): answer it, then close.
                    Ok(_) => None,
                    // Nothing was sent: the connection is dropped.
                    Err(_) => return,
                },
            };
            match first {
                Some(r) => r,
                None => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            }
        }
    };
    if let Err(e) = result {
        tracing::debug!(%peer, error = %e, "connection ended");
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// A server that answers `GET /` with `hi`.
    fn app() -> axum::Router {
        axum::Router::new().route("/", axum::routing::get(|| async { "hi" }))
    }

    fn request(stream: &mut std::net::TcpStream) {
        stream
            .write_all(b"GET / HTTP/1.1\r\nhost: test\r\n\r\n")
            .unwrap();
    }

    /// The whole answer: the server closes the connection after it (a graceful shutdown).
    fn answer(mut stream: std::net::TcpStream) -> String {
        let mut out = Vec::new();
        let _ = stream.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Clients whose connect the kernel completed (the listener's backlog) and who wrote their
    /// request are answered, though the stop came before the server took their connection:
    /// the server's stop is sent before its accept loop starts, the instant before it would
    /// close the listener.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stop_answers_the_connections_queued_in_the_backlog() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let clients: Vec<std::net::TcpStream> = (0..16)
            .map(|_| {
                let mut c = std::net::TcpStream::connect(addr).unwrap();
                request(&mut c);
                c
            })
            .collect();
        let (stop_tx, stop_rx) = watch::channel(false);
        stop_tx.send_replace(true);
        serve(listener, app(), None, &Config::default(), stop_rx).await;
        for (i, c) in clients.into_iter().enumerate() {
            let got = tokio::task::spawn_blocking(move || answer(c))
                .await
                .unwrap();
            assert!(
                got.starts_with("HTTP/1.1 200") && got.ends_with("hi"),
                "client {i}: {got:?}"
            );
        }
    }

    /// A connection the server took but on which nothing was sent yet when the stop came (its
    /// client connected, then writes its request) is answered, not cut.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stop_answers_a_connection_whose_request_comes_after_it() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop_tx, stop_rx) = watch::channel(false);
        let server = tokio::spawn(async move {
            serve(listener, app(), None, &Config::default(), stop_rx).await;
        });
        let quiet = std::net::TcpStream::connect(addr).unwrap();
        // A second client, answered: the server accepts in order, so it took `quiet` first.
        let mut other = std::net::TcpStream::connect(addr).unwrap();
        other
            .write_all(b"GET / HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n")
            .unwrap();
        let got = tokio::task::spawn_blocking(move || answer(other))
            .await
            .unwrap();
        assert!(got.ends_with("hi"), "{got:?}");
        stop_tx.send_replace(true);
        // The stop has reached the accept loop once the listener is closed: a connect is
        // refused. (One that still gets through is taken from the backlog and dropped here.)
        tokio::task::spawn_blocking(move || while std::net::TcpStream::connect(addr).is_ok() {})
            .await
            .unwrap();
        let got = tokio::task::spawn_blocking(move || {
            let mut quiet = quiet;
            request(&mut quiet);
            answer(quiet)
        })
        .await
        .unwrap();
        assert!(
            got.starts_with("HTTP/1.1 200") && got.ends_with("hi"),
            "{got:?}"
        );
        server.await.unwrap();
    }
}
