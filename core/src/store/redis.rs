//! How every Redis user in core (segments, leases, daily counters, RedisSnowflake) reaches
//! Redis: one server, a master found through Sentinel, or a Cluster; and how it runs a write
//! so that a failover cannot lose it.
//!
//! # URLs
//!
//! - `redis://[user:pass@]host:port[/db]`, `rediss://…` (TLS): one server.
//! - `redis+sentinel://[user:pass@]s1:p1,s2:p2/MASTER[/db]`, `rediss+sentinel://…`: the master
//!   the sentinels name `MASTER`. The password is the Redis servers'; sentinels are asked without
//!   one. The master is asked of the sentinels again after every connection error, so a client
//!   follows a failover by itself.
//! - `redis+cluster://[user:pass@]h1:p1,h2:p2[/]`, `rediss+cluster://…`: a Redis Cluster, any of
//!   its nodes as a start; the redis crate's cluster client follows `MOVED` and `ASK`.
//!
//! Options: `ca=`, `cert=`, `key=` (TLS files, see [`redis_client`]) and
//! `replicas=N`, the replicas that must hold every write before it counts (`WAIT N`): 1 by
//! default on Sentinel and Cluster, 0 on one server.
//!
//! # Durability across a failover
//!
//! Replication is asynchronous: a master may acknowledge a range and die before a replica has
//! it, and the replica it promotes would hand the range out again. So each script that writes
//! runs in one pipeline with `WAIT replicas timeout` on the same connection, and fewer
//! acknowledgements than asked is a store error: the range, lease or number is never used.

use std::time::Duration;

use redis::aio::{ConnectionLike, MultiplexedConnection};
use redis::cluster::{ClusterClient, ClusterClientBuilder};
use redis::sentinel::{SentinelClientBuilder, SentinelServerType};
use redis::{
    AsyncConnectionConfig, Client, Cmd, ConnectionAddr, ErrorKind, FromRedisValue, Pipeline,
    RedisError, RedisFuture, RedisResult, TlsMode, ToRedisArgs, Value,
};
use tokio::sync::Mutex;

use super::params::{self, Use};
use super::url::{describe_url, Engine};
use crate::{Error, Result};

/// The TLS options of a Redis URL: the CA that signs the servers' certificates (instead of the
/// system's roots), and the client certificate and key for a server that asks for one
/// (`tls-auth-clients yes`). Files in PEM.
const TLS_OPTIONS: [&str; 3] = ["ca", "cert", "key"];

/// The most replicas `replicas=` may ask for.
const MAX_REPLICAS: u32 = 64;

/// How a URL reaches Redis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Topology {
    Single,
    Sentinel,
    Cluster,
}

enum Link {
    Single(Client),
    /// Kept as parts: a fresh sentinel client asks the sentinels for the master each time.
    Sentinel(SentinelParts),
    Cluster(ClusterClient),
}

#[derive(Clone)]
struct SentinelParts {
    sentinels: Vec<ConnectionAddr>,
    master: String,
    tls: bool,
    certs: Option<redis::TlsCertificates>,
    db: i64,
    username: Option<String>,
    password: Option<String>,
}

impl SentinelParts {
    fn client(&self) -> RedisResult<redis::sentinel::SentinelClient> {
        let mut b = SentinelClientBuilder::new(
            self.sentinels.clone(),
            self.master.clone(),
            SentinelServerType::Master,
        )?
        .set_client_to_redis_db(self.db);
        if let Some(u) = &self.username {
            b = b.set_client_to_redis_username(u.clone());
        }
        if let Some(p) = &self.password {
            b = b.set_client_to_redis_password(p.clone());
        }
        if self.tls {
            b = b
                .set_client_to_redis_tls_mode(TlsMode::Secure)
                .set_client_to_sentinel_tls_mode(TlsMode::Secure);
            if let Some(c) = &self.certs {
                b = b
                    .set_client_to_redis_certificates(c.clone())
                    .set_client_to_sentinel_certificates(c.clone());
            }
        }
        b.build()
    }
}

/// A parsed Redis URL: where the servers are, and how many replicas must hold each write.
pub(crate) struct Target {
    link: Link,
    describe: String,
    replicas: u32,
    timeout: Duration,
}

fn invalid(value: String, expected: &str) -> Error {
    Error::InvalidArgument {
        name: "url".into(),
        value,
        expected: expected.into(),
    }
}

