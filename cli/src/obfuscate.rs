//! `idmint obfuscate`, `idmint reveal` and `idmint keygen`: keyed, reversible obfuscation of
//! 63-bit IDs with a key file.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use idmint_core::{Key, Keyring};

use crate::inputs;
use crate::report::{note, CliError};
use crate::sink::LineSink;

#[derive(Args, Debug)]
pub struct ObfuscateArgs {
    /// A key file: one key a line (`idmint keygen`); the highest version obfuscates
    #[arg(long, value_name = "FILE")]
    key_file: PathBuf,

    /// Print the 12-character tagged form (key version + base62) instead of a decimal BIGINT
    #[arg(long)]
    tagged: bool,

    /// IDs in decimal (0..=2^63-1); one a line from stdin when none are given
    #[arg(value_name = "ID", allow_negative_numbers = true)]
    ids: Vec<String>,
}

#[derive(Args, Debug)]
pub struct RevealArgs {
    /// The key file the values were obfuscated with (older keys included)
    #[arg(long, value_name = "FILE")]
    key_file: PathBuf,

    /// The key version of decimal values (default: the highest in the file)
    #[arg(long, value_name = "V", conflicts_with = "tagged")]
    key_version: Option<u8>,

    /// The values are in the tagged form, which names its key version
    #[arg(long)]
    tagged: bool,

    /// Decimal values (or tagged ones with --tagged); one a line from stdin when none are given
    #[arg(value_name = "VALUE", allow_hyphen_values = true)]
    values: Vec<String>,
}

#[derive(Args, Debug)]
pub struct KeygenArgs {
    /// The new key's version, 0..=61; use one above the highest in your key file to rotate
    #[arg(long = "key-version", value_name = "V", default_value_t = 1)]
    version: u8,
}

fn read_ring(path: &PathBuf) -> Result<Keyring, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::Core(idmint_core::Error::InvalidKey {
            key: format!("file {}", path.display()),
            reason: format!("cannot read it: {e}"),
        })
    })?;
    Ok(Keyring::parse(&text)?)
}

pub fn obfuscate(args: &ObfuscateArgs) -> Result<(), CliError> {
    let ring = read_ring(&args.key_file)?;
    let mut sink = LineSink::new(0);
    let mut digits = itoa::Buffer::new();
    inputs::for_each(&args.ids, |text| {
        let id = idmint_core::parse_id(text)?;
        let out = sink.out();
        if args.tagged {
            out.write_all(ring.obfuscate_tagged(id)?.as_bytes())?;
        } else {
            out.write_all(digits.format(ring.obfuscate(id)?).as_bytes())?;
        }
        out.write_all(b"\n")?;
        Ok(())
    })?;
    Ok(sink.finish()?)
}

pub fn reveal(args: &RevealArgs) -> Result<(), CliError> {
    let ring = read_ring(&args.key_file)?;
    let version = args.key_version.unwrap_or(ring.active().version());
    let mut sink = LineSink::new(0);
    let mut digits = itoa::Buffer::new();
    inputs::for_each(&args.values, |text| {
        let id = if args.tagged {
            ring.reveal_tagged(text)?
        } else {
            ring.reveal(version, idmint_core::parse_id(text)?)?
        };
        let out = sink.out();
        out.write_all(digits.format(id).as_bytes())?;
        out.write_all(b"\n")?;
        Ok(())
    })?;
    Ok(sink.finish()?)
}

pub fn keygen(args: &KeygenArgs) -> Result<(), CliError> {
    let key = Key::generate(args.version)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", key.to_text())?;
    note("keep this key secret: with it, anyone can reveal the IDs behind obfuscated values");
    Ok(())
}
