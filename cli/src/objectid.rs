//! `idmint objectid`: mint MongoDB-compatible ObjectIds, one a line.

use std::io::Write;

use idmint_core::ObjectId;

use crate::report::CliError;
use crate::sink::LineSink;
use crate::ObjectIdArgs;

/// Lines between progress updates; the bar is only told now and then so it costs nothing.
const PROGRESS_STEP: u64 = 4096;

pub fn run(args: &ObjectIdArgs) -> Result<(), CliError> {
    let mut sink = LineSink::new(args.count);
    let mut line = [b'\n'; 25];
    let mut left = args.count;
    while left > 0 {
        let step = left.min(PROGRESS_STEP);
        let out = sink.out();
        for _ in 0..step {
            line[..24].copy_from_slice(&ObjectId::new().to_hex_bytes());
            out.write_all(&line)?;
        }
        sink.advance(step);
        left -= step;
    }
    Ok(sink.finish()?)
}