impl Target {
    /// Parses a URL (see [the module](self)); connects and replies are bounded by `timeout`.
    pub(crate) fn parse(url: &str, timeout: Duration) -> Result<Target> {
        let describe = describe_url(url);
        let unavailable = |reason: String| Error::StoreUnavailable {
            store: describe.clone(),
            reason,
        };
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let (mut kept, mut files, mut replicas) = (Vec::new(), [None, None, None], None);
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            if k == "replicas" {
                replicas = Some(
                    v.parse::<u32>()
                        .ok()
                        .filter(|n| *n <= MAX_REPLICAS)
                        .ok_or_else(|| Error::InvalidArgument {
                            name: "replicas".into(),
                            value: v.into(),
                            expected: format!(
                                "0..={MAX_REPLICAS} (replicas that must hold each write)"
                            ),
                        })?,
                );
                continue;
            }
            match TLS_OPTIONS.iter().position(|o| *o == k) {
                Some(_) if v.is_empty() => {
                    return Err(invalid(format!("{describe}?{k}="), "a file path after `=`"))
                }
                Some(i) => files[i] = Some(v),
                None => kept.push(pair),
            }
        }
        let (scheme, rest) = base.split_once("://").unwrap_or((base, ""));
        let scheme = scheme.to_ascii_lowercase();
        let tls = scheme.starts_with("rediss");
        let topology = match scheme.as_str() {
            "redis" | "rediss" => Topology::Single,
            "redis+sentinel" | "rediss+sentinel" => Topology::Sentinel,
            "redis+cluster" | "rediss+cluster" => Topology::Cluster,
            _ => {
                return Err(invalid(
                    describe,
                    "redis://, rediss://, redis+sentinel://, rediss+sentinel://, redis+cluster:// or rediss+cluster://",
                ))
            }
        };
        // Every option left is the link's or the redis crate's (a store's own, `prefix=`,
        // `shards=`, were taken out by its options): the crate ignores ones it does not know,
        // so they are refused here by name.
        params::check(url, Engine::Redis, Use::Link)?;
        if !tls && files.iter().any(Option::is_some) {
            return Err(invalid(
                describe.clone(),
                "a rediss:// URL: ca=, cert= and key= are TLS options",
            ));
        }
        let read = |path: Option<&str>| -> Result<Option<Vec<u8>>> {
            path.map(|p| std::fs::read(p).map_err(|e| unavailable(format!("reading `{p}`: {e}"))))
                .transpose()
        };
        let [ca, cert, key] = files;
        let client_tls = match (read(cert)?, read(key)?) {
            (Some(client_cert), Some(client_key)) => Some(redis::ClientTlsConfig {
                client_cert,
                client_key,
            }),
            (None, None) => None,
            _ => {
                return Err(invalid(
                    describe.clone(),
                    "both cert= and key= (a client certificate needs its key), or neither",
                ))
            }
        };
        let root_cert = read(ca)?;
        let certs =
            (client_tls.is_some() || root_cert.is_some()).then_some(redis::TlsCertificates {
                client_tls,
                root_cert,
            });
        let parse = |e: RedisError| unavailable(format!("parsing the URL: {e}"));
        let link = if topology == Topology::Single {
            let url = if kept.is_empty() {
                base.to_string()
            } else {
                format!("{base}?{}", kept.join("&"))
            };
            match certs {
                None => Link::Single(Client::open(url.as_str()).map_err(parse)?),
                Some(c) => Link::Single(Client::build_with_tls(url.as_str(), c).map_err(parse)?),
            }
        } else {
            if let Some(k) = kept.first() {
                return Err(invalid(
                    format!("{describe}?{k}"),
                    "replicas=, ca=, cert= or key= (the only options of a sentinel or cluster URL)",
                ));
            }
            let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
            let (auth, hosts) = match authority.rsplit_once('@') {
                Some((a, h)) => (Some(a), h),
                None => (None, authority),
            };
            let (username, password) = match auth {
                None => (None, None),
                Some(a) => {
                    let (u, p) = a.split_once(':').unwrap_or((a, ""));
                    let dec = |s: &str| {
                        percent_decode(s).ok_or_else(|| {
                            invalid(describe.clone(), "a user and password in %-encoded UTF-8")
                        })
                    };
                    (
                        Some(dec(u)?).filter(|u| !u.is_empty()),
                        Some(dec(p)?).filter(|p| !p.is_empty()),
                    )
                }
            };
            let mut addrs = Vec::new();
            for h in hosts.split(',').filter(|h| !h.is_empty()) {
                let default_port = Engine::Redis.info().default_port.unwrap_or(6379);
                let (host, port) = match h.rsplit_once(':') {
                    Some((host, port)) => (host, port.to_string()),
                    None => (h, default_port.to_string()),
                };
                let host = host.trim_start_matches('[').trim_end_matches(']');
                let port = port.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(|| {
                    invalid(
                        format!("{describe} (host `{h}`)"),
                        "host:port, port 1..=65535",
                    )
                })?;
                if host.is_empty() {
                    return Err(invalid(
                        describe.clone(),
                        "host:port pairs, comma separated",
                    ));
                }
                addrs.push((host.to_string(), port));
            }
            if addrs.is_empty() {
                return Err(invalid(describe.clone(), "at least one host:port"));
            }
            if topology == Topology::Cluster {
                if !path.is_empty() {
                    return Err(invalid(
                        describe.clone(),
                        "no database or path: a cluster has database 0 only",
                    ));
                }
                let single = if tls { "rediss" } else { "redis" };
                let nodes: Vec<String> = addrs
                    .iter()
                    .map(|(h, p)| {
                        let host = if h.contains(':') {
                            format!("[{h}]")
                        } else {
                            h.clone()
                        };
                        format!("{single}://{host}:{p}")
                    })
                    .collect();
                let mut b = ClusterClientBuilder::new(nodes)
                    .connection_timeout(timeout)
                    .response_timeout(timeout)
                    // Retries are what carry a call across a failover; the caller's own
                    // timeout bounds them.
                    .retries(8)
                    .min_retry_wait(50)
                    .max_retry_wait(500);
                if let Some(u) = username {
                    b = b.username(u);
                }
                if let Some(p) = password {
                    b = b.password(p);
                }
                if let Some(c) = certs {
                    b = b.certs(c);
                }
                Link::Cluster(b.build().map_err(parse)?)
            } else {
                let mut parts = path.split('/').filter(|s| !s.is_empty());
                let master = parts.next().ok_or_else(|| {
                    invalid(
                        describe.clone(),
                        "redis+sentinel://host:port[,host:port…]/MASTER_NAME[/db]",
                    )
                })?;
                let db = match parts.next() {
                    None => 0,
                    Some(d) => d.parse::<i64>().ok().filter(|d| *d >= 0).ok_or_else(|| {
                        invalid(
                            describe.clone(),
                            "a database number after the master's name",
                        )
                    })?,
                };
                let sentinels = addrs
                    .into_iter()
                    .map(|(host, port)| {
                        if tls {
                            ConnectionAddr::TcpTls {
                                host,
                                port,
                                insecure: false,
                                tls_params: None,
                            }
                        } else {
                            ConnectionAddr::Tcp(host, port)
                        }
                    })
                    .collect();
                let parts = SentinelParts {
                    sentinels,
                    master: master.to_string(),
                    tls,
                    certs,
                    db,
                    username,
                    password,
                };
                // Checks the parts once, so a bad URL fails here rather than at first use.
                parts.client().map_err(parse)?;
                Link::Sentinel(parts)
            }
        };
        let replicas = replicas.unwrap_or(match topology {
            Topology::Single => 0,
            _ => 1,
        });
        Ok(Target {
            link,
            describe,
            replicas,
            timeout,
        })
    }

    pub(crate) fn topology(&self) -> Topology {
        match self.link {
            Link::Single(_) => Topology::Single,
            Link::Sentinel(_) => Topology::Sentinel,
            Link::Cluster(_) => Topology::Cluster,
        }
    }

    /// The one-server client, for callers that take only `redis://` / `rediss://`.
    pub(crate) fn into_single(self) -> Option<Client> {
        match self.link {
            Link::Single(c) => Some(c),
            _ => None,
        }
    }

    /// How long `WAIT` waits for the replicas: half the reply timeout, so `WAIT` answers
    /// (with too few acknowledgements) before the connection gives up on it.
    fn wait_ms(&self) -> u64 {
        (self.timeout.as_millis() as u64 / 2).max(1)
    }

    pub(crate) async fn connect(&self) -> RedisResult<Conn> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(self.timeout)
            .set_response_timeout(self.timeout);
        Ok(match &self.link {
            Link::Single(c) => Conn::Single(
                c.get_multiplexed_async_connection_with_config(&config)
                    .await?,
            ),
            Link::Sentinel(p) => Conn::Single(
                p.client()?
                    .get_async_connection_with_config(&config)
                    .await?,
            ),
            Link::Cluster(c) => Conn::Cluster(c.get_async_connection().await?),
        })
    }

    /// A blocking connection (the daily counter's), connecting within `timeout`.
    pub(crate) fn connect_sync(&self, timeout: Duration) -> RedisResult<SyncConn> {
        Ok(match &self.link {
            Link::Single(c) => SyncConn::Single(c.get_connection_with_timeout(timeout)?),
            Link::Sentinel(p) => SyncConn::Single(
                p.client()?
                    .get_client()?
                    .get_connection_with_timeout(timeout)?,
            ),
            Link::Cluster(c) => SyncConn::Cluster(Box::new(c.get_connection()?)),
        })
    }

    /// The pipeline that runs `call` and then, when replicas must hold the write, `WAIT`.
    fn pipeline(&self, call: &Call<'_>, by_hash: bool) -> Pipeline {
        let mut p = redis::pipe();
        p.add_command(call.cmd(by_hash));
        if self.replicas > 0 {
            p.cmd("WAIT").arg(self.replicas).arg(self.wait_ms());
        }
        p
    }

    /// The script's reply, once the replicas acknowledged it.
    fn settle<T: FromRedisValue>(&self, mut values: Vec<Value>) -> RedisResult<T> {
        if self.replicas > 0 {
            let acks: i64 = redis::from_redis_value(values.get(1).unwrap_or(&Value::Nil))?;
            if acks < self.replicas as i64 {
                return Err(RedisError::from((
                    ErrorKind::ResponseError,
                    "WAIT",
                    format!(
                        "{acks} of {} replicas acknowledged the write within {} ms, so it is not used (a failover could lose it; `replicas=` in the URL sets how many must)",
                        self.replicas,
                        self.wait_ms()
                    ),
                )));
            }
        }
        redis::from_owned_redis_value(values.swap_remove(0))
    }

    /// Runs a script on an async connection: `EVALSHA` (`EVAL` after `NOSCRIPT`), then `WAIT`.
    pub(crate) async fn run_async<T: FromRedisValue>(
        &self,
        conn: &mut Conn,
        call: &Call<'_>,
    ) -> RedisResult<T> {
        let values = match self.pipeline(call, true).query_async(conn).await {
            Err(e) if e.kind() == ErrorKind::NoScriptError => {
                self.pipeline(call, false).query_async(conn).await?
            }
            other => other?,
        };
        self.settle(values)
    }

    /// [`run_async`](Self::run_async) on a blocking connection.
    pub(crate) fn run_sync<T: FromRedisValue>(
        &self,
        conn: &mut SyncConn,
        call: &Call<'_>,
    ) -> RedisResult<T> {
        let values = match self.pipeline(call, true).query(conn) {
            Err(e) if e.kind() == ErrorKind::NoScriptError => {
                self.pipeline(call, false).query(conn)?
            }
            other => other?,
        };
        self.settle(values)
    }
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A Lua script: its text and its SHA-1, for `EVALSHA` and `EVAL`.
pub(crate) struct Lua {
    code: &'static str,
    hash: String,
}

