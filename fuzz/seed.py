#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora, fuzz/corpus/<target>/seed-<hash>, from tests/vectors
(valid and invalid inputs of every parser) and a few store URLs. Run it after the vectors
change: `python3 fuzz/seed.py`. Each seed is in its target's input form (see the target's
header comment: lines separated by newlines)."""

import hashlib
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "tests", "vectors")


def load(name):
    with open(os.path.join(VECTORS, name + ".json")) as f:
        return json.load(f)


def u64(v):
    return struct.pack("<Q", int(v) % (1 << 64))


def seeds():
    s = {t: [] for t in ("layout_spec", "parse_id", "objectid", "template", "shortid", "uuid7",
                         "obfuscate", "store_url", "lease_url", "counter_url")}
    snow = load("snowflake")
    for v in snow["valid"]:
        s["layout_spec"].append(f"{v['layout']}\n{v['id']}")
        s["parse_id"].append(v["id"])
    for v in snow["invalid_layouts"]:
        s["layout_spec"].append(v["layout"])
    for v in snow["invalid_ids"]:
        s["parse_id"].append(v["id"])
    oid = load("objectid")
    for v in oid["valid"]:
        s["objectid"].append(v["hex"])
        s["objectid"].append(bytes.fromhex(v["hex"]))
    for v in oid["uppercase_input"] + oid["invalid"]:
        s["objectid"].append(v["hex"])
    tpl = load("template")
    for v in tpl["valid"]:
        s["template"].append("\n".join([v["template"], v["label"] or "", v["offset"], v["check"],
                                        str(v["time_ms"]), str(v["sequence"]), v["formatted"]]))
    for v in tpl["invalid_parse"]:
        s["template"].append("\n".join([v["template"], v["label"] or "", v["offset"], v["check"],
                                        "", "", v["text"]]))
    for v in tpl["invalid_templates"]:
        s["template"].append(v["template"])
    sid = load("shortid")
    for v in sid["valid"]:
        s["shortid"].append(u64(v["value"]))
        for enc in ("base62", "base62-fixed", "base32", "base32-fixed"):
            s["shortid"].append(f"{enc}\n{v[enc]}")
    for v in sid["aliases"] + sid["invalid"]:
        s["shortid"].append(f"{v['encoding']}\n{v['text']}")
    uu = load("uuid7")
    for v in uu["valid"]:
        s["uuid7"] += [v["uuid"], v["ulid"], bytes.fromhex(v["uuid"].replace("-", ""))]
    for v in uu["forms"] + uu["invalid"] + uu["invalid_ulids"]:
        s["uuid7"].append(v["text"])
    ob = load("obfuscate")
    for v in ob["valid"]:
        s["obfuscate"] += [v["tagged"], v["key"], u64(v["id"])]
    for v in ob["invalid_keys"]:
        s["obfuscate"].append(v["key"])
    for v in ob["invalid_tagged"]:
        s["obfuscate"] += [v["tagged"], v["keyring"]]
    urls = [
        "memory:", "sqlite:./idmint-segments.db", "sqlite://a b#c.db?table=ids",
        "postgres://app:secret@db:5432/ids?sslmode=disable&table=ids&pool=8",
        "postgresql://h/db?schema=leaf", "mysql://u:p@h:3306/db?schema=leaf&ssl-mode=disabled",
        "mariadb://u@h/db?table=sequence_value&tag_column=name&max_id_column=id&max_id_is=last",
        "mysql://h/db?table=t_id&tag_column=name&max_id_column=max_id&step_column=step"
        "&description_column=d&updated_column=upd&max_id_is=next",
        "redis://127.0.0.1:6379/0?prefix=app:ids", "redis://:pw@h:1?shards=3&shard_refill=100",
        "redis://h?shards=2000", "sqlite:x?table=a;drop", "ftp://x", "?",
    ]
    s["store_url"] += urls
    s["lease_url"] += urls
    s["counter_url"] += [f"{u}\norders" for u in urls] + ["memory:\nbad name", "redis://h\nshop"]
    return s


def main():
    corpus = os.path.join(HERE, "corpus")
    for target, items in seeds().items():
        d = os.path.join(corpus, target)
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.startswith("seed-"):
                    os.remove(os.path.join(d, f))
        os.makedirs(d, exist_ok=True)
        for item in items:
            data = item.encode() if isinstance(item, str) else item
            name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
