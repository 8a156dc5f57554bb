//! The server's configuration: a TOML file, `IDMINT_*` environment variables and flags, checked
//! once at start with errors that name the key.
//!
//! Precedence, lowest first: built-in defaults, the file (`--config`, `IDMINT_CONFIG`), then the
//! environment and flags for the keys that have one (a flag wins over its variable). The
//! defaults are the embedded deployment: loopback, state in SQLite at `./idmint.db`.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Deserialize;

// The token entries are the auth module's own type; this is where `[[tokens]]` is read.
pub use crate::auth::TokenConfig;

/// What went wrong reading or checking the configuration: always names the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("config file {path}: {reason}")]
    File {
        /// The file.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// The file is not valid TOML or has a key or value this server does not take.
    #[error("config file {path}: {reason}")]
    Toml {
        /// The file.
        path: String,
        /// toml's message, which names the key and line.
        reason: String,
    },
    /// A key's value is not valid.
    #[error("config key `{key}`: {reason}")]
    Key {
        /// The key, dotted (`snowflake.layout`, `tokens[1].scopes`).
        key: String,
        /// What is wrong, with the valid values.
        reason: String,
    },
}

/// A [`ConfigError::Key`].
///
/// ```
/// let e = idmint_server::config::bad("listen", "not an address");
/// assert_eq!(e.to_string(), "config key `listen`: not an address");
/// ```
pub fn bad(key: impl Into<String>, reason: impl std::fmt::Display) -> ConfigError {
    ConfigError::Key {
        key: key.into(),
        reason: reason.to_string(),
    }
}

/// The flags of `idmint serve`; each also reads an `IDMINT_*` variable.
///
/// ```
/// use clap::Parser;
/// #[derive(Parser)]
/// struct Cli { #[command(flatten)] serve: idmint_server::config::ServeArgs }
/// let cli = Cli::parse_from(["idmint", "--listen", "127.0.0.1:9000"]);
/// let config = idmint_server::config::Config::load(&cli.serve)?;
/// assert_eq!(config.listen.port(), 9000);
/// # Ok::<(), idmint_server::config::ConfigError>(())
/// ```
#[derive(Args, Debug, Clone, Default)]
pub struct ServeArgs {
    /// TOML configuration file (docs/server.md lists every key)
    #[arg(long, env = "IDMINT_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Address of the API listener (HTTP/1.1, HTTP/2 and gRPC) [default: 127.0.0.1:8080]
    #[arg(long, env = "IDMINT_LISTEN", value_name = "ADDR")]
    pub listen: Option<String>,
    /// Address of the admin listener: /healthz, /readyz, /metrics [default: 127.0.0.1:8081]
    #[arg(long, env = "IDMINT_ADMIN_LISTEN", value_name = "ADDR")]
    pub admin_listen: Option<String>,
    /// Store URL for segments, leases and order-number counters [default: sqlite:./idmint.db]
    #[arg(long, env = "IDMINT_STORE", value_name = "URL", hide_env_values = true)]
    pub store: Option<String>,
    /// Snowflake layout: a preset name or a spec [default: twitter]
    #[arg(long, env = "IDMINT_LAYOUT", value_name = "LAYOUT")]
    pub layout: Option<String>,
    /// Log format: text or json [default: text]
    #[arg(long, env = "IDMINT_LOG_FORMAT", value_name = "FORMAT")]
    pub log_format: Option<String>,
    /// Once ready, write the addresses actually bound here as JSON (`listen`, `admin_listen`,
    /// `pid`); with port 0 in `--listen` the OS picks the port and this file names it
    #[arg(long, env = "IDMINT_READY_FILE", value_name = "FILE")]
    pub ready_file: Option<PathBuf>,
}

