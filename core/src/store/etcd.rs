//! The etcd link (feature `etcd`) the segment and lease stores share: reading
//! `etcd://[user:pass@]h1:2379,h2:2379[/root]` and `etcds://…?ca=…&cert=…&key=…`, one
//! [`etcd_client::Client`] balanced over the listed members, and etcd's errors as
//! `store_unavailable`.
//!
//! Every key of a store lives under `{root}/{prefix}`: the URL's path (none by default) and the
//! store's prefix (the options' or the URL's `?prefix=…`, else the kind's: `idmint:seg`,
//! `idmint:lease`), so one etcd serves several applications side by side.

use std::time::Duration;

use etcd_client::{
    Certificate, Client, ConnectOptions, GetOptions, Identity, KeyValue, TlsOptions,
};

use super::url::{describe_url, Credentials};
use crate::{Error, Result};

/// How long connecting to a member may take before the call fails (the keeper and the segment
/// client retry): the Redis link's bound.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// What an etcd URL says, before connecting (pure, so tested without a server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EtcdTarget {
    /// `http://host:port` or `https://host:port`, one per member listed.
    pub(crate) endpoints: Vec<String>,
    /// The URL's path without its trailing `/`: `""` or `/something`.
    pub(crate) root: String,
    pub(crate) user: Option<Credentials>,
    pub(crate) tls: bool,
    pub(crate) ca: Option<String>,
    pub(crate) cert: Option<String>,
    pub(crate) key: Option<String>,
}

impl EtcdTarget {
    pub(crate) fn parse(url: &str) -> Result<EtcdTarget> {
        let shown = describe_url(url);
        let bad = |expected: &str| Error::InvalidArgument {
            name: "store".into(),
            value: shown.clone(),
            expected: expected.into(),
        };
        const FORM: &str =
            "etcd://[USER:PASS@]HOST:PORT[,HOST:PORT…][/ROOT] or etcds://…?ca=CA.pem&cert=CERT.pem&key=KEY.pem";
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let (scheme, rest) = base.split_once("://").ok_or_else(|| bad(FORM))?;
        let tls = match scheme.to_ascii_lowercase().as_str() {
            "etcd" => false,
            "etcds" => true,
            _ => return Err(bad(FORM)),
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let (user, hosts) =
            Credentials::split(authority).map_err(|()| bad("a user name before `:` and `@`"))?;
        let mut endpoints = Vec::new();
        for host in hosts.split(',') {
            let ok = host
                .rsplit_once(':')
                .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0));
            if !ok || host.contains(['#', ' ']) {
                return Err(Error::InvalidArgument {
                    name: "store".into(),
                    value: format!("{shown}: member `{}`", crate::error::escaped(host)),
                    expected: format!("HOST:PORT for every member, comma-separated: {FORM}"),
                });
            }
            let scheme = if tls { "https" } else { "http" };
            endpoints.push(format!("{scheme}://{host}"));
        }
        let root = path.trim_end_matches('/').to_string();
        if root.contains("//") || root.contains(['#', ' ']) {
            return Err(bad("a root path of non-empty segments: /app or /app/ids"));
        }
        let mut target = EtcdTarget {
            endpoints,
            root,
            user,
            tls,
            ca: None,
            cert: None,
            key: None,
        };
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let slot = match k {
                "ca" => &mut target.ca,
                "cert" => &mut target.cert,
                "key" => &mut target.key,
                _ => return Err(Error::InvalidArgument {
                    name: "store".into(),
                    value: format!("{shown} with parameter `{}`", crate::error::escaped(k)),
                    expected:
                        "an etcd store takes prefix= and, with etcds://, ca=, cert= and key= only"
                            .into(),
                }),
            };
            if !tls {
                return Err(bad("an etcds:// URL: ca=, cert= and key= are TLS options"));
            }
            if v.is_empty() {
                return Err(Error::InvalidArgument {
                    name: "store".into(),
                    value: format!("{shown}?{k}="),
                    expected: "a file path after `=`".into(),
                });
            }
            *slot = Some(v.to_string());
        }
        if target.cert.is_some() != target.key.is_some() {
            return Err(bad(
                "both cert= and key= (a client certificate needs its key), or neither",
            ));
        }
        Ok(target)
    }
}

/// One client of an etcd cluster and the root of the store's keys.
#[derive(Clone)]
pub(crate) struct EtcdLink {
    client: Client,
    describe: String,
    root: String,
}

