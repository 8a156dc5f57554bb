#!/usr/bin/env python3
"""Independent oracle for idmint's cross-language test vectors.

Writes snowflake.json and objectid.json next to this file. Python 3.11 stdlib
only; if pymongo's `bson` is importable, ObjectIds are cross-checked with it.
Run: python3 tests/vectors/generate.py
"""
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

OUT = Path(__file__).resolve().parent
UNIX = datetime(1970, 1, 1, tzinfo=timezone.utc)
MAX_MS = 253402300800000  # 10000-01-01T00:00:00Z: exhausts_at_ms may not exceed this
U63 = 2**63 - 1
PRESETS = {
    "twitter": "time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657",
    "sonyflake": "time:39@10ms,sequence:8,machine:16,epoch=1409529600000",
    "redis-lua": "time:41@1ms,shard:12,sequence:10,epoch=0",
    "baidu": "time:28@1s,worker:22,sequence:13,epoch=1463702400000",
}
CUSTOM = {
    # sequence above a node field, 100 ms tick, no epoch (=0), 53 bits total
    "c53": "time:35@100ms,sequence:10,node:8",
    # multi-second tick, RFC 3339 epoch, three node fields, 60 bits
    "c60": "time:30@2s,region:3,zone:5,host:10,sequence:12,epoch=2020-01-01T00:00:00Z",
    # all 63 bits, no explicit tick, sequence above the node field
    "c63": "time:42,sequence:9,shard:12,epoch=1700000000000",
}
RESERVED = {"time", "sequence", "id", "time_ms", "epoch"}
ITEM_RE = re.compile(r"([a-z][a-z0-9_]*):([0-9]+)(?:@([0-9]+)(ms|s))?")
RFC3339_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})")


class Err(Exception):
    def __init__(self, kind, why=""):
        super().__init__(f"{kind}: {why}")
        self.kind = kind


def days_to_civil(z):  # Howard Hinnant's algorithm, pure integer arithmetic
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


def rfc3339(ms, millis=True):
    days, rem = divmod(ms, 86_400_000)
    y, mo, d = days_to_civil(days)
    s, milli = divmod(rem, 1000)
    out = f"{y:04d}-{mo:02d}-{d:02d}T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"
    out += f".{milli:03d}Z" if millis else "Z"
    dt = UNIX + timedelta(milliseconds=ms)  # cross-check against datetime
    ref = dt.strftime("%Y-%m-%dT%H:%M:%S") if dt.year >= 1000 else None
    assert ref is None or out.startswith(ref), (out, ref)
    return out


def parse_layout(spec):
    """Return dict(fields=[(name, bits)], tick=ms, epoch=ms) or raise Err('invalid_layout')."""
    items = [s.strip() for s in PRESETS.get(spec, spec).split(",")]
    epoch, fields, tick = 0, [], 1
    if items[-1].startswith("epoch="):
        text = items.pop()[len("epoch="):]
        try:
            epoch = int(text) if re.fullmatch(r"[0-9]+", text) else (
                datetime.fromisoformat(RFC3339_RE.fullmatch(text)[0]) - UNIX) // timedelta(milliseconds=1)
        except (TypeError, ValueError):
            raise Err("invalid_layout", f"{spec!r}: bad epoch")
    for i, item in enumerate(items):
        m = ITEM_RE.fullmatch(item)
        name, bits = (m[1], int(m[2])) if m else (None, None)
        if m and m[3] is not None:
            tick = int(m[3]) * (1000 if m[4] == "s" else 1)
        check(spec, [(not m, f"bad item {item!r}"), ((i == 0) != (name == "time"), "time must be first, once"),
                     (m and m[3] is not None and name != "time", "tick on a non-time field"),
                     (tick == 0, "zero tick"), (name in RESERVED - {"time", "sequence"}, "reserved name"),
                     (name in dict(fields), "duplicate name"), (bits == 0, "zero-bit field")])
        fields.append((name, bits))
    names = [f[0] for f in fields]
    check(spec, [(names.count("sequence") != 1, "need exactly one sequence"),
                 (len(fields) < 3, "need at least one node field"),
                 (sum(f[1] for f in fields) > 63, "more than 63 bits")])
    check(spec, [(epoch + 2 ** fields[0][1] * tick > MAX_MS, "time range ends after year 9999")])
    return {"fields": fields, "tick": tick, "epoch": epoch}


