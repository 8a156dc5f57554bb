//! Runs the built `idmint` binary as a user would.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

fn idmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idmint"))
        .args(args)
        .output()
        .expect("run idmint")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("utf-8 stderr")
}

/// Run and require success; the lines of stdout.
fn lines_of(args: &[&str]) -> Vec<String> {
    let out = idmint(args);
    assert!(out.status.success(), "{args:?} failed: {}", stderr(&out));
    stdout(&out).lines().map(str::to_string).collect()
}

/// Run and require failure with `code`; stderr.
fn failure(args: &[&str], code: i32) -> String {
    let out = idmint(args);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
    assert!(out.stdout.is_empty(), "{args:?} printed {}", stdout(&out));
    let err = stderr(&out);
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

/// `parse` one ID and return its JSON, 64-bit integers as numbers (`--ids number`).
fn parse(layout_args: &[&str], id: &str) -> serde_json::Value {
    let mut args = vec!["parse", "--ids", "number"];
    args.extend_from_slice(layout_args);
    args.push(id);
    let lines = lines_of(&args);
    assert_eq!(lines.len(), 1, "{lines:?}");
    serde_json::from_str(&lines[0]).expect("parse prints JSON")
}

fn ids(lines: &[String]) -> Vec<u64> {
    lines
        .iter()
        .map(|l| l.parse().unwrap_or_else(|_| panic!("not an ID: {l:?}")))
        .collect()
}

#[test]
fn parse_redis_lua_example_exactly() {
    let out = idmint(&["parse", "--layout", "redis-lua", "5981966696448054276"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "{\"format\":\"snowflake\",\"id\":\"5981966696448054276\",\"value\":\"5981966696448054276\",\"time_ms\":1426212000000,\"time\":\"2015-03-13T02:00:00.000Z\",\"layout\":\"redis-lua\",\"parts\":{\"shard\":53,\"sequence\":4}}\n"
    );
    assert_eq!(stderr(&out), "");
    // The ID as a number, digit for digit, when asked; a bad choice is a usage error.
    let out = idmint(&[
        "parse",
        "--ids",
        "number",
        "--layout",
        "redis-lua",
        "5981966696448054276",
    ]);
    assert!(
        stdout(&out).contains(",\"value\":5981966696448054276,"),
        "{}",
        stdout(&out)
    );
    let err = failure(&["parse", "--ids", "numbers", "1"], 2);
    assert!(err.contains("string or number"), "{err}");
}

#[test]
fn parse_object_id() {
    let expected = "{\"format\":\"objectid\",\"id\":\"507f1f77bcf86cd799439011\",\"value\":null,\"time_ms\":1350508407000,\"time\":\"2012-10-17T21:13:27Z\",\"layout\":null,\"parts\":{\"time_s\":1350508407,\"random\":\"bcf86cd799\",\"counter\":4427793}}\n";
    for text in ["507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011"] {
        let out = idmint(&["parse", text]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stdout(&out), expected);
    }
    let err = failure(&["parse", "507f1f77bcf86cd79943901g"], 1);
    assert!(err.contains("'g' at position 23"), "{err}");
}

#[test]
fn parse_rejects_bad_ids_with_exit_1() {
    for (id, says) in [
        ("-1", "negative"),
        ("9223372036854775808", "above 2^63-1"),
        ("abc", "not a decimal integer"),
    ] {
        // With a layout named: a 64-bit integer without one may take all 64 bits.
        let err = failure(&["parse", "--layout", "twitter", "--", id], 1);
        assert!(err.contains(says), "{id}: {err}");
        assert!(err.contains(id), "{id}: {err}");
    }
    // Within 2^63-1 but above the bits of this 62-bit layout.
    let err = failure(
        &[
            "parse",
            "--layout-spec",
            "time:41,worker:10,sequence:11",
            "4611686018427387904",
        ],
        1,
    );
    assert!(err.contains("above this layout's 62 bits"), "{err}");
}

#[test]
fn parse_with_an_exhausted_layout_notes_it_and_still_parses() {
    let out = idmint(&["parse", "--layout", "baidu", "8193"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with("note: layout baidu ran out at 2024-11-20"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let json: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(json["parts"]["worker"], 1);
    assert_eq!(json["parts"]["sequence"], 1);
}

#[test]
fn snowflake_100000_increasing_distinct_with_node_values() {
    let lines = lines_of(&[
        "snowflake",
        "--count",
        "100000",
        "--node",
        "datacenter=3",
        "--node",
        "worker=9",
    ]);
    let ids = ids(&lines);
    assert_eq!(ids.len(), 100_000);
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "not strictly increasing"
    );
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 100_000);
    // All of them decompose with the node values given; a spread of them also goes through
    // `idmint parse`, as 100000 processes would make the test slow.
    let layout = idmint_core::Layout::preset("twitter").unwrap();
    for id in &ids {
        let parts = layout.decompose(*id).unwrap();
        assert_eq!(parts.node("datacenter"), Some(3), "{id}");
        assert_eq!(parts.node("worker"), Some(9), "{id}");
    }
    for id in ids.iter().step_by(20_000).chain(ids.last()) {
        let json = parse(&["--layout", "twitter"], &id.to_string());
        assert_eq!(json["parts"]["datacenter"], 3);
        assert_eq!(json["parts"]["worker"], 9);
        assert_eq!(json["value"].as_u64(), Some(*id));
        assert_eq!(json["id"], id.to_string());
    }
}

#[test]
fn snowflake_node_values_are_given_random_or_leased_never_defaulted() {
    let err = failure(&["snowflake"], 1);
    assert!(
        err.contains("datacenter") && err.contains("missing"),
        "{err}"
    );
    let err = failure(&["snowflake", "--node", "worker=1"], 1);
    assert!(err.contains("datacenter"), "{err}");
    let out = idmint(&["snowflake", "--node", "worker=1", "--node", "datacenter=2"]);
    assert!(out.status.success());
    assert_eq!(stderr(&out), "");
    let ids = lines_of(&["snowflake", "--random-nodes", "--count", "3"]);
    assert_eq!(ids.len(), 3);
    let id = lines_of(&["snowflake", "--random-nodes", "--node", "worker=9"]);
    assert_eq!(
        parse(&["--layout", "twitter"], &id[0])["parts"]["worker"],
        9,
        "--node keeps its field, the rest are drawn"
    );
}

#[test]
fn snowflake_sonyflake_max_machine() {
    let lines = lines_of(&[
        "snowflake",
        "--layout",
        "sonyflake",
        "--node",
        "machine=65535",
        "--count",
        "3",
    ]);
    assert_eq!(lines.len(), 3);
    for id in &lines {
        assert_eq!(
            parse(&["--layout", "sonyflake"], id)["parts"]["machine"],
            65535
        );
    }
}

#[test]
fn snowflake_layout_spec_with_epoch() {
    let layout = [
        "--layout-spec",
        "time:41,worker:10,sequence:12",
        "--epoch",
        "2020-01-01T00:00:00Z",
    ];
    let mut args = vec!["snowflake", "--node", "worker=1023", "--count", "5"];
    args.extend_from_slice(&layout);
    let lines = lines_of(&args);
    assert_eq!(lines.len(), 5);
    for id in &lines {
        let json = parse(&layout, id);
        assert_eq!(json["parts"]["worker"], 1023);
        assert!(json["time_ms"].as_u64().unwrap() > 1_577_836_800_000);
    }
}

#[test]
fn layout_and_layout_spec_exclude_each_other() {
    let out = idmint(&[
        "snowflake",
        "--layout",
        "twitter",
        "--layout-spec",
        "time:41,worker:10,sequence:12",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot be used with"));
}

#[test]
fn baidu_has_run_out_but_works_from_a_later_epoch() {
    let err = failure(&["snowflake", "--layout", "baidu"], 1);
    assert!(err.contains("2024-11-20"), "{err}");
    let lines = lines_of(&[
        "snowflake",
        "--layout",
        "baidu",
        "--epoch",
        "2025-01-01T00:00:00Z",
        "--node",
        "worker=4194303",
        "--count",
        "3",
    ]);
    assert_eq!(lines.len(), 3);
}

#[test]
fn bad_node_values_and_names() {
    let err = failure(
        &["snowflake", "--node", "datacenter=0", "--node", "worker=32"],
        1,
    );
    assert!(err.contains("32") && err.contains("0..=31"), "{err}");
    let err = failure(&["snowflake", "--node", "nope=1"], 1);
    assert!(
        err.contains("`nope`") && err.contains("datacenter, worker"),
        "{err}"
    );
    // Not an integer is a usage error, found before the layout is consulted.
    let err = failure(&["snowflake", "--node", "worker=seven"], 2);
    assert!(err.contains("`seven`") && err.contains("worker"), "{err}");
    let err = failure(&["snowflake", "--node", "worker"], 2);
    assert!(err.contains("NAME=VALUE"), "{err}");
}

#[test]
fn unreadable_arguments_exit_2() {
    let err = failure(&["snowflake", "--layout", "twiter"], 2);
    assert!(err.contains("unknown preset"), "{err}");
    let err = failure(&["snowflake", "--epoch", "yesterday"], 2);
    assert!(err.contains("yesterday"), "{err}");
    failure(&["snowflake", "--no-such-flag"], 2);
    failure(&["snowflake", "--on-exhausted", "borrow:soon"], 2);
    failure(&["snowflake", "--on-rollback", "ignore"], 2);
}

#[test]
fn policies_are_accepted() {
    for (flag, value) in [
        ("--on-exhausted", "wait"),
        ("--on-exhausted", "borrow:50"),
        ("--on-rollback", "error"),
        ("--on-rollback", "wait:500"),
        ("--on-rollback", "continue"),
    ] {
        assert_eq!(
            lines_of(&["snowflake", "--random-nodes", flag, value, "--count", "2"]).len(),
            2
        );
    }
}

#[test]
fn compose_round_trips_with_parse() {
    let id = lines_of(&[
        "compose",
        "--layout",
        "redis-lua",
        "--time",
        "2015-03-13T02:00:00Z",
        "--node",
        "shard=53",
        "--sequence",
        "4",
    ]);
    assert_eq!(id, ["5981966696448054276"]);

    let args = [
        "compose",
        "--time",
        "1656432460105",
        "--node",
        "datacenter=11",
        "--node",
        "worker=26",
        "--sequence",
        "7",
    ];
    let id = lines_of(&args).remove(0);
    let json = parse(&["--layout", "twitter"], &id);
    assert_eq!(json["time_ms"], 1656432460105u64);
    assert_eq!(json["parts"]["datacenter"], 11);
    assert_eq!(json["parts"]["worker"], 26);
    assert_eq!(json["parts"]["sequence"], 7);

    let err = failure(
        &[
            "compose",
            "--layout",
            "redis-lua",
            "--time",
            "0",
            "--node",
            "shard=1",
            "--sequence",
            "-1",
        ],
        1,
    );
    assert!(err.contains("sequence value -1"), "{err}");
    let err = failure(
        &["compose", "--time", "1656432460105", "--sequence", "0"],
        1,
    );
    assert!(err.contains("missing value for node field"), "{err}");
}

#[test]
fn objectid_1000_distinct() {
    let lines = lines_of(&["objectid", "--count", "1000"]);
    assert_eq!(lines.len(), 1000);
    for l in &lines {
        assert_eq!(l.len(), 24, "{l}");
        assert!(l
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    }
    assert_eq!(lines.iter().collect::<HashSet<_>>().len(), 1000);
}

#[test]
fn layouts_lists_presets_and_marks_baidu() {
    let lines = lines_of(&["layouts"]);
    for preset in ["twitter", "sonyflake", "redis-lua", "baidu"] {
        assert!(lines.iter().any(|l| l.starts_with(preset)), "{preset}");
    }
    let baidu = lines.iter().find(|l| l.starts_with("baidu")).unwrap();
    assert!(
        baidu.contains("2024-11-20T21:24:16.000Z (ran out)"),
        "{baidu}"
    );
    let twitter = lines.iter().find(|l| l.starts_with("twitter")).unwrap();
    assert!(
        twitter.contains("4,096,000") && !twitter.contains("ran out"),
        "{twitter}"
    );
}

/// `idmint plan` gives core's planner's answers: every need of tests/vectors/plan.json as the
/// oracle computed it (JSON), and each impossible need refused with the bound (exit 2).
#[test]
fn plan_answers_the_vectors() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/plan.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let args_of = |need: &serde_json::Value| {
        let mut a = vec!["plan".to_string(), "--json".into()];
        for k in ["nodes", "rate", "years"] {
            a.push(format!("--{k}"));
            a.push(need[k].to_string());
        }
        a.push("--start".into());
        a.push(need["start_ms"].to_string());
        a.push(format!("--{}", need["width"].as_str().unwrap()));
        a
    };
    for case in v["valid"].as_array().unwrap() {
        let args = args_of(&case["need"]);
        let out = idmint(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(out.status.success(), "{}: {}", case["name"], stderr(&out));
        let got: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(got, case["layouts"], "{}", case["name"]);
    }
    for case in v["impossible"].as_array().unwrap() {
        let args = args_of(&case["need"]);
        let err = failure(&args.iter().map(String::as_str).collect::<Vec<_>>(), 2);
        let bound = format!("= {} bits", case["bound_bits"].as_str().unwrap());
        assert!(
            err.contains(&bound) && err.contains("invalid argument `need`"),
            "{err}"
        );
    }
    // The table: twitter's need gives twitter's shape, with its end and its 2^53 date.
    let text = stdout(&idmint(&[
        "plan",
        "--nodes",
        "1024",
        "--rate",
        "4M/s",
        "--years",
        "69",
        "--start",
        "1288834974657",
    ]));
    assert!(
        text.contains("time:41@1ms,worker:10,sequence:12,epoch=1288834974657"),
        "{text}"
    );
    assert!(text.contains("runs out 2080-07-10T17:30:30.209Z"), "{text}");
}

/// `idmint layouts check-migration`: a switch whose new IDs all sort above the old ones passes
/// (exit 0); one whose new IDs would sort below is refused (exit 1) naming the first safe time,
/// which is then accepted.
#[test]
fn layouts_check_migration_accepts_a_safe_switch_and_names_when_an_unsafe_one_becomes_safe() {
    let check = |to: &str, above: Option<&str>, at: &str| {
        let mut args = vec![
            "layouts",
            "check-migration",
            "--from",
            "twitter",
            "--to",
            to,
            "--at",
            at,
            "--json",
        ];
        if let Some(a) = above {
            args.extend(["--above", a]);
        }
        let out = idmint(&args);
        let m: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        (out.status.code(), m, stderr(&out))
    };
    let wider = "time:38@1ms,worker:12,sequence:13,epoch=2023-11-14T22:13:20Z";
    let (code, m, _) = check(wider, None, "2026-01-01T00:00:00Z");
    assert_eq!(code, Some(0), "{m}");
    assert_eq!(m["safe"], true);
    assert!(
        m["new_first"].as_u64().unwrap() > m["old_max"].as_u64().unwrap(),
        "{m}"
    );

    let later = "time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z";
    let (code, m, err) = check(later, Some("1541815603606036480"), "2026-01-01T00:00:00Z");
    assert_eq!(code, Some(1), "{m}");
    assert_eq!(m["safe"], false);
    let from = m["safe_from"].as_str().unwrap().to_string();
    assert!(err.contains("not safe") && err.contains(&from), "{err}");
    // At the time it names, the same switch is safe; a millisecond before, not.
    let ms = m["safe_from_ms"].as_u64().unwrap();
    assert_eq!(
        check(later, Some("1541815603606036480"), &ms.to_string()).0,
        Some(0)
    );
    assert_eq!(
        check(later, Some("1541815603606036480"), &(ms - 1).to_string()).0,
        Some(1)
    );
}

/// `idmint typeid`: TypeIDs of the prefix, distinct and increasing, each read back by `idmint
/// parse` as a TypeID of that prefix with its UUIDv7's time; a bad prefix is exit 2.
#[test]
fn typeid_mints_what_parse_reads_back() {
    let lines = lines_of(&["typeid", "--prefix", "order_line", "--count", "1000"]);
    assert_eq!(lines.len(), 1000);
    assert!(lines.windows(2).all(|w| w[0] < w[1]), "not increasing");
    for l in [&lines[0], &lines[999]] {
        let d = parse(&[], l);
        assert_eq!(d["format"], "typeid", "{d}");
        assert_eq!(d["parts"]["prefix"], "order_line", "{d}");
        assert_eq!(d["parts"]["version"], 7, "{d}");
        assert!(d["time_ms"].as_u64().is_some(), "{d}");
    }
    let err = failure(&["typeid", "--prefix", "Order"], 2);
    assert!(
        err.contains("`prefix`") && err.contains("a-z and _"),
        "{err}"
    );
}

#[test]
fn demo_runs() {
    let out = idmint(&["demo"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // A short tour: one screen of a 50-line terminal (4 lines per preset, Leaf's included).
    assert!(text.lines().count() <= 50, "{text}");
    assert!(text.contains("2024-11-20"), "{text}");
    assert!(text.contains("a third: no_free_lease"), "{text}");
}

#[test]
fn help_and_version() {
    let out = idmint(&["--version"]);
    assert!(out.status.success());
    assert!(stdout(&out).starts_with("idmint "));
    for cmd in [
        "snowflake",
        "objectid",
        "parse",
        "compose",
        "layouts",
        "demo",
        "probe",
    ] {
        let out = idmint(&[cmd, "--help"]);
        assert!(out.status.success(), "{cmd}");
        assert!(
            stdout(&out).contains(&format!("idmint {cmd}")),
            "{cmd} help lacks an example"
        );
    }
}

#[test]
fn closed_pipe_ends_quietly() {
    for args in [
        &["snowflake", "--random-nodes", "--count", "1000000"][..],
        &["objectid", "--count", "1000000"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_idmint"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn idmint");
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        reader.read_line(&mut first).unwrap();
        assert!(!first.trim().is_empty());
        drop(reader);
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert!(out.status.success(), "{args:?}: {:?} {err}", out.status);
        assert!(!err.contains("panicked"), "{err}");
        assert!(!err.contains("error"), "{err}");
    }
}

/// `idmint sql` prints core's script as it is, and refuses what core refuses.
#[test]
fn sql_prints_cores_script_for_the_layout() {
    use idmint_core::sql_script::SqlScript;
    use idmint_core::Layout;
    let args = ["sql", "--dialect", "postgres", "--layout", "twitter"];
    let want = SqlScript::new(Layout::preset("twitter").unwrap()).unwrap();
    assert_eq!(lines_of(&args).join("\n") + "\n", want.clone().postgres());
    let minting = [
        &args[..],
        &[
            "--node",
            "datacenter=1",
            "--node",
            "worker=7",
            "--max-wait-ms",
            "0",
        ],
    ]
    .concat();
    let want = want
        .minting([("datacenter", 1), ("worker", 7)])
        .unwrap()
        .max_wait_ms(0)
        .postgres();
    assert_eq!(lines_of(&minting).join("\n") + "\n", want);
    // An invalid argument exits 2, a node value out of the layout's range 1, as for every command.
    let err = failure(&["sql", "--dialect", "postgres", "--layout", "discord"], 2);
    assert!(err.contains("at most 63 bits"), "{err}");
    let err = failure(
        &[
            "sql",
            "--dialect",
            "postgres",
            "--node",
            "worker=32",
            "--node",
            "datacenter=0",
        ],
        1,
    );
    assert!(err.contains("worker value 32 is out of range"), "{err}");
    // MySQL/MariaDB: the decoding and bounding functions, and no minting function.
    let mysql = ["sql", "--dialect", "mysql", "--layout", "sonyflake"];
    let want = SqlScript::new(Layout::preset("sonyflake").unwrap()).unwrap();
    assert_eq!(lines_of(&mysql).join("\n") + "\n", want.mysql().unwrap());
    let err = failure(&[&mysql[..], &["--node", "machine=1"]].concat(), 2);
    assert!(err.contains("no minting function"), "{err}");
}