impl std::fmt::Debug for EtcdLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdLink")
            .field("store", &self.describe)
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl EtcdLink {
    /// Connects and reads one key, so a cluster that cannot be reached (or refuses the
    /// credentials) fails here rather than at the first lease or range.
    pub(crate) async fn connect(url: &str) -> Result<EtcdLink> {
        let target = EtcdTarget::parse(url)?;
        let describe = describe_url(url);
        let unavailable = |reason: String| Error::StoreUnavailable {
            store: describe.clone(),
            reason,
        };
        let read = |path: &Option<String>| -> Result<Option<Vec<u8>>> {
            path.as_deref()
                .map(|p| std::fs::read(p).map_err(|e| unavailable(format!("reading `{p}`: {e}"))))
                .transpose()
        };
        let mut opts = ConnectOptions::new()
            .with_connect_timeout(CONNECT_TIMEOUT)
            .with_timeout(REQUEST_TIMEOUT)
            // A member that stops answering is noticed within seconds, not at the OS's TCP
            // timeout, and the channel moves to another one.
            .with_keep_alive(Duration::from_secs(5), Duration::from_secs(2))
            // A member cut off from its cluster's leader refuses at once rather than hold a
            // keep-alive or a transaction until the timeout: the caller tries again (and the
            // channel another member) while the lease can still be saved.
            .with_require_leader(true);
        if let Some(user) = &target.user {
            opts = opts.with_user(user.user.clone(), user.password.clone());
        }
        if target.tls {
            let mut tls = TlsOptions::new();
            tls = match read(&target.ca)? {
                Some(ca) => tls.ca_certificate(Certificate::from_pem(ca)),
                // The system's roots, as rediss:// and https:// stores use without ca=.
                None => tls.with_enabled_roots(),
            };
            if let (Some(cert), Some(key)) = (read(&target.cert)?, read(&target.key)?) {
                tls = tls.identity(Identity::from_pem(cert, key));
            }
            opts = opts.with_tls(tls);
        }
        let client = Client::connect(&target.endpoints, Some(opts))
            .await
            .map_err(|e| etcd_error(&describe, "connecting", &e))?;
        let link = EtcdLink {
            client,
            describe,
            root: target.root,
        };
        link.get(&format!("{}/", link.root), "connecting").await?;
        Ok(link)
    }

    pub(crate) fn describe(&self) -> &str {
        &self.describe
    }

    /// `{root}/{prefix}`: where a store with that prefix keeps its keys.
    pub(crate) fn base(&self, prefix: &str) -> String {
        format!("{}/{prefix}", self.root)
    }

    /// A handle for one call: clones share the connections.
    pub(crate) fn client(&self) -> Client {
        self.client.clone()
    }

    /// An etcd error, saying what was being done (`etcd_error`).
    pub(crate) fn err(&self, what: &str, e: etcd_client::Error) -> Error {
        etcd_error(&self.describe, what, &e)
    }

    /// A store key whose value is not what this crate writes: someone else's data under the
    /// prefix, or a damaged key.
    pub(crate) fn garbled(&self, key: &str) -> Error {
        Error::StoreUnavailable {
            store: self.describe.clone(),
            reason: format!(
                "key `{}` does not hold what idmint writes: another program's key under this prefix?",
                crate::error::escaped(key)
            ),
        }
    }

    /// One key, if present.
    pub(crate) async fn get(&self, key: &str, what: &str) -> Result<Option<KeyValue>> {
        let mut resp = self
            .client()
            .get(key, None)
            .await
            .map_err(|e| self.err(what, e))?;
        Ok(resp.take_kvs().into_iter().next())
    }

    /// Every key under `prefix` (which ends with `/`), in key order.
    pub(crate) async fn scan(&self, prefix: &str, what: &str) -> Result<Vec<KeyValue>> {
        let mut resp = self
            .client()
            .get(prefix, Some(GetOptions::new().with_prefix()))
            .await
            .map_err(|e| self.err(what, e))?;
        Ok(resp.take_kvs())
    }
}

/// An error and its causes: tonic's transport error says only "transport error", the cause
/// (refused connection, certificate of an unknown CA…) is below it.
/// An etcd error of `store`, saying what was being done: `not_authorized` when etcd refuses the
/// user or its role, since an outage it is not and retrying cannot help until the credentials
/// or the role change (the lease keeper stops on it); else `store_unavailable`.
fn etcd_error(store: &str, what: &str, e: &etcd_client::Error) -> Error {
    let status = match e {
        // gRPC's own status numbers (tonic is no dependency of core): 7 PERMISSION_DENIED (a
        // role without the key), 16 UNAUTHENTICATED (a bad token). A request without a user, or
        // with a wrong password, etcd answers INVALID_ARGUMENT (3) with one of its fixed texts
        // (etcd's api/v3rpc/rpctypes: ErrGRPCUserEmpty, ErrGRPCAuthFailed), which no other code
        // tells apart from a bad request.
        etcd_client::Error::GRpcStatus(s) => match i32::from(s.code()) {
            7 => Some(403),
            16 => Some(401),
            3 if s.message().starts_with("etcdserver: user name is empty")
                || s.message().starts_with("etcdserver: authentication failed") =>
            {
                Some(401)
            }
            _ => None,
        },
        _ => None,
    };
    super::failure::of(store, status, format!("{what}: {}", chain(e)))
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = EtcdTarget::parse("etcd://a:2379,b:2380/app/ids/").unwrap();
        assert_eq!(t.endpoints, ["http://a:2379", "http://b:2380"]);
        assert_eq!(t.root, "/app/ids");
        assert!(!t.tls && t.user.is_none());
        let t =
            EtcdTarget::parse("etcds://u:p@[::1]:2379?ca=/c.pem&cert=/x.pem&key=/x.key").unwrap();
        assert_eq!(t.endpoints, ["https://[::1]:2379"]);
        let user = t.user.as_ref().unwrap();
        assert_eq!((user.user.as_str(), user.password.as_str()), ("u", "p"));
        assert!(!format!("{t:?}").contains("\"p\""), "{t:?}");
        assert_eq!(t.ca.as_deref(), Some("/c.pem"));
        assert_eq!(t.root, "");
        for bad in [
            "etcd://",
            "etcd://a",
            "etcd://a:0",
            "etcd://a:1,,b:2",
            "etcd://a:1?ca=/c.pem",
            "etcds://a:1?cert=/x.pem",
            "etcds://a:1?ca=",
            "etcd://a:1?table=x",
            "etcd://a:1//x",
            "etcd:a:1",
        ] {
            let e = EtcdTarget::parse(bad).unwrap_err();
            assert_eq!(e.kind(), "invalid_argument", "{bad}");
        }
        let e = EtcdTarget::parse("etcd://me:s3cret@a").unwrap_err();
        assert!(!e.to_string().contains("s3cret"), "{e}");
    }
}