impl Lua {
    pub(crate) fn new(code: &'static str) -> Lua {
        Lua {
            code,
            hash: redis::Script::new(code).get_hash().to_string(),
        }
    }

    /// A call, to be given its keys and arguments.
    pub(crate) fn call(&self) -> Call<'_> {
        Call {
            lua: self,
            keys: Vec::new(),
            args: Vec::new(),
        }
    }
}

/// One call of a [`Lua`] script: every key it touches is in `KEYS`, so a cluster can route it.
pub(crate) struct Call<'a> {
    lua: &'a Lua,
    keys: Vec<Vec<u8>>,
    args: Vec<Vec<u8>>,
}

impl Call<'_> {
    pub(crate) fn key<T: ToRedisArgs>(&mut self, key: T) -> &mut Self {
        self.keys.extend(key.to_redis_args());
        self
    }

    pub(crate) fn arg<T: ToRedisArgs>(&mut self, arg: T) -> &mut Self {
        self.args.extend(arg.to_redis_args());
        self
    }

    fn cmd(&self, by_hash: bool) -> Cmd {
        let mut c = if by_hash {
            let mut c = redis::cmd("EVALSHA");
            c.arg(&self.lua.hash);
            c
        } else {
            let mut c = redis::cmd("EVAL");
            c.arg(self.lua.code);
            c
        };
        c.arg(self.keys.len());
        for k in &self.keys {
            c.arg(k.as_slice());
        }
        for a in &self.args {
            c.arg(a.as_slice());
        }
        c
    }
}

