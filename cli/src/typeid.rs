//! `idmint typeid`: mint TypeIDs (a prefix and a UUIDv7, core's `typeid`).

use std::io::Write;

use clap::Args;
use idmint_core::typeid::TypeIdGenerator;

use crate::report::CliError;
use crate::sink::LineSink;

#[derive(Args, Debug)]
pub struct TypeIdArgs {
    /// The type prefix: 0 to 63 of a-z and _, not starting or ending with _ ("" for none)
    #[arg(long, value_name = "PREFIX")]
    prefix: String,

    /// How many to mint
    #[arg(long, value_name = "N", default_value_t = 1)]
    count: u64,
}

pub fn run(args: &TypeIdArgs) -> Result<(), CliError> {
    let gen = TypeIdGenerator::new(&args.prefix)?;
    let mut sink = LineSink::new(args.count);
    for _ in 0..args.count {
        writeln!(sink.out(), "{}", gen.next_id()?)?;
        sink.advance(1);
    }
    Ok(sink.finish()?)
}
