//! `idmint format`, `obfuscate`/`reveal`/`keygen`, `uuid7`, `encode`/`decode`, run as a user
//! would, checked against `tests/vectors/`.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn idmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idmint"))
        .args(args)
        .output()
        .expect("run idmint")
}

fn idmint_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_idmint"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run idmint");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn lines(out: &Output) -> Vec<String> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn failure(out: &Output, code: i32) -> String {
    assert_eq!(out.status.code(), Some(code));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.starts_with("error: ") && !err.contains("panicked"),
        "{err}"
    );
    err
}

fn load(name: &str) -> serde_json::Value {
    let path = format!("{}/../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn format_daily_and_parse_back() {
    let got = lines(&idmint(&[
        "format",
        "--template",
        "%L%Y%M%D%m%5S",
        "--label",
        "7",
        "--tz",
        "+08:00",
        "--time",
        "2024-05-21T16:30:00Z",
        "--count",
        "3",
        "--start",
        "41",
    ]));
    assert_eq!(
        got,
        ["7202405223000041", "7202405223000042", "7202405223000043"]
    );
    let parsed = lines(&idmint(&[
        "format",
        "--template",
        "%L%Y%M%D%m%5S",
        "--label",
        "7",
        "--parse",
        &got[1],
    ]));
    let v: serde_json::Value = serde_json::from_str(&parsed[0]).unwrap();
    assert_eq!(v["sequence"], 42);
    assert_eq!(v["day"], 22);
    assert_eq!(v["label"], "7");
}

#[test]
fn format_matches_the_vectors() {
    let v = load("template.json");
    for case in v["valid"].as_array().unwrap() {
        let time = case["time_ms"].to_string();
        let mut args = vec![
            "format",
            "--template",
            case["template"].as_str().unwrap(),
            "--tz",
            case["offset"].as_str().unwrap(),
            "--check",
            case["check"].as_str().unwrap(),
            "--time",
            &time,
            "--start",
            case["sequence"].as_str().unwrap(),
        ];
        if let Some(label) = case["label"].as_str() {
            args.extend(["--label", label]);
        }
        let seq: u64 = case["sequence"].as_str().unwrap().parse().unwrap();
        if case["parts"]["day"].is_null() || seq == 0 || seq >= 1 << 36 {
            continue; // the daily source needs a full date and counts 1..2^36 a day
        }
        assert_eq!(
            lines(&idmint(&args)),
            [case["formatted"].as_str().unwrap()],
            "{}",
            case["name"]
        );
    }
}

#[test]
fn format_errors() {
    let err = failure(
        &idmint(&[
            "format",
            "--template",
            "%Y%M%D%1S",
            "--count",
            "10",
            "--start",
            "5",
        ]),
        1,
    );
    assert!(err.contains("past 9"), "{err}");
    let err = failure(&idmint(&["format", "--template", "%Y%M%D"]), 1);
    assert!(err.contains("no sequence"), "{err}");
    let err = failure(
        &idmint(&["format", "--template", "%Y%M%D%5S", "--tz", "Asia/Shanghai"]),
        2,
    );
    assert!(err.contains("UTC offset"), "{err}");
    let good = lines(&idmint(&[
        "format",
        "--template",
        "%Y%M%D%5S",
        "--check",
        "luhn",
        "--time",
        "0",
        "--start",
        "42",
    ]));
    let last = good[0].as_bytes()[good[0].len() - 1] - b'0';
    let typo = format!("{}{}", &good[0][..good[0].len() - 1], (last + 1) % 10);
    let err = failure(
        &idmint(&[
            "format",
            "--template",
            "%Y%M%D%5S",
            "--check",
            "luhn",
            "--parse",
            &typo,
        ]),
        1,
    );
    assert!(err.contains("check digits"), "{err}");
    let err = failure(
        &idmint(&[
            "format",
            "--template",
            "%Y%M%D-%12S",
            "--source",
            "snowflake",
        ]),
        1,
    );
    assert!(err.contains("%19S"), "{err}");
}

#[test]
fn format_snowflake_source_is_unique() {
    let got = lines(&idmint(&[
        "format",
        "--template",
        "%Y%M%D-%19S",
        "--source",
        "snowflake",
        "--node",
        "datacenter=1",
        "--node",
        "worker=7",
        "--count",
        "1000",
    ]));
    let set: std::collections::HashSet<_> = got.iter().collect();
    assert_eq!(set.len(), 1000);
}

#[test]
fn obfuscate_and_reveal_round_trip_through_a_key_file() {
    let dir = std::env::temp_dir().join(format!("idmint-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ids.key");
    let k1 = lines(&idmint(&["keygen", "--key-version", "1"]));
    assert!(k1[0].starts_with("idmint-key-v1:") && k1[0].len() == 14 + 32);
    std::fs::write(&path, format!("# test keys\n{}\n", k1[0])).unwrap();
    let key = path.to_str().unwrap();

    let ids: Vec<String> = (1_000u64..1_010).map(|i| i.to_string()).collect();
    let mut args = vec!["obfuscate", "--key-file", key];
    args.extend(ids.iter().map(String::as_str));
    let shown = lines(&idmint(&args));
    assert_eq!(shown.len(), 10);
    for s in &shown {
        assert!(s.parse::<u64>().unwrap() <= i64::MAX as u64);
    }
    let back = lines(&idmint_stdin(
        &["reveal", "--key-file", key],
        &shown.join("\n"),
    ));
    assert_eq!(back, ids);

    // Rotate: tagged values made with v1 still reveal once v2 is added.
    let tagged = lines(&idmint(&["obfuscate", "--key-file", key, "--tagged", "42"]));
    assert!(tagged[0].starts_with('1') && tagged[0].len() == 12);
    let k2 = lines(&idmint(&["keygen", "--key-version", "2"]));
    std::fs::write(&path, format!("{}\n{}\n", k1[0], k2[0])).unwrap();
    assert_eq!(
        lines(&idmint(&[
            "reveal",
            "--key-file",
            key,
            "--tagged",
            &tagged[0]
        ])),
        ["42"]
    );
    let newer = lines(&idmint(&["obfuscate", "--key-file", key, "--tagged", "42"]));
    assert!(newer[0].starts_with('2'));
    assert_eq!(
        lines(&idmint(&[
            "reveal",
            "--key-file",
            key,
            "--key-version",
            "1",
            &shown[0]
        ])),
        ["1000"]
    );

    let err = failure(
        &idmint(&["obfuscate", "--key-file", key, "9223372036854775808"]),
        1,
    );
    assert!(err.contains("invalid id"), "{err}");
    std::fs::write(&path, "idmint-key-v1:abc\n").unwrap();
    let err = failure(&idmint(&["obfuscate", "--key-file", key, "1"]), 1);
    assert!(err.contains("line 1") && !err.contains("abc"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn obfuscate_matches_the_vectors() {
    let v = load("obfuscate.json");
    let path = std::env::temp_dir().join(format!("idmint-vec-{}.key", std::process::id()));
    for case in v["valid"].as_array().unwrap().iter().step_by(5) {
        std::fs::write(&path, case["key"].as_str().unwrap()).unwrap();
        let key = path.to_str().unwrap();
        let out = lines(&idmint(&[
            "obfuscate",
            "--key-file",
            key,
            case["id"].as_str().unwrap(),
        ]));
        assert_eq!(out, [case["obfuscated"].as_str().unwrap()]);
        let out = lines(&idmint(&[
            "obfuscate",
            "--key-file",
            key,
            "--tagged",
            case["id"].as_str().unwrap(),
        ]));
        assert_eq!(out, [case["tagged"].as_str().unwrap()]);
    }
    std::fs::remove_file(&path).ok();
}

#[test]
fn uuid7_mints_increasing_and_parses_the_rfc_vector() {
    let got = lines(&idmint(&["uuid7", "--count", "20000"]));
    assert!(got.windows(2).all(|w| w[0] < w[1]));
    assert!(got.iter().all(|u| u.len() == 36 && &u[14..15] == "7"));
    let ulids = lines(&idmint(&["uuid7", "--ulid", "--count", "3"]));
    assert!(ulids.iter().all(|u| u.len() == 26));
    let parsed = lines(&idmint(&[
        "uuid7",
        "--parse",
        "017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
        "01FWHE4YDGFK1SHH6W1G60EECF",
    ]));
    for p in parsed {
        let v: serde_json::Value = serde_json::from_str(&p).unwrap();
        assert_eq!(v["time_ms"], 0x017F22E279B0u64);
        assert_eq!(v["time"], "2022-02-22T19:22:22.000Z");
        assert_eq!(v["uuid"], "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    }
    let err = failure(
        &idmint(&["uuid7", "--parse", "6ba7b810-9dad-41d1-80b4-00c04fd430c8"]),
        1,
    );
    assert!(err.contains("version 4"), "{err}");
}

#[test]
fn encode_and_decode_match_the_vectors() {
    let v = load("shortid.json");
    let cases = v["valid"].as_array().unwrap();
    let values: Vec<&str> = cases.iter().map(|c| c["value"].as_str().unwrap()).collect();
    for enc in ["base62", "base62-fixed", "base32", "base32-fixed"] {
        let mut args = vec!["encode", "--to", enc];
        args.extend(&values);
        let texts = lines(&idmint(&args));
        let want: Vec<&str> = cases.iter().map(|c| c[enc].as_str().unwrap()).collect();
        assert_eq!(texts, want, "{enc}");
        let back = lines(&idmint_stdin(&["decode", "--from", enc], &texts.join("\n")));
        assert_eq!(back, values, "{enc}");
    }
    let err = failure(&idmint(&["decode", "--from", "base32", "U"]), 1);
    assert!(err.contains("'U' at position 0"), "{err}");
    failure(&idmint(&["encode", "--to", "base64", "1"]), 2);
}

/// A fresh SQLite file for one test.
fn sqlite_url(test: &str) -> (std::path::PathBuf, String) {
    let path = std::env::temp_dir().join(format!("idmint-{test}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let url = format!("sqlite:{}", path.display());
    (path, url)
}

#[test]
fn format_with_a_shared_daily_counter() {
    let (path, url) = sqlite_url("daily");
    let run = || {
        lines(&idmint(&[
            "format",
            "--template",
            "%Y%M%D-%5S",
            "--time",
            "2024-05-22T10:00:00Z",
            "--counter",
            &url,
            "--name",
            "shop",
            "--count",
            "3",
        ]))
    };
    let first = run();
    assert_eq!(
        first,
        ["20240522-00001", "20240522-00002", "20240522-00003"]
    );
    // A second run is a second client: it carries on in the same day's tag, from its own range
    // (unique, not consecutive: the first run's unused numbers are skipped).
    let second = run();
    assert_eq!(second.len(), 3);
    assert!(second.iter().all(|n| !first.contains(n)), "{second:?}");
    assert!(second.windows(2).all(|w| w[0] < w[1]), "{second:?}");
    // The next day starts again at 1.
    let next_day = lines(&idmint(&[
        "format",
        "--template",
        "%Y%M%D-%5S",
        "--time",
        "2024-05-23T10:00:00Z",
        "--counter",
        &url,
        "--name",
        "shop",
    ]));
    assert_eq!(next_day, ["20240523-00001"]);
    // --start belongs to this run's own counter only.
    let err = failure(
        &idmint(&[
            "format",
            "--template",
            "%Y%M%D-%5S",
            "--counter",
            &url,
            "--start",
            "5",
        ]),
        2,
    );
    assert!(err.contains("--counter"), "{err}");
    let err = failure(
        &idmint(&["format", "--template", "%Y%M%D-%5S", "--counter", "ftp://x"]),
        2,
    );
    assert!(err.contains("redis://"), "{err}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn format_with_a_segment_tag() {
    let (path, url) = sqlite_url("segtag");
    let run = |count: &str| {
        idmint(&[
            "format",
            "--template",
            "SO-%4S",
            "--source",
            "segment",
            "--store",
            &url,
            "--tag",
            "so",
            "--count",
            count,
        ])
    };
    let first = lines(&run("2"));
    assert_eq!(first, ["SO-0001", "SO-0002"]);
    // No repeats across runs, and no gap: the first run gave the unused tail of its range back
    // as it exited (docs/segments.md), so the second goes on right after its last ID.
    let second = lines(&run("1"));
    assert_eq!(second, ["SO-0003"]);
    // Past the sequence width: the tag's IDs no longer fit.
    let err = failure(&run("10000"), 1);
    assert!(
        err.contains("tag `so`") && err.contains("past 9999"),
        "{err}"
    );
    let err = failure(
        &idmint(&[
            "format",
            "--template",
            "%4S",
            "--source",
            "segment",
            "--store",
            &url,
        ]),
        2,
    );
    assert!(err.contains("--tag"), "{err}");
    let _ = std::fs::remove_file(path);
}
