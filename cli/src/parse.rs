//! `idmint parse`: take an ID apart, as one line of JSON. The core tells the formats apart
//! (`idmint_core::formats`) and writes the JSON (`idmint_core::json`: the shape `idmint serve`'s
//! `/v1/parse` answers too); this prints it.

use std::io::{self, Write};

use idmint_core::formats::{self, Format};
use idmint_core::json::{DecodedJson, IdsAs};
use idmint_core::{Clock, Layout, WallClock};
use serde::Serialize;

use crate::args::layout_name;
use crate::report::{note, CliError};
use crate::ParseArgs;

pub fn run(args: &ParseArgs) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    if args.guess {
        guess(&mut out, &args.id, args.ids)?;
    } else {
        // A decimal says nothing of its layout: without one named, core reads it as a 64-bit
        // integer (and --guess shows what each preset makes of it), never as one of them.
        let layout = match args.layout.is_named() {
            true => Some(args.layout.resolve()?),
            false => None,
        };
        let decoded = match &args.format {
            Some(name) => formats::decode_as(&args.id, name.parse::<Format>()?, layout.as_ref())?,
            None => formats::decode(&args.id, layout.as_ref())?,
        };
        // After parsing, so that a bad ID gets its error alone, without a note beside the point.
        if let (Format::Snowflake, Some(layout)) = (decoded.format, &layout) {
            warn_if_exhausted(layout);
        }
        serde_json::to_writer(&mut out, &decoded.json(args.ids)).map_err(io::Error::from)?;
    }
    writeln!(out)?;
    Ok(out.flush()?)
}

/// `--ids`: core's names, `string` or `number`.
pub fn ids_as(text: &str) -> Result<IdsAs, String> {
    text.parse().map_err(|e: idmint_core::Error| e.to_string())
}

fn warn_if_exhausted(layout: &Layout) {
    if layout.is_exhausted_at(WallClock.now_ms()) {
        // IDs minted before the end still parse fine; this only warns that no new ones can be.
        note(format_args!(
            "layout {} ran out at {}; it can no longer mint IDs",
            layout_name(layout),
            layout.exhausts_at()
        ));
    }
}

/// `--guess` on a decimal ID: the ID as a 64-bit integer, and each preset's reading of it, all
/// in core's shape.
#[derive(Serialize)]
struct Guess<'a> {
    #[serde(flatten)]
    decoded: DecodedJson<'a>,
    readings: Vec<DecodedJson<'a>>,
}

/// `--guess`: a decimal ID as a 64-bit integer, with each preset's reading of it; any other
/// text as `decode` reads it (only a decimal leaves its layout open).
fn guess(out: &mut impl Write, text: &str, ids: IdsAs) -> Result<(), CliError> {
    let decoded = formats::decode(text, None)?;
    let written = match decoded.value.filter(|_| decoded.format == Format::Integer) {
        Some(id) => {
            let readings = formats::guess(id);
            let guess = Guess {
                decoded: decoded.json(ids),
                readings: readings.iter().map(|r| r.json(ids)).collect(),
            };
            serde_json::to_writer(out, &guess)
        }
        None => serde_json::to_writer(out, &decoded.json(ids)),
    };
    Ok(written.map_err(io::Error::from)?)
}
