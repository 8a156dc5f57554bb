//! `idmint uuid7`: mint UUIDv7s (or their ULID text), or take them apart.

use std::io::Write;

use clap::Args;
use idmint_core::{Uuid7, Uuid7Generator};

use crate::report::CliError;
use crate::sink::LineSink;

#[derive(Args, Debug)]
pub struct Uuid7Args {
    /// How many to mint
    #[arg(long, value_name = "N", default_value_t = 1, conflicts_with = "parse")]
    count: u64,

    /// Print the ULID text (26 Crockford base32 characters) of the same 128 bits
    #[arg(long)]
    ulid: bool,

    /// Take UUIDv7s (hyphenated or 32 hex digits) or their ULIDs apart instead, one line of
    /// JSON each
    #[arg(long, value_name = "TEXT", num_args = 1.., allow_hyphen_values = true)]
    parse: Vec<String>,
}

const BATCH: usize = 4096;

pub fn run(args: &Uuid7Args) -> Result<(), CliError> {
    if !args.parse.is_empty() {
        return parse(&args.parse);
    }
    let gen = Uuid7Generator::new();
    let mut sink = LineSink::new(args.count);
    let mut batch = Vec::with_capacity(BATCH);
    let mut left = args.count;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        batch.resize(n, Uuid7::from_parts(0, 0, 0)?);
        gen.next_uuids_into(&mut batch)?;
        let out = sink.out();
        for u in &batch {
            if args.ulid {
                writeln!(out, "{}", u.to_ulid())?;
            } else {
                writeln!(out, "{u}")?;
            }
        }
        sink.advance(n as u64);
        left -= n as u64;
    }
    Ok(sink.finish()?)
}

fn parse(texts: &[String]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    for text in texts {
        let u = if text.len() == 26 {
            Uuid7::parse_ulid(text)?
        } else {
            Uuid7::parse_str(text)?
        };
        let json = serde_json::json!({
            "uuid": u.to_string(),
            "ulid": u.to_ulid(),
            "time_ms": u.time_ms(),
            "time": u.time(),
            "rand_a": u.rand_a(),
            "rand_b": format!("{:016x}", u.rand_b()),
        });
        writeln!(out, "{json}")?;
    }
    Ok(())
}
