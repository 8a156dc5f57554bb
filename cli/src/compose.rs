//! `idmint compose`: put a snowflake ID together from its time, node fields and sequence.

use std::io::{self, Write};

use idmint_core::parse_time_ms;

use crate::report::CliError;
use crate::ComposeArgs;

pub fn run(args: &ComposeArgs) -> Result<(), CliError> {
    let layout = args.layout.resolve()?;
    let time_ms = parse_time_ms("time", &args.time)?;
    // Unlike `snowflake`, missing node fields are not defaulted: composing is for stating an ID
    // exactly, so the core's missing-field error is the helpful answer.
    let id = layout.compose_values(
        time_ms.into(),
        args.nodes.iter().map(|n| (n.name.as_str(), n.value)),
        args.sequence,
    )?;
    let mut out = io::stdout().lock();
    writeln!(out, "{id}")?;
    Ok(out.flush()?)
}
