//! Runs `tests/vectors/formats.json`: the 64-bit presets and layouts, and each ID format's own
//! published examples through `formats::decode`.

use std::collections::{BTreeMap, HashSet};
use std::sync::Mutex;

use idmint_core::formats::{decode, decode_as, guess, Format, PartValue};
use idmint_core::{Layout, ManualClock, Snowflake, UNSIGNED_PRESETS};
use serde_json::Value;

fn load() -> Value {
    let path = format!(
        "{}/../tests/vectors/formats.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn cases<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    let list = v[key].as_array().unwrap_or_else(|| panic!("no list {key}"));
    assert!(!list.is_empty(), "{key} is empty");
    list
}

fn text<'a>(case: &'a Value, key: &str) -> &'a str {
    case[key]
        .as_str()
        .unwrap_or_else(|| panic!("{}: no {key}", case["name"]))
}

#[test]
fn presets_are_the_vectors_specs() {
    let v = load();
    let listed: Vec<&str> = cases(&v, "presets")
        .iter()
        .map(|c| text(c, "layout"))
        .collect();
    assert_eq!(listed, UNSIGNED_PRESETS);
    for case in cases(&v, "presets") {
        let layout = Layout::preset(text(case, "layout")).unwrap();
        assert_eq!(layout.spec(), text(case, "spec"));
        assert_eq!(
            Some(u64::from(layout.total_bits())),
            case["total_bits"].as_u64()
        );
        // The spec reads back as the same layout, as every spec does.
        assert_eq!(
            Layout::parse(text(case, "spec")).unwrap(),
            layout.without_preset_name()
        );
    }
}

#[test]
fn sixty_four_bit_snowflakes_decompose_and_compose() {
    let v = load();
    for case in cases(&v, "snowflakes") {
        let name = &case["name"];
        let layout = Layout::parse(text(case, "layout")).unwrap();
        let id: u64 = text(case, "id").parse().unwrap();
        let parts = layout.decompose_str(text(case, "id")).unwrap();
        assert_eq!(Some(parts.time_ms), case["time_ms"].as_u64(), "{name}");
        assert_eq!(parts.time(), text(case, "time"), "{name}");
        assert_eq!(Some(parts.sequence), case["sequence"].as_u64(), "{name}");
        let fields = case["fields"].as_object().unwrap();
        assert_eq!(parts.nodes.len(), fields.len(), "{name}");
        for (field, value) in fields {
            assert_eq!(parts.node(field), value.as_u64(), "{name}: {field}");
        }
        assert_eq!(layout.compose(&parts).unwrap(), id, "{name}");
        assert_eq!(layout.decompose_wide(i128::from(id)).unwrap(), parts);
    }
    for case in cases(&v, "invalid_snowflakes") {
        let err = Layout::parse(text(case, "layout"))
            .unwrap()
            .decompose_str(text(case, "id"))
            .unwrap_err();
        assert_eq!(err.kind(), text(case, "error"), "{}", case["name"]);
    }
    for case in cases(&v, "invalid_layouts") {
        let err = Layout::parse(text(case, "layout")).unwrap_err();
        assert_eq!(err.kind(), text(case, "error"), "{}", case["name"]);
    }
}

/// A vector's part, as the core gives it: numbers as `Int`, strings as `Text`.
fn part_value(v: &Value) -> PartValue {
    match v {
        Value::Number(n) => PartValue::Int(n.as_u64().unwrap()),
        Value::String(s) => PartValue::Text(s.clone()),
        other => panic!("part {other}"),
    }
}

#[test]
fn each_format_decodes_its_published_examples() {
    let v = load();
    let mut seen = HashSet::new();
    for case in cases(&v, "decode") {
        let name = &case["name"];
        let layout = case["layout"].as_str().map(|l| Layout::parse(l).unwrap());
        let d =
            decode(text(case, "text"), layout.as_ref()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(d.format.name(), text(case, "format"), "{name}");
        assert_eq!(d.id, text(case, "id"), "{name}");
        assert_eq!(
            d.value.map(|v| v.to_string()).as_deref(),
            case["value"].as_str(),
            "{name}"
        );
        assert_eq!(d.time_ms, case["time_ms"].as_i64(), "{name}");
        assert_eq!(d.time.as_deref(), case["time"].as_str(), "{name}");
        // serde_json sorts an object's keys: the parts are compared by name (their order, the
        // bits' order, is the format's, checked in the core's own tests).
        let want: BTreeMap<String, PartValue> = case["parts"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), part_value(v)))
            .collect();
        let got: BTreeMap<String, PartValue> = d.parts.iter().cloned().collect();
        assert_eq!((got, d.parts.len()), (want.clone(), want.len()), "{name}");
        assert_eq!(d.layout.as_deref(), case["layout"].as_str(), "{name}");
        // The canonical text reads back as the same ID, also when its format is named.
        assert_eq!(decode(&d.id, layout.as_ref()).unwrap(), d, "{name}");
        assert_eq!(
            decode_as(text(case, "text"), d.format, layout.as_ref()).unwrap(),
            d,
            "{name}"
        );
        seen.insert(d.format);
    }
    assert_eq!(seen.len(), Format::ALL.len(), "a format without an example");
    for case in cases(&v, "invalid") {
        let err = decode(text(case, "text"), None).unwrap_err();
        assert_eq!(err.kind(), text(case, "error"), "{}", case["name"]);
    }
}