def check(spec, conditions):
    for failed, why in conditions:
        if failed:
            raise Err("invalid_layout", f"{spec!r}: {why}")


def shifts(lay):  # shift of a field = sum of the bits of the fields after it
    return {n: sum(b for _, b in lay["fields"][i + 1:]) for i, (n, _) in enumerate(lay["fields"])}


def nodes(lay):
    return [(n, b) for n, b in lay["fields"] if n not in ("time", "sequence")]


def compose(lay, time_ms, fields, sequence):
    for name in fields:
        if name not in dict(nodes(lay)):
            raise Err("unknown_field", name)
    for name, _ in nodes(lay):
        if name not in fields:
            raise Err("missing_field", name)
    tv = (time_ms - lay["epoch"]) // lay["tick"]  # floor division, also below the epoch
    if not 0 <= tv < 2 ** lay["fields"][0][1]:
        raise Err("time_out_of_range", time_ms)
    values = dict(fields, time=tv, sequence=sequence)
    sh, bits = shifts(lay), dict(lay["fields"])
    for name, v in values.items():
        if not 0 <= v < 2 ** bits[name]:
            raise Err("value_out_of_range", name)
    ident = sum(v << sh[n] for n, v in values.items())
    # second, independent construction: concatenate fixed-width binary strings
    assert ident == int("".join(format(values[n], f"0{b}b") for n, b in lay["fields"]), 2)
    return ident


def decompose(lay, text):
    ident = int(text) if re.fullmatch(r"[0-9]+", text) else -1
    if not 0 <= ident <= U63 or ident >> sum(b for _, b in lay["fields"]):
        raise Err("invalid_id", text)
    sh = shifts(lay)
    vals = {name: (ident >> sh[name]) & (2**bits - 1) for name, bits in lay["fields"]}
    time_ms = lay["epoch"] + vals["time"] * lay["tick"]
    return time_ms, {n: vals[n] for n, _ in nodes(lay)}, vals["sequence"]


def expect_err(kind, fn, *args):
    try:
        fn(*args)
    except Err as e:
        assert e.kind == kind, (kind, e)
        return
    raise AssertionError(f"expected {kind}: {args}")


