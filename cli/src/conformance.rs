//! `idmint conformance`: idmint's own adapter for the conformance runner of `docs/spec.md`
//! (`tests/conformance/run.py`). It reads one JSON request a line on stdin and answers each with
//! one JSON line on stdout, `{"ok": RESULT}` or `{"error": KIND, "message": TEXT}`, by calling
//! core. It converts between JSON and core's types and holds no rule of its own, so what the
//! runner checks is core itself; the ops and their fields are defined in docs/spec.md, "The
//! conformance protocol".

use std::io::{self, BufRead, Write};

use idmint_core::formats;
use idmint_core::health::health;
use idmint_core::json::IdsAs;
use idmint_core::metrics::{observe_snowflake, Observation};
use idmint_core::plan::{plan, Need, Width};
use idmint_core::typeid::TypeId;
use idmint_core::{
    CheckDigit, Encoding, Error, Key, Keyring, Layout, ManualClock, MemoryDailyCounter, ObjectId,
    OrderNumbers, Snowflake, Template, Uuid7,
};
use serde_json::{json, Map, Value};

use crate::report::CliError;

/// Every op the adapter answers, in the order docs/spec.md defines them (`--list-ops` of the
/// runner prints the runner's own list; this one answers `{"op": "ops"}`).
const OPS: &[&str] = &[
    "ops",
    "layout",
    "decompose",
    "compose",
    "decode",
    "objectid",
    "uuid7",
    "typeid_parse",
    "typeid_encode",
    "shortid_encode",
    "shortid_decode",
    "plan",
    "health",
    "layout_remaining",
    "start_above",
    "time_range",
    "obfuscate_key",
    "obfuscate",
    "reveal",
    "reveal_tagged",
    "template",
    "template_format",
    "template_parse",
    "template_daily",
];

pub fn run() -> Result<(), CliError> {
    let stdin = io::stdin().lock();
    let mut out = io::stdout().lock();
    for line in stdin.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<Value>(&line) {
            Ok(request) => respond(&request),
            Err(e) => Err(bad(
                "request",
                &line,
                &format!("one JSON object a line ({e})"),
            )),
        };
        let answer = match answer {
            Ok(result) => json!({ "ok": result }),
            Err(e) => json!({ "error": e.kind(), "message": e.to_string() }),
        };
        writeln!(out, "{answer}")?;
        // The runner waits for each answer before it sends the next request.
        out.flush()?;
    }
    Ok(())
}

fn bad(name: &str, value: &str, expected: &str) -> Error {
    Error::InvalidArgument {
        name: name.into(),
        value: value.into(),
        expected: expected.into(),
    }
}

fn field<'a>(req: &'a Value, name: &str) -> Result<&'a Value, Error> {
    req.get(name)
        .ok_or_else(|| bad(name, "(missing)", "a field of the request"))
}

fn text<'a>(req: &'a Value, name: &str) -> Result<&'a str, Error> {
    field(req, name)?
        .as_str()
        .ok_or_else(|| bad(name, &req[name].to_string(), "a string"))
}

fn opt_text<'a>(req: &'a Value, name: &str) -> Result<Option<&'a str>, Error> {
    match req.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => text(req, name).map(Some),
    }
}

/// A whole JSON number, kept wide so that negative and oversized values reach core, which
/// names them in its error.
fn int(req: &Value, name: &str) -> Result<i128, Error> {
    int_of(name, field(req, name)?)
}

fn int_of(name: &str, v: &Value) -> Result<i128, Error> {
    v.as_i64()
        .map(i128::from)
        .or_else(|| v.as_u64().map(i128::from))
        .ok_or_else(|| bad(name, &v.to_string(), "a whole JSON number"))
}

fn uint(req: &Value, name: &str) -> Result<u64, Error> {
    let v = field(req, name)?;
    v.as_u64()
        .ok_or_else(|| bad(name, &v.to_string(), "a whole JSON number 0..=2^64-1"))
}

/// A decimal string read as an unsigned 64-bit value (core's reading of decimal IDs).
fn decimal(req: &Value, name: &str) -> Result<u64, Error> {
    idmint_core::parse_u64(text(req, name)?)
}

fn object<'a>(req: &'a Value, name: &str) -> Result<&'a Map<String, Value>, Error> {
    let v = field(req, name)?;
    v.as_object()
        .ok_or_else(|| bad(name, &v.to_string(), "a JSON object"))
}

fn layout(req: &Value) -> Result<Layout, Error> {
    Layout::parse(text(req, "layout")?)
}