/// The whole configuration. Every field has a default; the file may set any of them.
///
/// ```
/// let config = idmint_server::config::Config::from_toml_str("store = \"memory:\"\n[segment]\ntags = [\"orders\"]\n", "inline")?;
/// assert_eq!(config.segment.tags, ["orders"]);
/// assert_eq!(config.listen.to_string(), "127.0.0.1:8080");
/// # Ok::<(), idmint_server::config::ConfigError>(())
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// API listener address.
    pub listen: SocketAddr,
    /// Admin listener address (/healthz, /readyz, /metrics).
    pub admin_listen: SocketAddr,
    /// Store URL for segments, leases and counters (secrets in it are never logged).
    pub store: String,
    /// Largest `count` one request may ask for.
    pub max_count: u64,
    /// Server's own snowflake generator.
    pub snowflake: SnowflakeConfig,
    /// Segment IDs.
    pub segment: SegmentConfig,
    /// Leases handed to clients.
    pub leases: LeasesConfig,
    /// Order-number templates by name.
    pub orders: BTreeMap<String, OrderConfig>,
    /// Bearer tokens (hashes). None configured: the API is open, allowed only on loopback
    /// unless `allow_anonymous = true`.
    pub tokens: Vec<TokenConfig>,
    /// Serve without tokens on a non-loopback address (never the default).
    pub allow_anonymous: bool,
    /// TLS for the API listener.
    pub tls: Option<TlsConfig>,
    /// Request limits.
    pub limits: LimitsConfig,
    /// Logging.
    pub log: LogConfig,
    /// What browsers need to call the API from a page of another origin.
    pub http: HttpConfig,
    /// Meituan Leaf's endpoints.
    pub leaf: CompatConfig,
    /// Didi Tinyid's endpoints.
    pub tinyid: TinyidConfig,
    /// Once ready, the addresses actually bound are written here as JSON (`listen`,
    /// `admin_listen`, `pid`), and the file is removed on the way out: how a supervisor or a
    /// test learns the ports the OS picked for `127.0.0.1:0`.
    pub ready_file: Option<PathBuf>,
    /// The file this came from, for SIGHUP reloads.
    #[serde(skip)]
    pub path: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: "127.0.0.1:8080".parse().expect("literal address"),
            admin_listen: "127.0.0.1:8081".parse().expect("literal address"),
            store: "sqlite:./idmint.db".into(),
            max_count: 100_000,
            snowflake: SnowflakeConfig::default(),
            segment: SegmentConfig::default(),
            leases: LeasesConfig::default(),
            orders: BTreeMap::new(),
            tokens: Vec::new(),
            allow_anonymous: false,
            tls: None,
            limits: LimitsConfig::default(),
            log: LogConfig::default(),
            http: HttpConfig::default(),
            leaf: CompatConfig::default(),
            tinyid: TinyidConfig::default(),
            ready_file: None,
            path: None,
        }
    }
}

/// `[snowflake]`: the server's own generator, its node value leased from the store.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SnowflakeConfig {
    /// Preset name or layout spec.
    pub layout: String,
    /// Lease TTL in ms.
    pub lease_ttl_ms: u64,
    /// Values the server leases for itself, `FIRST..LAST` (default: every value of the layout).
    pub lease_range: Option<String>,
    /// Exhaustion policy text (`wait`, `borrow:MS`).
    pub on_exhausted: String,
    /// Rollback policy text (`error`, `wait:MS`, `continue`).
    pub on_rollback: String,
}

impl Default for SnowflakeConfig {
    fn default() -> Self {
        SnowflakeConfig {
            layout: "twitter".into(),
            lease_ttl_ms: 10_000,
            lease_range: None,
            on_exhausted: "wait".into(),
            on_rollback: "wait:2000".into(),
        }
    }
}

/// `[segment]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SegmentConfig {
    /// Tags loaded at start: the server is ready once each has its first range.
    pub tags: Vec<String>,
    /// Create an unknown tag on first use (otherwise `unknown_tag`, 404).
    pub auto_create: bool,
    /// Step of tags the server creates.
    pub default_step: u64,
    /// How long a request waits for a refill before `store_unavailable`, in ms.
    pub max_wait_ms: u64,
}