#[test]
fn unrecognised_text_names_every_format_tried() {
    let err = decode("not-an-id", None).unwrap_err().to_string();
    for format in [
        "decimal", "ObjectId", "UUID", "ULID", "KSUID", "xid", "TSID",
    ] {
        assert!(err.contains(format), "{format}: {err}");
    }
    // A text of a format's length says what that format found wrong.
    let err = decode("01ARZ3NDEKTSV4RRFFQ69G5FAU", None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a valid ULID"), "{err}");
}

#[test]
fn a_decimal_is_never_silently_one_presets_reading() {
    let d = decode("175928847299117063", None).unwrap();
    assert_eq!(
        (d.format, d.time_ms, d.layout),
        (Format::Integer, None, None)
    );
    let readings = guess(175928847299117063);
    let layouts: Vec<_> = readings.iter().map(|r| r.layout.clone().unwrap()).collect();
    assert!(layouts.contains(&"twitter".to_string()));
    assert!(layouts.contains(&"discord".to_string()));
}

#[test]
fn minting_a_64_bit_layout_needs_the_opt_in() {
    let clock = ManualClock::new(1_700_000_000_000);
    for name in ["discord", "instagram", "tsid"] {
        let layout = Layout::preset(name).unwrap();
        let err = Snowflake::with_clock(layout.clone(), &clock)
            .random_nodes()
            .build()
            .unwrap_err();
        assert_eq!(err.kind(), "invalid_layout", "{name}");
        let message = err.to_string();
        for says in ["64 bits", "BIGINT", "Java long", "2^53", "unsigned"] {
            assert!(message.contains(says), "{name}: {says}: {message}");
        }
        let gen = Snowflake::with_clock(layout, &clock)
            .unsigned()
            .random_nodes()
            .build()
            .unwrap();
        assert!(gen.next_id().is_ok(), "{name}");
    }
    // A custom spec says `unsigned` itself, and still needs the generator's opt-in.
    let spec = Layout::parse("time:42,worker:10,sequence:12,unsigned").unwrap();
    assert!(Snowflake::with_clock(spec.clone(), &clock)
        .node("worker", 1)
        .build()
        .is_err());
    // No node field: never minted, with or without the opt-in.
    let err = Snowflake::with_clock(Layout::preset("mastodon").unwrap(), &clock)
        .unsigned()
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("no node field"), "{err}");
    // 63-bit layouts need nothing, unsigned or not.
    let l63 = Layout::parse("time:41,worker:10,sequence:12,unsigned").unwrap();
    assert!(Snowflake::with_clock(l63, &clock)
        .node("worker", 1)
        .build()
        .is_ok());
}

#[test]
fn top_bit_ids_round_trip_through_compose_and_decode() {
    let discord = Layout::preset("discord").unwrap();
    // The first millisecond whose IDs have bit 63 set: 2^41 ms after Discord's epoch.
    let time_ms = 1_420_070_400_000 + (1u64 << 41);
    let id = discord
        .compose_values(i128::from(time_ms), [("worker", 31), ("process", 31)], 4095)
        .unwrap();
    assert!(id > i64::MAX as u64);
    let d = decode(&id.to_string(), Some(&discord)).unwrap();
    assert_eq!(d.time_ms, Some(time_ms as i64));
    assert_eq!(d.part("sequence"), Some(&PartValue::Int(4095)));
    // The same text with a 63-bit layout is refused, naming the limit.
    let err = decode(&id.to_string(), Some(&Layout::preset("twitter").unwrap())).unwrap_err();
    assert!(err.to_string().contains("2^63-1"), "{err}");
}

#[test]
fn a_generator_mints_top_bit_ids_in_order_once_opted_in() {
    let discord = Layout::preset("discord").unwrap();
    // 2090: Discord's IDs have had bit 63 set since 2084-09-06.
    let clock = ManualClock::new(3_786_912_000_000);
    let gen = Snowflake::with_clock(discord.clone(), &clock)
        .unsigned()
        .node("worker", 31)
        .node("process", 31)
        .build()
        .unwrap();
    let ids = gen.next_ids(10_000).unwrap();
    assert!(ids.iter().all(|id| *id > i64::MAX as u64));
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    for id in [ids[0], ids[9_999]] {
        let d = decode(&id.to_string(), Some(&discord)).unwrap();
        assert_eq!(d.part("worker"), Some(&PartValue::Int(31)));
        let parts = discord.decompose(id).unwrap();
        assert_eq!(discord.compose(&parts).unwrap(), id);
    }
}

