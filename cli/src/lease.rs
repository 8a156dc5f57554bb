//! `idmint lease list`: the worker-ID leases a store holds, and the `--lease` options of
//! `idmint snowflake`.

use std::io::Write;
use std::time::Duration;

use clap::{Args, Subcommand};
use idmint_core::format_time_ms;
use idmint_core::lease::{list_leases, LeaseOptions};

use crate::report::CliError;

#[derive(Subcommand, Debug)]
pub enum LeaseCommand {
    /// Every value the store has a record of: held, frozen (expired, not yet free) or free
    List(ListArgs),
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// The lease store: sqlite:PATH, postgres://…, mysql://… (?table=NAME, default
    /// idmint_workers), redis://host:port, etcd://h1:2379,h2:2379[/root] or
    /// zk://h1:2181,h2:2181[/chroot] (zk://user:password@… for nodes only those credentials reach; ?prefix=P, default idmint:lease; zk://…?schema=leaf&leaf_name=N
    /// lists Leaf's snowflake workers too). Required: leases
    /// only mean something in the store the generators share
    #[arg(long, value_name = "URL")]
    store: String,

    /// One JSON object a line instead of a table
    #[arg(long)]
    json: bool,
}

/// `--lease`, `--lease-range`, `--lease-ttl` of `idmint snowflake`.
#[derive(Args, Debug)]
pub struct LeaseArgs {
    /// Lease the node value from this store (see `idmint lease list`) instead of `--node`
    #[arg(long, value_name = "URL", conflicts_with = "nodes")]
    pub lease: Option<String>,

    /// The values to lease from, e.g. 0..7 (both ends included); default: all the layout's
    #[arg(long, value_name = "A..B", requires = "lease", value_parser = parse_range)]
    pub lease_range: Option<(u64, u64)>,

    /// How long a lease lasts unless renewed, in milliseconds
    #[arg(long, value_name = "MS", requires = "lease")]
    pub lease_ttl: Option<u64>,
}

impl LeaseArgs {
    /// The lease options, when `--lease` was given.
    pub fn options(&self) -> Option<LeaseOptions> {
        let url = self.lease.as_deref()?;
        let mut opts = LeaseOptions::url(url);
        if let Some((first, last)) = self.lease_range {
            opts = opts.range(first, last);
        }
        if let Some(ms) = self.lease_ttl {
            opts = opts.ttl(Duration::from_millis(ms));
        }
        Some(opts)
    }
}

fn parse_range(text: &str) -> Result<(u64, u64), String> {
    idmint_core::lease::parse_range(text).map_err(|e| e.to_string())
}

pub fn run(command: &LeaseCommand) -> Result<(), CliError> {
    let LeaseCommand::List(args) = command;
    let infos = list_leases(&args.store, std::time::Duration::from_secs(10))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        for i in &infos {
            let line = serde_json::json!({
                "value": i.value,
                "state": i.state(),
                "holder": i.holder,
                "expires_in_ms": i.expires_in_ms,
                "free_in_ms": i.free_in_ms,
                "last_time_ms": i.last_time_ms,
                "last_time": last_time(i.last_time_ms),
            });
            writeln!(out, "{line}")?;
        }
    } else {
        writeln!(
            out,
            "{:>8}  {:<6}  {:<24}  {:>10}  {:>10}  last_time",
            "value", "state", "holder", "expires_in", "free_in"
        )?;
        for i in &infos {
            writeln!(
                out,
                "{:>8}  {:<6}  {:<24}  {:>10}  {:>10}  {}",
                i.value,
                i.state(),
                if i.holder.is_empty() { "-" } else { &i.holder },
                seconds(i.expires_in_ms, i.holder.is_empty()),
                seconds(i.free_in_ms, i.holder.is_empty()),
                last_time(i.last_time_ms),
            )?;
        }
    }
    Ok(())
}

/// `1.5s`, or `-` for a released value (its times mean nothing).
fn seconds(ms: i64, released: bool) -> String {
    if released {
        "-".into()
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

fn last_time(ms: u64) -> String {
    if ms == 0 {
        "-".into()
    } else {
        format_time_ms(ms)
    }
}