impl Default for SegmentConfig {
    fn default() -> Self {
        SegmentConfig {
            tags: Vec::new(),
            auto_create: true,
            default_step: 1000,
            max_wait_ms: 3000,
        }
    }
}

/// `[leases]`: node values leased to clients.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LeasesConfig {
    /// TTL when a client names none, in ms.
    pub default_ttl_ms: u64,
    /// Longest TTL a client may ask for, in ms.
    pub max_ttl_ms: u64,
}

impl Default for LeasesConfig {
    fn default() -> Self {
        LeasesConfig {
            default_ttl_ms: 30_000,
            max_ttl_ms: 300_000,
        }
    }
}

/// `[orders.NAME]`: an order-number template whose counter is a segment tag per day.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderConfig {
    /// The template (`SO%y%M%D%6S`).
    pub template: String,
    /// Check digits: `none`, `luhn`, `mod97`.
    #[serde(default)]
    pub check: Option<String>,
    /// UTC offset of the template's dates (`+08:00`).
    #[serde(default)]
    pub offset: Option<String>,
}

/// The template of an `[orders.NAME]` entry.
///
/// ```
/// let order = idmint_server::config::OrderConfig { template: "SO%y%M%D%6S".into(), check: Some("luhn".into()), offset: None };
/// assert_eq!(idmint_server::config::template_of(&order)?.pattern(), "SO%y%M%D%6S");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn template_of(order: &OrderConfig) -> idmint_core::Result<idmint_core::Template> {
    use idmint_core::{CheckDigit, Template};
    let mut t = Template::new(&order.template)?;
    if let Some(check) = &order.check {
        t = t.check_digit(check.parse::<CheckDigit>()?);
    }
    if let Some(offset) = &order.offset {
        t = t.offset(offset)?;
    }
    Ok(t)
}

/// `[tls]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsConfig {
    /// PEM certificate chain.
    pub cert: PathBuf,
    /// PEM private key.
    pub key: PathBuf,
    /// PEM CA bundle: when set, clients must present a certificate it signed.
    #[serde(default)]
    pub client_ca: Option<PathBuf>,
}

/// `[limits]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// Largest request body, bytes.
    pub max_body_bytes: usize,
    /// Time a client has to send its request headers, ms (a slow client cannot hold a
    /// connection).
    pub header_read_timeout_ms: u64,
    /// Longest a request may take, ms.
    pub request_timeout_ms: u64,
    /// Longest SIGTERM waits for requests in flight, ms.
    pub shutdown_grace_ms: u64,
    /// After SIGTERM, how long the API keeps answering (each answer closing its connection)
    /// with readiness off before it stops listening, ms.
    pub drain_delay_ms: u64,
    /// Most connections open at once.
    pub max_connections: usize,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            max_body_bytes: 64 * 1024,
            header_read_timeout_ms: 5_000,
            request_timeout_ms: 10_000,
            shutdown_grace_ms: 10_000,
            drain_delay_ms: 1_000,
            max_connections: 10_000,
        }
    }
}

/// `[log]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogConfig {
    /// `text` or `json`.
    pub format: String,
    /// `error`, `warn`, `info`, `debug`.
    pub level: String,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            format: "text".into(),
            level: "info".into(),
        }
    }
}

/// `[http]`: what browsers need to call the API from a page of another origin (CORS).
///
/// ```
/// let c = idmint_server::config::Config::from_toml_str("[http]\ncors_origins = [\"https://app.example\"]\n", "inline")?;
/// assert_eq!(c.http.cors_origins, ["https://app.example"]);
/// assert!(idmint_server::config::Config::default().http.cors_origins.is_empty()); // off by default
/// # Ok::<(), idmint_server::config::ConfigError>(())
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    /// The origins (`https://app.example`, `http://127.0.0.1:5173`) whose pages may call the
    /// API, or `["*"]` for any; empty (the default): no CORS headers, so browsers allow only
    /// pages of the server's own origin. Tokens and scopes apply to these calls as to any.
    pub cors_origins: Vec<String>,
}

