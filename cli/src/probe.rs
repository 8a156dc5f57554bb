//! `idmint probe`: asks a running `idmint serve` its `/readyz` (or `/healthz`) on the admin
//! listener, for a health check that has no HTTP client beside it (the container image is the
//! static binary alone: its HEALTHCHECK runs this). The address is the one `idmint serve` with the
//! same flags, variables and configuration file binds, so the probe needs no settings of its own.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::time::Duration;

use clap::Args;
use idmint_server::config::{Config, ServeArgs};

use crate::report::CliError;

#[derive(Args, Debug)]
pub struct ProbeArgs {
    #[command(flatten)]
    serve: ServeArgs,

    /// The admin listener's path to ask: /readyz (readiness) or /healthz (liveness)
    #[arg(long, value_name = "PATH", default_value = "/readyz", value_parser = ["/readyz", "/healthz"])]
    path: String,

    /// Seconds to wait for the answer
    #[arg(long, value_name = "SECONDS", default_value_t = 3)]
    timeout: u64,
}

pub fn run(args: &ProbeArgs) -> Result<(), CliError> {
    // Only the admin address matters here. The API's (`IDMINT_LISTEN=0.0.0.0:8080` in the image)
    // is left out: with it, a configuration whose tokens the probe does not see (a `--config`
    // given to serve only) would fail serve's no-anonymous-API check here.
    let serve = ServeArgs {
        listen: None,
        ..args.serve.clone()
    };
    let config = Config::load(&serve).map_err(|e| CliError::Serve(e.into()))?;
    let addr = target(config.admin_listen).ok_or_else(|| {
        CliError::Check(format!(
            "admin_listen = {} has port 0: give the address the server reported (--admin-listen)",
            config.admin_listen
        ))
    })?;
    let url = format!("http://{addr}{}", args.path);
    let timeout = Duration::from_secs(args.timeout.max(1));
    let fail = |e: std::io::Error| CliError::Check(format!("{url}: {e}"));
    let mut stream = TcpStream::connect_timeout(&addr, timeout).map_err(fail)?;
    stream.set_read_timeout(Some(timeout)).map_err(fail)?;
    stream.set_write_timeout(Some(timeout)).map_err(fail)?;
    write!(
        stream,
        "GET {} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n",
        args.path
    )
    .map_err(fail)?;
    let mut answer = Vec::new();
    stream
        .take(64 * 1024)
        .read_to_end(&mut answer)
        .map_err(fail)?;
    let answer = String::from_utf8_lossy(&answer);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head.lines().next().unwrap_or("");
    let body = body.trim();
    if status.split_whitespace().nth(1) == Some("200") {
        println!("{body}");
        Ok(())
    } else {
        Err(CliError::Check(format!("{url}: {status}: {body}")))
    }
}

/// Where to reach a listener bound to `bound`: loopback for a wildcard address; none for port 0.
fn target(bound: SocketAddr) -> Option<SocketAddr> {
    if bound.port() == 0 {
        return None;
    }
    let ip = match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    Some(SocketAddr::new(ip, bound.port()))
}

#[cfg(test)]
mod tests {
    use super::target;

    #[test]
    fn wildcard_addresses_are_probed_on_loopback() {
        let t = |s: &str| target(s.parse().unwrap()).map(|a| a.to_string());
        assert_eq!(t("0.0.0.0:8081").as_deref(), Some("127.0.0.1:8081"));
        assert_eq!(t("[::]:8081").as_deref(), Some("[::1]:8081"));
        assert_eq!(t("10.0.0.7:9000").as_deref(), Some("10.0.0.7:9000"));
        assert_eq!(t("127.0.0.1:0"), None);
    }
}
