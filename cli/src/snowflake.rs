//! `idmint snowflake`: mint snowflake IDs, one a line.

use std::io::Write;

use idmint_core::Snowflake;

use crate::report::CliError;
use crate::sink::LineSink;
use crate::SnowflakeArgs;

/// IDs drawn from the generator per call: enough to make the per-call cost vanish, small enough
/// (32 KiB) to stay in cache while being formatted.
const BATCH: usize = 4096;

pub fn run(args: &SnowflakeArgs) -> Result<(), CliError> {
    let layout = args.layout.resolve()?;
    let builder = Snowflake::builder(layout)
        .on_exhausted(args.on_exhausted)
        .on_rollback(args.on_rollback);
    let generator = match args.lease.options() {
        // The leased value fills every node field; clap rejects --node with --lease.
        Some(lease) => builder.lease(lease).build()?,
        None => args.nodes.apply(builder).build()?,
    };

    let mut sink = LineSink::new(args.count);
    let mut ids = vec![0u64; BATCH.min(usize::try_from(args.count).unwrap_or(BATCH))];
    let mut digits = itoa::Buffer::new();
    let mut left = args.count;
    while left > 0 {
        let batch = &mut ids[..left.min(BATCH as u64) as usize];
        generator.next_ids_into(batch)?;
        let out = sink.out();
        for id in batch.iter() {
            out.write_all(digits.format(*id).as_bytes())?;
            out.write_all(b"\n")?;
        }
        sink.advance(batch.len() as u64);
        left -= batch.len() as u64;
    }
    Ok(sink.finish()?)
}