/// An origin as browsers send it in `Origin`: `http` or `https`, a host, an optional port, no
/// path; or `*` alone (any origin).
///
/// ```
/// assert!(idmint_server::config::cors_origin("https://app.example:8443").is_ok());
/// assert!(idmint_server::config::cors_origin("https://app.example/").is_err());
/// ```
pub fn cors_origin(text: &str) -> Result<(), String> {
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"));
    let host_ok = rest.is_some_and(|r| {
        !r.is_empty()
            && r.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c))
    });
    if text == "*" || host_ok {
        Ok(())
    } else {
        Err(format!(
            "`{text}` is not an origin: expected http(s)://HOST[:PORT] without a path, e.g. https://app.example, or \"*\" alone for any origin"
        ))
    }
}

/// `[leaf]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CompatConfig {
    /// Serve the peer's endpoints.
    pub enabled: bool,
}

impl Default for CompatConfig {
    fn default() -> Self {
        CompatConfig { enabled: true }
    }
}

/// `[tinyid]`: Didi Tinyid's endpoints, and per bizType what Tinyid's `tiny_id_info` rows
/// hold (segment width, `delta`, `remainder`). The rules and their ranges are core's
/// [`TinyidRule`](idmint_core::segment::TinyidRule).
///
/// ```
/// let toml = "[tinyid]\nstep = 5000\n[tinyid.biz_types.test_odd]\ndelta = 2\nremainder = 1\n";
/// let c = idmint_server::config::Config::from_toml_str(toml, "inline")?;
/// c.check()?;
/// let odd = c.tinyid.rule("test_odd")?;
/// assert_eq!((odd.step(), odd.delta(), odd.remainder()), (5000, 2, 1));
/// assert_eq!(c.tinyid.rule("other")?.delta(), 1);
/// assert!(c.tinyid.creates("test_odd") && !c.tinyid.creates("other"));
/// let bad = "[tinyid.biz_types.x]\ndelta = 2\nremainder = 2\n";
/// let e = idmint_server::config::Config::from_toml_str(bad, "inline")?.check().unwrap_err();
/// assert_eq!(e.to_string(), "config key `tinyid.biz_types.x`: invalid argument `remainder` = 2: 0..=1 (below delta = 2)");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TinyidConfig {
    /// Serve Tinyid's endpoints.
    pub enabled: bool,
    /// Width of each segment `nextSegmentId(Simple)` hands out, unless the bizType sets its
    /// own (default 100 000, as the rows of Tinyid's schema).
    pub step: u64,
    /// Create a bizType the store does not hold on its first request. Off by default: the
    /// Tinyid endpoints then serve only tags that exist and the biz types listed here (created
    /// on first use), as Tinyid serves only its table's rows; `[segment] auto_create` does not
    /// apply to them.
    pub auto_create: bool,
    /// `[tinyid.biz_types.NAME]`: one bizType's settings.
    pub biz_types: BTreeMap<String, BizTypeConfig>,
}

impl Default for TinyidConfig {
    fn default() -> Self {
        TinyidConfig {
            enabled: true,
            step: idmint_core::segment::TINYID_DEFAULT_STEP,
            auto_create: false,
            biz_types: BTreeMap::new(),
        }
    }
}

/// `[tinyid.biz_types.NAME]`: a Tinyid `tiny_id_info` row's settings. Absent keys take
/// `[tinyid] step`, `delta = 1`, `remainder = 0`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BizTypeConfig {
    /// Width of this bizType's segments.
    #[serde(default)]
    pub step: Option<u64>,
    /// Hand out only IDs with `id % delta == remainder`.
    #[serde(default)]
    pub delta: Option<u64>,
    /// See `delta`.
    #[serde(default)]
    pub remainder: Option<u64>,
}