#[test]
fn one_million_ids_from_four_threads_of_a_64_bit_layout_are_distinct() {
    let gen = Snowflake::builder(Layout::preset("discord").unwrap())
        .unsigned()
        .node("worker", 1)
        .node("process", 0)
        .build()
        .unwrap();
    let (threads, per_thread) = (4, 250_000);
    let all = Mutex::new(Vec::with_capacity(threads * per_thread));
    // One generator shared by four threads: its single atomic word orders them all.
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let ids: Vec<u64> = (0..per_thread).map(|_| gen.next_id().unwrap()).collect();
                assert!(ids.windows(2).all(|w| w[0] < w[1]));
                all.lock().unwrap().extend(ids);
            });
        }
    });
    let all = all.into_inner().unwrap();
    assert_eq!(all.len(), threads * per_thread);
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), all.len());
}

proptest::proptest! {
    /// What the `parse_id` fuzz target asserts, on texts shaped like each format: read or
    /// refused without a panic, and a text read reads again, from its canonical form, as the
    /// same ID.
    #[test]
    fn decoded_text_reads_back_from_its_canonical_form(
        text in "([0-9]{1,22}|[0-9a-fA-F]{24}|[0-9a-fA-F-]{32,38}|[0-9A-Za-z]{13}|[0-9A-Za-z]{20}|[0-9A-Za-z]{26,27}|.{0,40})"
    ) {
        let discord = Layout::preset("discord").unwrap();
        for layout in [None, Some(&discord)] {
            if let Ok(d) = decode(&text, layout) {
                proptest::prop_assert_eq!(&decode_as(&d.id, d.format, layout).unwrap(), &d);
                // A TSID's canonical text may be all digits, which reads as a decimal.
                if !d.id.bytes().all(|b| b.is_ascii_digit()) || d.format == Format::Integer {
                    proptest::prop_assert_eq!(&decode(&d.id, layout).unwrap(), &d);
                }
                proptest::prop_assert_eq!(&decode_as(&text, d.format, layout).unwrap(), &d);
            }
        }
    }
}

/// Every vector in the one JSON shape of a decoded ID (`idmint_core::json`): the vector's own
/// fields, the same seven keys for every format, 64-bit integers as `IdsAs` says.
#[cfg(feature = "serde")]
#[test]
fn each_vector_serializes_to_the_one_json_shape() {
    use idmint_core::json::IdsAs;
    let v = load();
    for case in cases(&v, "decode") {
        let name = &case["name"];
        let layout = case["layout"].as_str().map(|l| Layout::parse(l).unwrap());
        let d = decode(text(case, "text"), layout.as_ref()).unwrap();
        // The vector's parts are numbers of any size; as strings above 2^53 - 1 by default.
        let parts = |numbers: bool| -> serde_json::Map<String, Value> {
            case["parts"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, p)| match p.as_u64() {
                    Some(n) if !numbers && n > (1 << 53) - 1 => (k.clone(), n.to_string().into()),
                    _ => (k.clone(), p.clone()),
                })
                .collect()
        };
        let number = case["value"]
            .as_str()
            .map(|v| Value::from(v.parse::<u64>().unwrap()))
            .unwrap_or(Value::Null);
        for (ids, value, numbers) in [
            (IdsAs::String, case["value"].clone(), false),
            (IdsAs::Number, number, true),
        ] {
            let want = serde_json::json!({
                "format": case["format"],
                "id": case["id"],
                "value": value,
                "time_ms": case["time_ms"],
                "time": case["time"],
                "layout": case["layout"],
                "parts": parts(numbers),
            });
            assert_eq!(serde_json::to_value(d.json(ids)).unwrap(), want, "{name}");
        }
        // `Serialize` on the decoded value itself is the default, strings.
        let text = serde_json::to_string(&d).unwrap();
        assert_eq!(text, serde_json::to_string(&d.json(IdsAs::String)).unwrap());
        // Keys in one order for every format, then the parts in the order of the ID's bits.
        let order = [
            "format", "id", "value", "time_ms", "time", "layout", "parts",
        ]
        .into_iter()
        .map(str::to_string)
        .chain(d.parts.iter().map(|(n, _)| n.clone()));
        let mut at = 0;
        for key in order {
            let found = text[at..]
                .find(&format!("\"{key}\":"))
                .unwrap_or_else(|| panic!("{name}: {key} out of order in {text}"));
            at += found + key.len();
        }
    }
}

#[cfg(feature = "serde")]
#[test]
fn ids_as_reads_its_two_names_only() {
    use idmint_core::json::IdsAs;
    for ids in IdsAs::ALL {
        assert_eq!(ids.name().parse::<IdsAs>().unwrap(), ids);
        let json: IdsAs = serde_json::from_str(&format!("\"{}\"", ids.name())).unwrap();
        assert_eq!(json, ids);
    }
    for bad in ["", "String", "numbers", "int"] {
        let err = bad.parse::<IdsAs>().unwrap_err();
        assert_eq!(err.kind(), "invalid_argument", "{bad}");
        assert!(err.to_string().contains("string or number"), "{err}");
    }
}
