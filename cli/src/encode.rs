//! `idmint encode` / `idmint decode`: 64-bit IDs to and from base62 and Crockford base32.

use std::io::Write;

use clap::Args;
use idmint_core::Encoding;

use crate::inputs;
use crate::report::CliError;
use crate::sink::LineSink;

#[derive(Args, Debug)]
pub struct EncodeArgs {
    /// base62 (shortest), base62-fixed (11 chars, sorts like the numbers), base32 (Crockford,
    /// shortest) or base32-fixed (13 chars, sorts like the numbers)
    #[arg(long, value_name = "ENCODING", default_value = "base62")]
    to: Encoding,

    /// IDs in decimal (0..=2^64-1); one a line from stdin when none are given
    #[arg(value_name = "ID")]
    ids: Vec<String>,
}

#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// The encoding of the input: base62, base62-fixed, base32 or base32-fixed
    #[arg(long, value_name = "ENCODING", default_value = "base62")]
    from: Encoding,

    /// Encoded IDs; one a line from stdin when none are given
    #[arg(value_name = "TEXT", allow_hyphen_values = true)]
    texts: Vec<String>,
}

pub fn encode(args: &EncodeArgs) -> Result<(), CliError> {
    let mut sink = LineSink::new(0);
    inputs::for_each(&args.ids, |text| {
        let id = idmint_core::args::decimal_u64(text)?;
        let mut buf = [0u8; 13];
        let out = sink.out();
        out.write_all(args.to.encode_to(&mut buf, id))?;
        out.write_all(b"\n")?;
        Ok(())
    })?;
    Ok(sink.finish()?)
}

pub fn decode(args: &DecodeArgs) -> Result<(), CliError> {
    let mut sink = LineSink::new(0);
    let mut digits = itoa::Buffer::new();
    inputs::for_each(&args.texts, |text| {
        let id = args.from.decode(text)?;
        let out = sink.out();
        out.write_all(digits.format(id).as_bytes())?;
        out.write_all(b"\n")?;
        Ok(())
    })?;
    Ok(sink.finish()?)
}