impl TinyidConfig {
    /// The rule of `biz_type`: its own settings, else the defaults (checked by core).
    ///
    /// ```
    /// let mut c = idmint_server::config::TinyidConfig::default();
    /// assert_eq!(c.rule("any")?.step(), 100_000);
    /// c.biz_types.insert("shard".into(), idmint_server::config::BizTypeConfig { delta: Some(4), remainder: Some(3), ..Default::default() });
    /// assert_eq!((c.rule("shard")?.delta(), c.rule("shard")?.remainder()), (4, 3));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn rule(&self, biz_type: &str) -> idmint_core::Result<idmint_core::segment::TinyidRule> {
        let tinyid = idmint_core::segment::TinyidRule::default();
        let own = self.biz_types.get(biz_type);
        let own = |f: fn(&BizTypeConfig) -> Option<u64>| own.and_then(f);
        idmint_core::segment::TinyidRule::new(
            own(|b| b.step).unwrap_or(self.step),
            own(|b| b.delta).unwrap_or(tinyid.delta()),
            own(|b| b.remainder).unwrap_or(tinyid.remainder()),
        )
    }

    /// Whether the Tinyid endpoints create `biz_type` when the store does not hold it: it is
    /// listed, or `auto_create` is on.
    ///
    /// ```
    /// let mut c = idmint_server::config::TinyidConfig::default();
    /// assert!(!c.creates("ordres"));
    /// c.auto_create = true;
    /// assert!(c.creates("ordres"));
    /// ```
    pub fn creates(&self, biz_type: &str) -> bool {
        self.auto_create || self.biz_types.contains_key(biz_type)
    }
}

impl Config {
    /// The configuration from the file named by `args` (if any), then `args`' flags and
    /// variables, checked.
    ///
    /// ```
    /// let args = idmint_server::config::ServeArgs { listen: Some("nope".into()), ..Default::default() };
    /// let err = idmint_server::config::Config::load(&args).unwrap_err();
    /// assert!(err.to_string().starts_with("config key `listen`"));
    /// ```
    pub fn load(args: &ServeArgs) -> Result<Config, ConfigError> {
        let mut config = match &args.config {
            Some(path) => Config::from_file(path)?,
            None => Config::default(),
        };
        if let Some(v) = &args.listen {
            config.listen = addr("listen", v)?;
        }
        if let Some(v) = &args.admin_listen {
            config.admin_listen = addr("admin_listen", v)?;
        }
        if let Some(v) = &args.store {
            config.store = v.clone();
        }
        if let Some(v) = &args.layout {
            config.snowflake.layout = v.clone();
        }
        if let Some(v) = &args.log_format {
            config.log.format = v.clone();
        }
        if let Some(v) = &args.ready_file {
            config.ready_file = Some(v.clone());
        }
        config.check()?;
        Ok(config)
    }

    /// Reads and checks a TOML file.
    ///
    /// ```
    /// let err = idmint_server::config::Config::from_file(std::path::Path::new("/nonexistent.toml")).unwrap_err();
    /// assert!(err.to_string().starts_with("config file /nonexistent.toml"));
    /// ```
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::File {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let mut config = Config::from_toml_str(&text, &path.display().to_string())?;
        config.path = Some(path.to_path_buf());
        Ok(config)
    }

