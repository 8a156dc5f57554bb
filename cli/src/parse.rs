//! `idmint parse`: take an ID apart, as one line of JSON. The core tells the formats apart
//! (`idmint_core::formats`); this prints what it found.

use std::io::{self, Write};

use idmint_core::formats::{self, Decoded, Format, PartValue};
use idmint_core::{Clock, Layout, ObjectId, WallClock};

use crate::args::layout_name;
use crate::report::{note, CliError};
use crate::ParseArgs;

pub fn run(args: &ParseArgs) -> Result<(), CliError> {
    let json = if args.guess {
        guess_json(&args.id)?
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
        decoded_json(&decoded)
    };
    let mut out = io::stdout().lock();
    writeln!(out, "{json}")?;
    Ok(out.flush()?)
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

/// `--guess`: a decimal ID as a 64-bit integer, with each preset's reading of it; any other
/// text as `decode` reads it (only a decimal leaves its layout open).
fn guess_json(text: &str) -> Result<String, CliError> {
    let decoded = formats::decode(text, None)?;
    let Some(id) = decoded.value.filter(|_| decoded.format == Format::Integer) else {
        return Ok(decoded_json(&decoded));
    };
    let mut json = generic_json(&decoded);
    json.key("readings");
    json.0.push('[');
    for (i, reading) in formats::guess(id).iter().enumerate() {
        if i > 0 {
            json.0.push(',');
        }
        let mut one = JsonObject::new();
        one.string("layout", reading.layout.as_deref().unwrap_or_default());
        timed_parts(&mut one, reading);
        json.0.push_str(&one.finish());
    }
    json.0.push(']');
    Ok(json.finish())
}

/// The line for one decoded ID. Snowflakes and ObjectIds keep the lines `idmint parse` has
/// always printed; the other formats name themselves first.
fn decoded_json(d: &Decoded) -> String {
    match d.format {
        Format::Snowflake => snowflake_json(d),
        Format::ObjectId => match ObjectId::parse_str(&d.id) {
            Ok(oid) => object_id_json(&oid),
            Err(_) => generic_json(d).finish(),
        },
        _ => generic_json(d).finish(),
    }
}

fn snowflake_json(d: &Decoded) -> String {
    let mut json = JsonObject::new();
    json.number("id", d.value.unwrap_or_default());
    timed_parts(&mut json, d);
    json.finish()
}

/// `time_ms`, `time` and the parts: what a snowflake line and a `--guess` reading hold.
fn timed_parts(json: &mut JsonObject, d: &Decoded) {
    if let Some(ms) = d.time_ms {
        json.signed("time_ms", ms);
    }
    if let Some(time) = &d.time {
        json.string("time", time);
    }
    parts(json, d);
}

fn parts(json: &mut JsonObject, d: &Decoded) {
    for (name, value) in &d.parts {
        match value {
            PartValue::Int(v) => json.number(name, *v),
            PartValue::Text(t) => json.string(name, t),
        }
    }
}

/// `{"format":…,"id":…,["value":…,]["time_ms":…,"time":…,]parts…}`: the ID as text, except an
/// integer's, which is a number as a snowflake's is.
fn generic_json(d: &Decoded) -> JsonObject {
    let mut json = JsonObject::new();
    json.string("format", d.format.name());
    match (d.format, d.value) {
        (Format::Integer, Some(v)) => json.number("id", v),
        (_, value) => {
            json.string("id", &d.id);
            if let Some(v) = value {
                json.number("value", v);
            }
        }
    }
    timed_parts(&mut json, d);
    json
}

/// The ObjectId line, as it has always been (`idmint demo` prints the same parts).
fn object_id_json(oid: &ObjectId) -> String {
    let mut json = JsonObject::new();
    json.string("id", &oid.to_hex());
    json.number("time_s", oid.timestamp());
    json.string("time", &oid.time());
    json.string("random", &random_hex(oid));
    json.number("counter", oid.counter());
    json.finish()
}

/// The ObjectId's 5 random bytes as 10 lowercase hex digits.
pub fn random_hex(oid: &ObjectId) -> String {
    oid.random().iter().map(|b| format!("{b:02x}")).collect()
}

/// A JSON object written key by key: keys keep the order given (a `serde_json::Map` would sort
/// them), and IDs are numbers written digit for digit, never through an `f64`.
struct JsonObject(String);

impl JsonObject {
    fn new() -> Self {
        JsonObject(String::from("{"))
    }

    fn key(&mut self, key: &str) {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        self.0.push_str(&quoted(key));
        self.0.push(':');
    }

    fn number(&mut self, key: &str, value: impl Into<u64>) {
        self.key(key);
        self.0.push_str(itoa::Buffer::new().format(value.into()));
    }

    /// A time in ms may be negative (a UUIDv1 from before 1970).
    fn signed(&mut self, key: &str, value: i64) {
        self.key(key);
        self.0.push_str(itoa::Buffer::new().format(value));
    }

    fn string(&mut self, key: &str, value: &str) {
        self.key(key);
        self.0.push_str(&quoted(value));
    }

    fn finish(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}
