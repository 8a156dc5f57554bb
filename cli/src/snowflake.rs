//! `idmint snowflake`: mint snowflake IDs, one a line.

use std::io::Write;

use clap::Args;
use idmint_core::{parse_time_ms, RedisSnowflake, Snowflake};

use crate::report::CliError;
use crate::sink::LineSink;
use crate::SnowflakeArgs;

/// IDs drawn from the generator per call: enough to make the per-call cost vanish, small enough
/// (32 KiB) to stay in cache while being formatted.
const BATCH: usize = 4096;

/// `--redis`, `--shard`, `--tag` of `idmint snowflake`: IDs minted on Redis.
#[derive(Args, Debug)]
pub struct RedisArgs {
    /// Mint on Redis (redis-id-generator's scheme, without its duplicates): the servers, comma
    /// separated, in the same order for every client (a server's place is its residue of the
    /// sequence). The layout defaults to redis-lua; it needs exactly one node field, the shard
    #[arg(long, value_name = "URL[,URL…]", conflicts_with_all = ["nodes", "random_nodes", "lease"])]
    pub redis: Option<String>,

    /// With --redis: the shard (the layout's node field), e.g. a user ID modulo 4096
    #[arg(long, value_name = "N", requires = "redis", default_value_t = 0)]
    pub shard: u64,

    /// With --redis: the tag; each tag is its own ID space
    #[arg(long, value_name = "TAG", requires = "redis", default_value = idmint_core::redis_snowflake::DEFAULT_TAG)]
    pub tag: String,

    /// With --redis: never mint at or before this time (unix ms or RFC 3339), e.g. the time
    /// of the last ID of the generator you move in from
    #[arg(long, value_name = "TIME", requires = "redis")]
    pub resume_after: Option<String>,

    /// With --redis: the key prefix on the servers
    #[arg(long, value_name = "P", requires = "redis", default_value = idmint_core::redis_snowflake::DEFAULT_PREFIX)]
    pub redis_prefix: String,
}

/// `--redis`: runs of up to BATCH IDs, one round trip each (a run of 4096 spans 4 ms of one
/// server's sequence).
fn redis_run(args: &SnowflakeArgs, urls: &str) -> Result<(), CliError> {
    let mut builder = RedisSnowflake::builder()
        .urls(urls)
        .layout(args.layout.resolve_or("redis-lua")?)
        .tag(&args.redis.tag)
        .prefix(&args.redis.redis_prefix)
        .shard(args.redis.shard);
    if let Some(time) = &args.redis.resume_after {
        builder = builder.resume_after_ms(parse_time_ms("resume-after", time)?);
    }
    let generator = builder.connect_blocking()?;
    let mut lines = Lines::new(args.count);
    let mut left = args.count;
    while left > 0 {
        let batch = generator.next_ids(left.min(BATCH as u64))?;
        lines.write(&batch)?;
        left -= batch.len() as u64;
    }
    Ok(lines.sink.finish()?)
}

/// IDs written one a line, in decimal.
struct Lines {
    sink: LineSink,
    digits: itoa::Buffer,
}

impl Lines {
    fn new(count: u64) -> Lines {
        Lines {
            sink: LineSink::new(count),
            digits: itoa::Buffer::new(),
        }
    }

    fn write(&mut self, ids: &[u64]) -> std::io::Result<()> {
        let out = self.sink.out();
        for id in ids {
            out.write_all(self.digits.format(*id).as_bytes())?;
            out.write_all(b"\n")?;
        }
        self.sink.advance(ids.len() as u64);
        Ok(())
    }
}

pub fn run(args: &SnowflakeArgs) -> Result<(), CliError> {
    if let Some(urls) = &args.redis.redis {
        return redis_run(args, urls);
    }
    let layout = args.layout.resolve()?;
    let mut builder = Snowflake::builder(layout)
        .on_exhausted(args.on_exhausted)
        .on_rollback(args.on_rollback);
    if args.unsigned {
        builder = builder.unsigned();
    }
    let generator = match args.lease.options() {
        // The leased value fills every node field; clap rejects --node with --lease.
        Some(lease) => builder.lease(lease).build()?,
        None => args.nodes.apply(builder).build()?,
    };

    let mut lines = Lines::new(args.count);
    let mut ids = vec![0u64; BATCH.min(usize::try_from(args.count).unwrap_or(BATCH))];
    let mut left = args.count;
    while left > 0 {
        let batch = &mut ids[..left.min(BATCH as u64) as usize];
        generator.next_ids_into(batch)?;
        lines.write(batch)?;
        left -= batch.len() as u64;
    }
    Ok(lines.sink.finish()?)
}