/// An async connection of either kind; both speak [`ConnectionLike`].
#[derive(Clone)]
pub(crate) enum Conn {
    Single(MultiplexedConnection),
    Cluster(redis::cluster_async::ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        cmd: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(cmd, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(cmd, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// A blocking connection of either kind.
pub(crate) enum SyncConn {
    Single(redis::Connection),
    Cluster(Box<redis::cluster::ClusterConnection>),
}

impl SyncConn {
    /// Bounds the next reply (and the write of the request).
    pub(crate) fn set_timeouts(&mut self, t: Option<Duration>) -> RedisResult<()> {
        match self {
            SyncConn::Single(c) => c.set_read_timeout(t).and_then(|()| c.set_write_timeout(t)),
            SyncConn::Cluster(c) => c.set_read_timeout(t).and_then(|()| c.set_write_timeout(t)),
        }
    }
}

impl redis::ConnectionLike for SyncConn {
    fn req_packed_command(&mut self, cmd: &[u8]) -> RedisResult<Value> {
        match self {
            SyncConn::Single(c) => c.req_packed_command(cmd),
            SyncConn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands(
        &mut self,
        cmd: &[u8],
        offset: usize,
        count: usize,
    ) -> RedisResult<Vec<Value>> {
        match self {
            SyncConn::Single(c) => c.req_packed_commands(cmd, offset, count),
            SyncConn::Cluster(c) => c.req_packed_commands(cmd, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            SyncConn::Single(c) => c.get_db(),
            SyncConn::Cluster(c) => c.get_db(),
        }
    }

    fn check_connection(&mut self) -> bool {
        match self {
            SyncConn::Single(c) => c.check_connection(),
            SyncConn::Cluster(c) => c.check_connection(),
        }
    }

    fn is_open(&self) -> bool {
        match self {
            SyncConn::Single(c) => c.is_open(),
            SyncConn::Cluster(c) => c.is_open(),
        }
    }
}

/// The one way a single Redis server's URL becomes a client: `redis://…` plain, `rediss://…`
/// over TLS (rustls), with `?ca=PATH` (the CA file; default: the system's roots) and
/// `?cert=PATH&key=PATH` (a client certificate). Other query parameters go to the redis crate.
/// Errors name the server without its credentials, and the file that could not be read. The
/// stores also take Sentinel and Cluster URLs (`redis+sentinel://…`, `redis+cluster://…`,
/// docs/segments.md), which are not one server and are refused here.
///
/// ```
/// let err = idmint_core::segment::redis_client("redis://:pw@h:1?ca=/x.pem").unwrap_err();
/// assert!(err.to_string().contains("rediss://"), "{err}");
/// assert!(!err.to_string().contains("pw"));
/// let err = idmint_core::segment::redis_client("rediss://h:1?ca=/no/such.pem").unwrap_err();
/// assert!(err.to_string().contains("/no/such.pem"), "{err}");
/// assert!(idmint_core::segment::redis_client("rediss://h:1").is_ok());
/// assert!(idmint_core::segment::redis_client("redis+cluster://h:1,h:2").is_err());
/// ```
pub fn redis_client(url: &str) -> Result<Client> {
    let target = Target::parse(url, Duration::from_secs(2))?;
    let describe = describe_url(url);
    target.into_single().ok_or_else(|| Error::InvalidArgument {
        name: "url".into(),
        value: describe,
        expected: "a single server's redis:// or rediss:// URL".into(),
    })
}

/// A Redis target with one async connection, opened on first use and dropped after any
/// failure, so the next call reconnects (and, through Sentinel, asks again for the master).
/// Shared by the segment store, the lease store and [`RedisSnowflake`](crate::RedisSnowflake).
pub(crate) struct RedisConn {
    target: Target,
    conn: Mutex<Option<Conn>>,
}

impl RedisConn {
    /// Parses the URL; connects on first use, each connect and reply bounded by `timeout`.
    pub(crate) fn open(url: &str, timeout: Duration) -> Result<RedisConn> {
        Ok(RedisConn {
            target: Target::parse(url, timeout)?,
            conn: Mutex::new(None),
        })
    }

    /// The server as `redis://host:port[/db]`, without credentials.
    pub(crate) fn describe(&self) -> &str {
        &self.target.describe
    }

    pub(crate) fn topology(&self) -> Topology {
        self.target.topology()
    }

    pub(crate) fn err(&self, what: &str, e: RedisError) -> Error {
        Error::StoreUnavailable {
            store: self.target.describe.clone(),
            reason: format!("{what}: {e}"),
        }
    }

    pub(crate) async fn connection(&self) -> Result<Conn> {
        let mut slot = self.conn.lock().await;
        if let Some(conn) = slot.as_ref() {
            return Ok(conn.clone());
        }
        let conn = self
            .target
            .connect()
            .await
            .map_err(|e| self.err("connecting", e))?;
        *slot = Some(conn.clone());
        Ok(conn)
    }

    /// Runs a script, and `WAIT`s for the replicas; a failure drops the connection (a server
    /// that refuses writes may be a demoted master: the next call asks Sentinel again).
    pub(crate) async fn run<T: FromRedisValue>(&self, what: &str, call: &Call<'_>) -> Result<T> {
        let mut conn = self.connection().await?;
        let mut result = self.target.run_async(&mut conn, call).await;
        // A pipeline's `MOVED` or `ASK` (a slot moved, a replica promoted) is not followed by the
        // cluster client: once more on a fresh connection, which reads the slots again.
        if let Err(e) = &result {
            if matches!(
                e.kind(),
                ErrorKind::Moved | ErrorKind::Ask | ErrorKind::TryAgain
            ) {
                self.drop_connection().await;
                conn = self.connection().await?;
                result = self.target.run_async(&mut conn, call).await;
            }
        }
        match result {
            Ok(v) => Ok(v),
            Err(e) => {
                self.drop_connection().await;
                Err(self.err(what, e))
            }
        }
    }

    /// Runs one command; any failure drops the connection.
    pub(crate) async fn cmd<T: FromRedisValue>(&self, what: &str, cmd: &Cmd) -> Result<T> {
        let mut conn = self.connection().await?;
        match conn.req_packed_command(cmd).await {
            Ok(v) => redis::from_owned_redis_value(v).map_err(|e| self.err(what, e)),
            Err(e) => {
                self.drop_connection().await;
                Err(self.err(what, e))
            }
        }
    }

    /// Forgets the connection (after a timeout the caller imposed, whose reply may never come).
    pub(crate) async fn drop_connection(&self) {
        *self.conn.lock().await = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_default_their_replicas() {
        let t = Duration::from_secs(1);
        let single = Target::parse("redis://h:1", t).unwrap();
        assert_eq!((single.topology(), single.replicas), (Topology::Single, 0));
        let c = Target::parse("redis+cluster://:pw@a:1,b:2", t).unwrap();
        assert_eq!((c.topology(), c.replicas), (Topology::Cluster, 1));
        let s = Target::parse("redis+sentinel://a:1,b:2/mymaster/2?replicas=0", t).unwrap();
        assert_eq!((s.topology(), s.replicas), (Topology::Sentinel, 0));
        let bad = |u: &str| Target::parse(u, t).err().unwrap().to_string();
        assert!(bad("redis+sentinel://a:1").contains("MASTER_NAME"));
        assert!(bad("redis+cluster://a:1?replicas=99").contains("0..=64"));
        assert!(bad("redis+cluster://a:x").contains("port"));
        assert!(bad("redis+cluster://a:1/3").contains("database 0"));
        assert!(bad("redis+cluster://a:1?prefix=x").contains("prefix"));
        assert!(bad("redis+cluster://a:1?ca=/x.pem").contains("rediss://"));
        assert!(!bad("redis+cluster://u:secret@a:x").contains("secret"));
    }
}