fn respond(req: &Value) -> Result<Value, Error> {
    let op = text(req, "op")?;
    match op {
        "ops" => Ok(json!(OPS)),
        "layout" => {
            let l = layout(req)?;
            Ok(json!({
                "spec": l.spec(),
                "preset": l.preset_name(),
                "total_bits": l.total_bits(),
                "unsigned": l.is_unsigned(),
                "exhausts_at_ms": l.exhausts_at_ms(),
                "exhausts_at": l.exhausts_at(),
            }))
        }
        "decompose" => {
            let parts = layout(req)?.decompose_str(text(req, "id")?)?;
            let fields: Map<String, Value> = parts
                .nodes
                .iter()
                .map(|(n, v)| (n.clone(), json!(v)))
                .collect();
            Ok(json!({
                "time_ms": parts.time_ms,
                "time": parts.time(),
                "fields": fields,
                "sequence": parts.sequence,
            }))
        }
        "compose" => {
            let l = layout(req)?;
            let fields = object(req, "fields")?
                .iter()
                .map(|(k, v)| int_of(k, v).map(|v| (k.as_str(), v)))
                .collect::<Result<Vec<_>, Error>>()?;
            let id = l.compose_values(int(req, "time_ms")?, fields, int(req, "sequence")?)?;
            Ok(json!({ "id": id.to_string() }))
        }
        "decode" => {
            let l = opt_text(req, "layout")?.map(Layout::parse).transpose()?;
            let decoded = match opt_text(req, "format")? {
                Some(f) => formats::decode_as(text(req, "text")?, f.parse()?, l.as_ref())?,
                None => formats::decode(text(req, "text")?, l.as_ref())?,
            };
            // The shape of `idmint parse --ids number` (parts as exact JSON numbers, as the
            // vectors write them), with the ID's `value` a decimal string as docs/spec.md says.
            let mut json =
                serde_json::to_value(decoded.json(IdsAs::Number)).expect("plain data serializes");
            json["value"] = decoded.value.map_or(Value::Null, |v| v.to_string().into());
            Ok(json)
        }
        "objectid" => {
            let oid = ObjectId::parse_str(text(req, "text")?)?;
            let random: String = oid.random().iter().map(|b| format!("{b:02x}")).collect();
            Ok(json!({
                "hex": oid.to_hex(),
                "time_s": oid.timestamp(),
                "time": oid.time(),
                "random": random,
                "counter": oid.counter(),
            }))
        }
        "uuid7" => {
            let input = text(req, "text")?;
            let u = match req.get("ulid").and_then(Value::as_bool) {
                Some(true) => Uuid7::parse_ulid(input)?,
                _ => Uuid7::parse_str(input)?,
            };
            Ok(json!({
                "uuid": u.to_string(),
                "time_ms": u.time_ms(),
                "time": u.time(),
                "rand_a": u.rand_a(),
                "rand_b": format!("{:016x}", u.rand_b()),
                "ulid": u.to_ulid(),
            }))
        }
        "typeid_parse" => {
            let t = TypeId::parse(text(req, "text")?)?;
            Ok(json!({ "typeid": t.to_string(), "prefix": t.prefix(), "uuid": t.uuid() }))
        }
        "typeid_encode" => {
            let uuid = text(req, "uuid")?;
            let hex: String = uuid.chars().filter(|c| *c != '-').collect();
            let value = Some(hex.as_str())
                .filter(|h| h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|h| u128::from_str_radix(h, 16).ok())
                .ok_or_else(|| bad("uuid", uuid, "32 hex digits, hyphens allowed"))?;
            let t = TypeId::new(text(req, "prefix")?, value)?;
            Ok(json!({ "typeid": t.to_string() }))
        }
        "shortid_encode" => {
            let enc: Encoding = text(req, "encoding")?.parse()?;
            Ok(json!({ "text": enc.encode(decimal(req, "value")?) }))
        }
        "shortid_decode" => {
            let enc: Encoding = text(req, "encoding")?.parse()?;
            Ok(json!({ "value": enc.decode(text(req, "text")?)?.to_string() }))
        }
        "plan" => {
            let n = field(req, "need")?;
            let width = match text(n, "width")? {
                "bigint" => Width::Bigint,
                "unsigned" => Width::Unsigned,
                "js-safe" => Width::JsSafe,
                w => return Err(bad("width", w, "bigint, unsigned or js-safe")),
            };
            let need = Need::new(uint(n, "nodes")?, uint(n, "rate")?, uint(n, "years")?)?
                .start_ms(uint(n, "start_ms")?)
                .width(width);
            let layouts = plan(&need)?;
            Ok(json!({ "layouts": serde_json::to_value(&layouts).expect("plain data serializes") }))
        }
        "health" => {
            let observations = field(req, "observations")?
                .as_array()
                .ok_or_else(|| bad("observations", "(not a list)", "a JSON list"))?
                .iter()
                .map(observation)
                .collect::<Result<Vec<_>, Error>>()?;
            Ok(serde_json::to_value(health(observations)).expect("plain data serializes"))
        }
        "layout_remaining" => {
            let mut b =
                Snowflake::with_clock(layout(req)?, ManualClock::new(uint(req, "clock_ms")?));
            for (k, v) in object(req, "nodes")? {
                b = b.node(k, int_of(k, v)?);
            }
            let g = b.build()?;
            let observed = observe_snowflake(&g);
            let remaining = observed
                .iter()
                .find(|o| o.metric == "idmint.layout.remaining")
                .map(|o| o.value);
            Ok(json!({
                "remaining_s": remaining,
                "status": health(observed).status.as_str(),
                "warns": g.lifetime_warning().is_some(),
            }))
        }
        "start_above" => {
            let on_rollback: idmint_core::OnRollback = text(req, "on_rollback")?.parse()?;
            let mut b =
                Snowflake::with_clock(layout(req)?, ManualClock::new(uint(req, "clock_ms")?))
                    .start_above(decimal(req, "above")?)
                    .on_rollback(on_rollback);
            for (k, v) in object(req, "nodes")? {
                b = b.node(k, int_of(k, v)?);
            }
            let g = b.build()?;
            Ok(json!({ "first_id": g.next_id()?.to_string() }))
        }
        "time_range" => {
            let l = layout(req)?;
            let time_ms = int(req, "time_ms")?;
            Ok(json!({
                "min_id": l.min_id_at(time_ms)?.to_string(),
                "max_id": l.max_id_at(time_ms)?.to_string(),
            }))
        }
        "obfuscate_key" => {
            let key = Key::parse(text(req, "key")?)?;
            Ok(json!({ "version": key.version(), "text": key.to_text() }))
        }
        "obfuscate" => {
            let ring = Keyring::new([Key::parse(text(req, "key")?)?])?;
            let id = decimal(req, "id")?;
            let obfuscated = ring.obfuscate(id)?;
            Ok(json!({
                "obfuscated": obfuscated.to_string(),
                "tagged": ring.obfuscate_tagged(id)?,
            }))
        }
        "reveal" => {
            let key = Key::parse(text(req, "key")?)?;
            let ring = Keyring::new([key.clone()])?;
            let id = ring.reveal(key.version(), decimal(req, "obfuscated")?)?;
            Ok(json!({ "id": id.to_string() }))
        }
        "reveal_tagged" => {
            let ring = Keyring::parse(text(req, "keyring")?)?;
            Ok(json!({ "id": ring.reveal_tagged(text(req, "tagged")?)?.to_string() }))
        }
        "template" => {
            let t = template(req)?;
            Ok(json!({
                "template": t.pattern(),
                "sequence_width": t.sequence_width(),
                "capacity": t.capacity().to_string(),
            }))
        }
        "template_format" => {
            let formatted =
                template(req)?.format(uint(req, "time_ms")?, decimal(req, "sequence")?)?;
            Ok(json!({ "formatted": formatted }))
        }
        "template_parse" => {
            let p = template(req)?.parse(text(req, "text")?)?;
            let mut parts = Map::new();
            let mut put = |k: &str, v: Option<Value>| {
                if let Some(v) = v {
                    parts.insert(k.to_string(), v);
                }
            };
            put("year", p.year.map(Value::from));
            put("month", p.month.map(Value::from));
            put("day", p.day.map(Value::from));
            put("hour", p.hour.map(Value::from));
            put("minute", p.minute.map(Value::from));
            put("second", p.second.map(Value::from));
            put("label", p.label.map(Value::from));
            put("sequence", Some(Value::from(p.sequence)));
            put("check", p.check.map(Value::from));
            Ok(json!({ "parts": parts }))
        }
        "template_daily" => {
            let times = field(req, "times_ms")?
                .as_array()
                .ok_or_else(|| bad("times_ms", "(not a list)", "a JSON list of unix ms"))?
                .iter()
                .map(|t| {
                    t.as_u64()
                        .ok_or_else(|| bad("times_ms", &t.to_string(), "unix ms"))
                })
                .collect::<Result<Vec<_>, Error>>()?;
            let clock = ManualClock::new(times.first().copied().unwrap_or(0));
            let orders = OrderNumbers::new(template(req)?, MemoryDailyCounter::new(), &clock)?;
            let formatted = times
                .iter()
                .map(|t| {
                    clock.set_ms(*t);
                    orders.next()
                })
                .collect::<Result<Vec<_>, Error>>()?;
            Ok(json!({ "formatted": formatted }))
        }
        other => Err(bad("op", other, &format!("one of {}", OPS.join(", ")))),
    }
}

/// One observation as the packages' `observe()` gives it: `{metric, value, attributes}`.
fn observation(o: &Value) -> Result<Observation, Error> {
    let value = field(o, "value")?
        .as_f64()
        .ok_or_else(|| bad("value", &o["value"].to_string(), "a JSON number"))?;
    let attributes = object(o, "attributes")?
        .iter()
        .map(|(k, v)| {
            v.as_str()
                .map(|s| (k.clone(), s.to_string()))
                .ok_or_else(|| bad(k, &v.to_string(), "a string attribute value"))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Observation::parse(text(o, "metric")?, value, attributes)
}

/// A template with the request's optional `label`, `offset` (default UTC) and `check`
/// (default none).
fn template(req: &Value) -> Result<Template, Error> {
    let mut t = Template::new(text(req, "template")?)?;
    if let Some(offset) = opt_text(req, "offset")? {
        t = t.offset(offset)?;
    }
    if let Some(check) = opt_text(req, "check")? {
        t = t.check_digit(check.parse::<CheckDigit>()?);
    }
    if let Some(label) = opt_text(req, "label")? {
        t = t.label(label)?;
    }
    Ok(t)
}
