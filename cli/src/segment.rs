//! `idmint segment`: draw segment IDs for a tag from a shared store (SQLite file by default).

use std::io::Write;

use clap::Args;
use idmint_core::segment::{SegmentClient, DEFAULT_STORE_URL};

use crate::report::CliError;
use crate::sink::LineSink;

#[derive(Args, Debug)]
pub struct SegmentArgs {
    /// The store: sqlite:PATH, postgres://user:pass@host:port/db, mysql://…, redis://host:port,
    /// etcd://h1:2379,h2:2379[/root] (etcds://…?ca=…&cert=…&key=… for TLS), zk://h1:2181[/chroot] (zk://user:password@… for nodes only those credentials reach),
    /// or an idmint serve at https://host:port?token=TOKEN (or IDMINT_STORE_TOKEN)
    /// (options: ?table=NAME for SQL, ?schema=leaf or ?table=T&tag_column=C&max_id_column=M to share
    /// an existing table, ?prefix=P or ?shards=N for Redis, ?prefix=P for etcd and ZooKeeper; see docs/migrating.md)
    #[arg(long, value_name = "URL", default_value = DEFAULT_STORE_URL)]
    store: String,

    /// The tag (sequence name): 1-128 of A-Z a-z 0-9 _ . : -; created on first use
    #[arg(long, value_name = "TAG")]
    tag: String,

    /// How many IDs to draw
    #[arg(long, value_name = "N", default_value_t = 1)]
    count: u64,

    /// Print the tag's metrics (one line of JSON) on stderr at the end
    #[arg(long)]
    metrics: bool,
}

pub fn run(args: &SegmentArgs) -> Result<(), CliError> {
    let client = SegmentClient::builder()
        .store_url(&args.store)
        .connect_blocking()?;
    let tag = client.tag(&args.tag)?;
    let mut sink = LineSink::new(args.count);
    let mut buf = itoa::Buffer::new();
    let mut left = args.count;
    while left > 0 {
        let n = left.min(4096);
        let out = sink.out();
        for _ in 0..n {
            let id = tag.next_id()?;
            out.write_all(buf.format(id).as_bytes())?;
            out.write_all(b"\n")?;
        }
        sink.advance(n);
        left -= n;
    }
    sink.finish()?;
    if args.metrics {
        let m = tag.metrics();
        let line = serde_json::json!({
            "store": client.store(),
            "tag": m.tag,
            "remaining": m.remaining,
            "step": m.step,
            "refills": m.refills,
            "mean_refill_latency_us": m.mean_refill_latency.as_micros() as u64,
            "max_refill_latency_us": m.max_refill_latency.as_micros() as u64,
            "store_errors": m.store_errors,
        });
        let _ = writeln!(std::io::stderr(), "{line}");
    }
    Ok(())
}
