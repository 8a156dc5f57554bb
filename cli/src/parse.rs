//! `idmint parse`: take a snowflake ID or an ObjectId apart, as one line of JSON.

use std::io::{self, Write};

use idmint_core::{Clock, Layout, ObjectId, ParsedId, Parts, WallClock};

use crate::args::layout_name;
use crate::report::{note, CliError};
use crate::ParseArgs;

pub fn run(args: &ParseArgs) -> Result<(), CliError> {
    let layout = args.layout.resolve()?;
    let json = match ParsedId::parse(&args.id, &layout)? {
        ParsedId::ObjectId(oid) => object_id_json(&oid),
        ParsedId::Snowflake { id, parts } => {
            // After parsing, so that a bad ID gets its error alone, without a note beside the point.
            warn_if_exhausted(&layout);
            snowflake_json(id, &parts)
        }
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

fn snowflake_json(id: u64, parts: &Parts) -> String {
    let mut json = JsonObject::new();
    json.number("id", id);
    json.number("time_ms", parts.time_ms);
    json.string("time", &parts.time());
    for (name, value) in &parts.nodes {
        json.number(name, *value);
    }
    json.number("sequence", parts.sequence);
    json.finish()
}

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