# ---------------------------------------------------------------- snowflake
def snowflake():
    valid = []

    def add(name, layout, tv, node_vals, seq, time_ms=None):
        lay = parse_layout(layout)
        if time_ms is None:
            time_ms = lay["epoch"] + tv * lay["tick"]
        assert (time_ms - lay["epoch"]) % lay["tick"] == 0, name
        fields = dict(zip([n for n, _ in nodes(lay)], node_vals))
        ident = compose(lay, time_ms, fields, seq)
        assert decompose(lay, str(ident)) == (time_ms, fields, seq), name
        valid.append({"name": name, "layout": layout, "id": str(ident), "time_ms": time_ms,
                      "time": rfc3339(time_ms), "fields": fields, "sequence": seq})
        return ident

    add("seed_redis_lua", "redis-lua", None, [53], 4, time_ms=1426212000000)
    assert valid[-1]["id"] == "5981966696448054276"
    realistic = {"twitter": 1426212000000, "sonyflake": 1700000000120, "redis-lua": 1717243496789,
                 "baidu": 1600000000000, "c53": 1426212000100, "c60": 1717245296000,
                 "c63": 1717243496789}
    for key in [*PRESETS, *CUSTOM]:
        spec = PRESETS.get(key) or CUSTOM[key]
        alt = key if key in PRESETS else spec  # preset name vs. its spec, alternated
        lay = parse_layout(spec)
        tb, total = lay["fields"][0][1], sum(b for _, b in lay["fields"])
        nmax = [2**b - 1 for _, b in nodes(lay)]
        smax = 2 ** dict(lay["fields"])["sequence"] - 1
        ids = [add(f"{key}_zero", alt, 0, [0] * len(nmax), 0),
               add(f"{key}_max_nodes_and_sequence", spec, None, nmax, smax, realistic[key]),
               add(f"{key}_max_time", alt, 2**tb - 1, [1 + i for i in range(len(nmax))], 3),
               add(f"{key}_all_bits_set", spec, 2**tb - 1, nmax, smax)]
        assert ids[-1] == 2**total - 1
        mid = [v // 2 + 1 for v in nmax]
        big = add(f"{key}_realistic", alt, None, mid, smax // 3, realistic[key])
        assert total == 53 or big > 2**53, key
        if lay["tick"] != 1:
            add(f"{key}_one_tick", spec, 1, [0] * len(nmax), 0)
        if total == 63:
            assert add(f"{key}_bit62_only", spec, 2 ** (tb - 1), [0] * len(nmax), 0) == 2**62
    spaced = " " + CUSTOM["c63"].replace(",", " ,  ") + " "
    add("c63_whitespace_in_spec", spaced, None, [7], 5, time_ms=1717243496789)

    invalid_ids = []
    for name, layout, text in [
        ("negative", "twitter", "-1"), ("negative_large", "redis-lua", "-9223372036854775808"),
        ("two_pow_63", "twitter", "9223372036854775808"), ("u64_max", "sonyflake", "18446744073709551615"),
        ("above_u64", "baidu", "99999999999999999999999"),
        ("two_pow_53_in_53_bit_layout", CUSTOM["c53"], str(2**53)),
        ("u53_all_ones_plus_bit_60", CUSTOM["c53"], str(2**60 + 2**53 - 1)),
        ("two_pow_60_in_60_bit_layout", CUSTOM["c60"], str(2**60)),
        ("trailing_letter", "twitter", "12a"), ("empty", "twitter", ""), ("hex", "twitter", "0x10"),
        ("exponent", "redis-lua", "1e3"), ("decimal_point", "redis-lua", "1.0"),
    ]:
        expect_err("invalid_id", decompose, parse_layout(layout), text)
        invalid_ids.append({"name": name, "layout": layout, "id": text, "error": "invalid_id"})

    invalid_parts = []
    tw, sf, bd = (parse_layout(p) for p in ("twitter", "sonyflake", "baidu"))
    tw_ex, bd_ex = tw["epoch"] + 2**41, bd["epoch"] + 2**28 * 1000
    for name, layout, t, f, s, kind in [
        ("before_epoch", "twitter", tw["epoch"] - 1, {"datacenter": 0, "worker": 0}, 0, "time_out_of_range"),
        ("before_epoch_within_one_tick", "sonyflake", sf["epoch"] - 1, {"machine": 0}, 0, "time_out_of_range"),
        ("negative_time_ms", CUSTOM["c53"], -1, {"node": 0}, 0, "time_out_of_range"),
        ("at_exhausts_at", "twitter", tw_ex, {"datacenter": 0, "worker": 0}, 0, "time_out_of_range"),
        ("at_exhausts_at_seconds_tick", "baidu", bd_ex, {"worker": 0}, 0, "time_out_of_range"),
        ("far_future", "redis-lua", 2**41 + 5000, {"shard": 0}, 0, "time_out_of_range"),
        ("node_above_max", "twitter", 1426212000000, {"datacenter": 0, "worker": 32}, 0, "value_out_of_range"),
        ("node_negative", "twitter", 1426212000000, {"datacenter": -1, "worker": 0}, 0, "value_out_of_range"),
        ("sequence_above_max", "twitter", 1426212000000, {"datacenter": 0, "worker": 0}, 4096, "value_out_of_range"),
        ("sequence_negative", "redis-lua", 1426212000000, {"shard": 0}, -1, "value_out_of_range"),
        ("machine_above_max", "sonyflake", 1700000000120, {"machine": 65536}, 0, "value_out_of_range"),
        ("three_bit_region_8", CUSTOM["c60"], 1717245296000, {"region": 8, "zone": 0, "host": 0}, 0, "value_out_of_range"),
        ("extra_field", "twitter", 1426212000000, {"datacenter": 0, "worker": 0, "machine": 1}, 0, "unknown_field"),
        ("extra_field_baidu", "baidu", 1600000000000, {"worker": 1, "shard": 1}, 0, "unknown_field"),
        ("missing_worker", "twitter", 1426212000000, {"datacenter": 1}, 0, "missing_field"),
        ("no_fields", "baidu", 1600000000000, {}, 0, "missing_field"),
        ("missing_one_of_three", CUSTOM["c60"], 1717245296000, {"region": 1, "host": 1}, 0, "missing_field"),
    ]:
        expect_err(kind, compose, parse_layout(layout), t, f, s)
        invalid_parts.append({"name": name, "layout": layout,
                              "parts": {"time_ms": t, "fields": f, "sequence": s}, "error": kind})

    invalid_layouts = []
    for name, spec in [
        ("sixty_four_bits", "time:42,worker:10,sequence:12"),
        ("sixty_four_bits_preset_like", "time:42@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657"),
        ("missing_time", "worker:10,sequence:12"), ("time_not_first", "worker:10,time:41,sequence:12"),
        ("no_sequence", "time:41,worker:10"), ("two_sequences", "time:41,sequence:5,worker:5,sequence:5"),
        ("no_node_field", "time:41,sequence:12"), ("duplicate_name", "time:41,worker:5,worker:5,sequence:12"),
        ("uppercase_name", "time:41,Worker:10,sequence:12"), ("reserved_time_ms", "time:41,time_ms:10,sequence:12"),
        ("reserved_id", "time:41,id:10,sequence:12"), ("reserved_epoch", "time:41,epoch:10,sequence:12"),
        ("name_starts_with_digit", "time:41,1node:10,sequence:12"), ("name_with_dash", "time:41,my-node:10,sequence:12"),
        ("zero_bit_node", "time:41,worker:0,sequence:12"), ("zero_bit_sequence", "time:41,worker:10,sequence:0"),
        ("zero_bit_time", "time:0,worker:10,sequence:12"), ("zero_tick", "time:41@0ms,worker:10,sequence:12"),
        ("microsecond_tick", "time:41@5us,worker:10,sequence:12"), ("tick_without_number", "time:41@ms,worker:10,sequence:12"),
        ("tick_on_node_field", "time:41,worker:10@1ms,sequence:12"), ("missing_bits", "time:41,worker:10,sequence"),
        ("non_numeric_bits", "time:abc,worker:10,sequence:12"), ("garbage", "hello world"), ("empty", ""),
        ("epoch_not_last", "time:41,epoch=0,worker:10,sequence:12"), ("bad_epoch", "time:41,worker:10,sequence:12,epoch=soon"),
        ("bad_epoch_date", "time:41,worker:10,sequence:12,epoch=2020-13-01T00:00:00Z"),
        ("past_year_9999", "time:50@1s,worker:1,sequence:1"),
        ("past_year_9999_by_epoch", "time:41,worker:10,sequence:12,epoch=253400000000000"),
        ("huge_bits", "time:99999999999999999999,worker:1,sequence:1"),
        ("unknown_preset", "twiter"),
    ]:
        expect_err("invalid_layout", parse_layout, spec)
        invalid_layouts.append({"name": name, "layout": spec, "error": "invalid_layout"})

    exhausts = []
    for key in PRESETS:
        lay = parse_layout(key)
        ms = lay["epoch"] + 2 ** lay["fields"][0][1] * lay["tick"]
        exhausts.append({"layout": key, "exhausts_at_ms": ms, "exhausts_at": rfc3339(ms)})
    assert exhausts[-1]["exhausts_at"] == "2024-11-20T21:24:16.000Z"  # baidu, by hand
    for cases in (valid, invalid_ids, invalid_parts, invalid_layouts):
        assert len({c["name"] for c in cases}) == len(cases)
    return {"valid": valid, "invalid_ids": invalid_ids, "invalid_parts": invalid_parts,
            "invalid_layouts": invalid_layouts, "exhausts_at": exhausts}


# ---------------------------------------------------------------- objectid
def objectid():
    try:
        import bson  # pymongo
    except ImportError:
        bson = None
    valid = []
    for hx in ["000000000000000000000000", "ffffffffffffffffffffffff", "550244a0" "0123456789" "ffffff",
               "507f1f77bcf86cd799439011", "550244a0a1b2c3d4e5000004", "665b1e58f00dbabe00c0ffee",
               "7fffffff0000000001000000", "80000000ffffffffff000001", "0000000100000000000000ff"]:
        assert re.fullmatch(r"[0-9a-f]{24}", hx)
        time_s, rnd, counter = int(hx[:8], 16), hx[8:18], int(hx[18:], 16)
        assert bytes.fromhex(hx) == time_s.to_bytes(4, "big") + bytes.fromhex(rnd) + counter.to_bytes(3, "big")
        case = {"hex": hx, "time_s": time_s, "time": rfc3339(time_s * 1000, millis=False),
                "random": rnd, "counter": counter}
        if bson:
            oid = bson.ObjectId(hx)
            assert str(oid) == hx and int(oid.generation_time.timestamp()) == time_s, hx
        valid.append(case)
    assert valid[1]["time"] == "2106-02-07T06:28:15Z" and valid[2]["time"] == "2015-03-13T02:00:00Z"
    assert valid[2]["counter"] == 0xFFFFFF
    upper = []
    for hx in ["507F1F77BCF86CD799439011", "FFFFFFFFFFFFFFFFFFFFFFFF", "550244A0a1B2c3D4e5000004"]:
        canon = hx.lower()
        assert canon in [v["hex"] for v in valid]
        if bson:
            assert str(bson.ObjectId(hx)) == canon
        upper.append({"hex": hx, "canonical": canon})
    invalid = []
    for name, hx in [
        ("23_chars", "507f1f77bcf86cd79943901"), ("25_chars", "507f1f77bcf86cd7994390110"),
        ("empty", ""), ("letter_g", "507f1f77bcf86cd79943901g"), ("space_inside", "507f1f77bcf8 cd799439011"),
        ("leading_space", " 07f1f77bcf86cd799439011"), ("trailing_space", "507f1f77bcf86cd79943901 "),
        ("0x_prefix_24_chars", "0x7f1f77bcf86cd799439011"), ("0x_prefix_26_chars", "0x507f1f77bcf86cd799439011"),
        ("non_ascii_24_chars", "507f1f77bcf86cd79943901\u00e9"),
        ("non_ascii_24_bytes", "507f1f77bcf86cd7994390\u00e9"),
        ("fullwidth_digit", "507f1f77bcf86cd79943901\uff11"), ("dash", "507f1f77-bcf86cd79943901"),
    ]:
        assert not re.fullmatch(r"[0-9a-fA-F]{24}", hx), name
        if bson:
            try:
                bson.ObjectId(hx)
                raise AssertionError(f"bson accepted {name}")
            except (bson.errors.InvalidId, TypeError):
                pass
        invalid.append({"name": name, "hex": hx, "error": "invalid_object_id"})
    print("objectid: bson cross-check", "done" if bson else "SKIPPED (pymongo not installed)")
    return {"valid": valid, "uppercase_input": upper, "invalid": invalid}


def write(name, data):
    (OUT / name).write_text(json.dumps(data, indent=2) + "\n", encoding="ascii")
    counts = {k: len(v) for k, v in data.items()}
    print(f"wrote {OUT / name}: {counts}")


def verify(name, data):
    """Fail if the committed file is not what the oracle computes (hand edits, stale output)."""
    want = json.dumps(data, indent=2) + "\n"
    if (OUT / name).read_text(encoding="ascii") != want:
        raise SystemExit(f"{OUT / name} differs from generate.py's output; regenerate it")
    print(f"{OUT / name}: matches the oracle")


if __name__ == "__main__":
    import sys

    emit = verify if "--check" in sys.argv[1:] else write
    emit("snowflake.json", snowflake())
    emit("objectid.json", objectid())