    /// Parses TOML text (`origin` names it in errors), unchecked.
    ///
    /// ```
    /// let err = idmint_server::config::Config::from_toml_str("lisen = 1", "x.toml").unwrap_err();
    /// assert!(err.to_string().contains("lisen"));
    /// ```
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Config, ConfigError> {
        // toml's own display quotes the offending line, which may hold the store URL's
        // password: say where (line, column) and what, never the line's text.
        toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(String::new(), |span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                format!("line {line}, column {column}: ")
            });
            ConfigError::Toml {
                path: origin.into(),
                reason: format!("{at}{}", e.message().trim_end().replace('\n', " ")),
            }
        })
    }

    /// Checks what the types do not: values within range, scopes that parse, a layout core
    /// accepts, anonymous access only where allowed.
    ///
    /// ```
    /// let mut c = idmint_server::config::Config::default();
    /// c.snowflake.layout = "nope".into();
    /// assert!(c.check().unwrap_err().to_string().starts_with("config key `snowflake.layout`"));
    /// ```
    pub fn check(&self) -> Result<(), ConfigError> {
        idmint_core::args::count("max_count", self.max_count).map_err(|e| bad("max_count", e))?;
        idmint_core::Layout::parse(&self.snowflake.layout)
            .map_err(|e| bad("snowflake.layout", e))?;
        self.snowflake
            .on_exhausted
            .parse::<idmint_core::OnExhausted>()
            .map_err(|e| bad("snowflake.on_exhausted", e))?;
        self.snowflake
            .on_rollback
            .parse::<idmint_core::OnRollback>()
            .map_err(|e| bad("snowflake.on_rollback", e))?;
        if let Some(r) = &self.snowflake.lease_range {
            lease_range(r).map_err(|e| bad("snowflake.lease_range", e))?;
        }
        for (i, tag) in self.segment.tags.iter().enumerate() {
            idmint_core::segment::validate_tag(tag)
                .map_err(|e| bad(format!("segment.tags[{i}]"), e))?;
        }
        for (name, order) in &self.orders {
            template_of(order).map_err(|e| bad(format!("orders.{name}"), e))?;
        }
        idmint_core::segment::TinyidRule::new(self.tinyid.step, 1, 0)
            .map_err(|e| bad("tinyid.step", e))?;
        for name in self.tinyid.biz_types.keys() {
            let key = format!("tinyid.biz_types.{name}");
            idmint_core::segment::validate_tag(name).map_err(|e| bad(&key, e))?;
            self.tinyid.rule(name).map_err(|e| bad(&key, e))?;
        }
        for (i, t) in self.tokens.iter().enumerate() {
            crate::auth::check_token_config(t)
                .map_err(|reason| bad(format!("tokens[{i}]"), reason))?;
        }
        if self.tokens.is_empty() && !self.allow_anonymous && !self.listen.ip().is_loopback() {
            return Err(bad(
                "tokens",
                format!(
                    "none configured, and listen = {} is not a loopback address: add [[tokens]] or set allow_anonymous = true",
                    self.listen
                ),
            ));
        }
        match self.log.format.as_str() {
            "text" | "json" => {}
            other => {
                return Err(bad(
                    "log.format",
                    format!("`{other}`: valid values are text, json"),
                ))
            }
        }
        for (i, origin) in self.http.cors_origins.iter().enumerate() {
            let key = format!("http.cors_origins[{i}]");
            cors_origin(origin).map_err(|e| bad(&key, e))?;
            if origin == "*" && self.http.cors_origins.len() > 1 {
                return Err(bad(key, "\"*\" (any origin) must be the only entry"));
            }
        }
        if self.leases.default_ttl_ms > self.leases.max_ttl_ms {
            return Err(bad(
                "leases.default_ttl_ms",
                "must not exceed leases.max_ttl_ms",
            ));
        }
        Ok(())
    }
}

fn addr(key: &str, text: &str) -> Result<SocketAddr, ConfigError> {
    text.parse().map_err(|_| {
        bad(
            key,
            format!("`{text}` is not an address: expected IP:PORT, e.g. 127.0.0.1:8080"),
        )
    })
}

/// `FIRST..LAST` (inclusive) as two numbers.
///
/// ```
/// assert_eq!(idmint_server::config::lease_range("0..7").unwrap(), (0, 7));
/// assert!(idmint_server::config::lease_range("7..0").is_err());
/// ```
pub fn lease_range(text: &str) -> Result<(u64, u64), String> {
    let parsed = text
        .split_once("..")
        .and_then(|(a, b)| Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?)));
    match parsed {
        Some((a, b)) if a <= b => Ok((a, b)),
        _ => Err(format!(
            "`{text}`: expected FIRST..LAST with FIRST <= LAST, e.g. 0..31"
        )),
    }
}
