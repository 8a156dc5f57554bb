#!/usr/bin/env python3
"""A gRPC client of `idmint serve`, generated from server/proto/idmint/v1/idmint.proto.

Generates the Python stubs with grpcio-tools into a temporary directory, then draws IDs and a
lease over gRPC (h2c, prior knowledge) and checks the answers:

- Ids: Segment (1000 distinct increasing IDs), SegmentRange, Snowflake (1000 distinct),
  ObjectId, Uuid7; StreamIds (2500 segment IDs in messages of 1000, 1000, 500; snowflake IDs
  until cancelled; a missing kind and a batch above max_count refused); Parse of every vector of tests/vectors/formats.json (every field, in core's
  order of parts) and of text no format reads (INVALID_ARGUMENT, the vector's error kind);
- Leases: Acquire -> Renew -> Release (a second Release is FAILED_PRECONDITION, lease_lost);
- a count above the server's max_count is INVALID_ARGUMENT, `idmint-error-kind` invalid_argument;
- with --token (the server has tokens): no token is UNAUTHENTICATED, --narrow-token (a token
  without the segment scope) is PERMISSION_DENIED on Segment;
- server reflection (grpc.reflection.v1alpha, the one grpcio-reflection ships) lists
  idmint.v1.Ids and idmint.v1.Leases and resolves Ids' methods.

Prints a JSON summary on stdout; exits 1 on any failed check. With --drain-stream it only
holds a stream open until the server ends it, for a test that stops the server meanwhile.

    python tests/server/grpc_client.py --target 127.0.0.1:8080 [--token T --narrow-token N]

Needs: grpcio grpcio-tools grpcio-reflection.
"""

import argparse
import importlib
import json
import os
import sys
import tempfile
import time
import traceback

import grpc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTO_DIR = os.path.join(ROOT, "server", "proto")
PROTO = os.path.join("idmint", "v1", "idmint.proto")


def generate(out):
    """The idmint.v1 stubs, generated into `out` and imported."""
    from grpc_tools import protoc

    args = [
        "grpc_tools.protoc",
        "-I" + PROTO_DIR,
        "--python_out=" + out,
        "--grpc_python_out=" + out,
        os.path.join(PROTO_DIR, PROTO),
    ]
    code = protoc.main(args)
    if code != 0:
        raise RuntimeError(f"grpc_tools.protoc exited with {code}")
    sys.path.insert(0, out)
    pb = importlib.import_module("idmint.v1.idmint_pb2")
    stubs = importlib.import_module("idmint.v1.idmint_pb2_grpc")
    return pb, stubs


class Checks:
    def __init__(self):
        self.failures = []
        self.summary = {}

    def check(self, ok, what):
        if not ok:
            self.failures.append(what)
        return ok


def error_of(call):
    """(code name, idmint-error-kind) of a call that must fail."""
    try:
        call()
    except grpc.RpcError as e:
        kind = dict(e.trailing_metadata() or ()).get("idmint-error-kind")
        return e.code().name, kind
    return "OK", None


def draw(channel, pb, stubs, auth, c):
    ids = stubs.IdsStub(channel)
    leases = stubs.LeasesStub(channel)

    seg = list(ids.Segment(pb.SegmentRequest(tag="grpc_orders", count=1000), metadata=auth).ids)
    c.check(len(seg) == 1000, f"Segment: {len(seg)} IDs, not 1000")
    c.check(len(set(seg)) == len(seg), "Segment: duplicate IDs")
    c.check(all(a < b for a, b in zip(seg, seg[1:])), "Segment: IDs not increasing")
    one = list(ids.Segment(pb.SegmentRequest(tag="grpc_orders"), metadata=auth).ids)
    c.check(len(one) == 1 and one[0] > seg[-1], f"Segment without count: {one}")
    c.summary["segment"] = {"count": len(seg), "first": seg[0], "last": seg[-1], "next": one}

    r = ids.SegmentRange(pb.SegmentRequest(tag="grpc_orders", count=50), metadata=auth)
    c.check(r.count == 50 and r.last == r.start + 49 and r.start > one[0],
            f"SegmentRange: {r}")
    c.summary["segment_range"] = {"start": r.start, "last": r.last, "count": r.count}

    snow = list(ids.Snowflake(pb.CountRequest(count=1000), metadata=auth).ids)
    c.check(len(snow) == 1000 and len(set(snow)) == 1000, "Snowflake: not 1000 distinct IDs")
    c.check(all(a < b for a, b in zip(snow, snow[1:])), "Snowflake: IDs not increasing")
    c.summary["snowflake"] = {"count": len(snow), "first": snow[0], "last": snow[-1]}

    oids = list(ids.ObjectId(pb.CountRequest(count=3), metadata=auth).ids)
    c.check(len(oids) == 3 and len(set(oids)) == 3
            and all(len(o) == 24 and int(o, 16) >= 0 for o in oids), f"ObjectId: {oids}")
    c.summary["objectid"] = oids

    uuids = list(ids.Uuid7(pb.CountRequest(count=3), metadata=auth).ids)
    c.check(len(uuids) == 3 and len(set(uuids)) == 3
            and all(len(u) == 36 and u[14] == "7" for u in uuids), f"Uuid7: {uuids}")
    c.summary["uuid7"] = uuids

    check_parse(ids, pb, auth, c)
    check_stream(ids, pb, auth, c, after=r.last)

    code, kind = error_of(lambda: ids.Snowflake(pb.CountRequest(count=10**9), metadata=auth))
    c.check((code, kind) == ("INVALID_ARGUMENT", "invalid_argument"),
            f"count above max_count: {code} {kind}")
    c.summary["bad_count"] = {"code": code, "kind": kind}

    lease = leases.Acquire(pb.AcquireRequest(holder="grpc-test", ttl_ms=10000), metadata=auth)
    c.check(lease.token != "" and lease.ttl_ms == 10000 and len(lease.nodes) > 0
            and lease.layout != "", f"Acquire: {lease}")
    now_ms = int(time.time() * 1000)
    renewed = leases.Renew(pb.RenewRequest(value=lease.value, token=lease.token,
                                           fence_ms=now_ms + 10000), metadata=auth)
    c.check(renewed.value == lease.value and renewed.token == lease.token,
            f"Renew: {renewed}")
    released = leases.Release(pb.ReleaseRequest(value=lease.value, token=lease.token,
                                                fence_ms=int(time.time() * 1000)), metadata=auth)
    c.check(released.released, "Release: released false")
    code, kind = error_of(lambda: leases.Release(
        pb.ReleaseRequest(value=lease.value, token=lease.token, fence_ms=now_ms),
        metadata=auth))
    c.check((code, kind) == ("FAILED_PRECONDITION", "lease_lost"),
            f"second Release: {code} {kind}")
    c.summary["lease"] = {
        "value": lease.value,
        "nodes": {n.name: n.value for n in lease.nodes},
        "layout": lease.layout,
        "renewed": True,
        "released": released.released,
        "released_again": {"code": code, "kind": kind},
    }


def check_stream(ids, pb, auth, c, after):
    """StreamIds: a counted stream's every ID in order, cut in batches; an unbounded one read
    and cancelled; refusals for a bad kind and batch."""
    msgs = list(ids.StreamIds(pb.StreamRequest(kind=pb.STREAM_KIND_SEGMENT, tag="grpc_orders",
                                               count=2500, batch=1000), metadata=auth))
    sizes = [len(m.ids) for m in msgs]
    got = [i for m in msgs for i in m.ids]
    c.check(sizes == [1000, 1000, 500], f"StreamIds count=2500 batch=1000: messages of {sizes}")
    c.check(len(set(got)) == 2500 and all(a < b for a, b in zip(got, got[1:]))
            and got[0] > after, "StreamIds: 2500 distinct increasing IDs above the last range")
    # Unbounded: read 20 messages of the default batch, then cancel.
    call = ids.StreamIds(pb.StreamRequest(kind=pb.STREAM_KIND_SNOWFLAKE), metadata=auth)
    seen = []
    for m in call:
        seen.extend(m.ids)
        if len(seen) >= 20 * 1000:
            break
    call.cancel()
    c.check(len(seen) == 20000 and len(set(seen)) == 20000
            and all(a < b for a, b in zip(seen, seen[1:])),
            f"StreamIds snowflake until cancelled: {len(seen)} IDs, {len(set(seen))} distinct")
    after_cancel = list(ids.Snowflake(pb.CountRequest(count=1), metadata=auth).ids)
    c.check(after_cancel[0] > seen[-1], "Snowflake after a cancelled stream: not above it")
    code, kind = error_of(lambda: list(ids.StreamIds(pb.StreamRequest(tag="grpc_orders"),
                                                     metadata=auth)))
    c.check((code, kind) == ("INVALID_ARGUMENT", "bad_request"), f"StreamIds no kind: {code} {kind}")
    code, kind = error_of(lambda: list(ids.StreamIds(
        pb.StreamRequest(kind=pb.STREAM_KIND_SEGMENT, tag="grpc_orders", batch=10**9),
        metadata=auth)))
    c.check((code, kind) == ("INVALID_ARGUMENT", "invalid_argument"),
            f"StreamIds batch above max_count: {code} {kind}")
    c.summary["stream"] = {"messages": sizes, "first": got[0], "last": got[-1],
                           "until_cancelled": len(seen), "bad_batch": kind}


def drain_stream(channel, pb, stubs, auth):
    """--drain-stream: opens a stream of snowflake IDs until cancelled, prints `streaming` once
    IDs flow (the test then stops the server), reads on and prints the status the stream ended
    with and the IDs it carried, as JSON."""
    ids = stubs.IdsStub(channel)
    got, code, kind = [], "OK", None
    try:
        for m in ids.StreamIds(pb.StreamRequest(kind=pb.STREAM_KIND_SNOWFLAKE, batch=100),
                               metadata=auth):
            if not got:
                print("streaming", flush=True)
            got.extend(m.ids)
    except grpc.RpcError as e:
        code = e.code().name
        kind = dict(e.trailing_metadata() or ()).get("idmint-error-kind")
    print(json.dumps({"code": code, "kind": kind, "ids": len(got),
                      "distinct": len(set(got)),
                      "increasing": all(a < b for a, b in zip(got, got[1:]))}), flush=True)


def check_paused_reader(ids, pb, auth, admin, c):
    """A reader that stops reading stops the minting: the tag's issued counter (admin /metrics)
    settles while the stream stays open, at about one HTTP/2 window of IDs, far below what the
    stream would carry (until cancelled). Waits on the counter itself, up to 120 s."""
    import urllib.request

    def issued():
        text = urllib.request.urlopen(f"http://{admin}/metrics", timeout=30).read().decode()
        key = 'idmint_ids_issued_total{kind="segment",tag="grpc_paused"}'
        return next((int(float(l.split()[-1])) for l in text.splitlines() if l.startswith(key)), 0)

    call = ids.StreamIds(pb.StreamRequest(kind=pb.STREAM_KIND_SEGMENT, tag="grpc_paused"),
                         metadata=auth)
    first = next(iter(call))
    deadline, last, same = time.monotonic() + 120, -1, 0
    while same < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
        now = issued()
        same = same + 1 if now == last else 0
        last = now
    call.cancel()
    c.check(same >= 3, f"a paused reader: the issued counter never settled (last {last})")
    c.check(len(first.ids) == 1000 and 1000 <= last <= 50_000_000,
            f"a paused reader: minting settled at {last} IDs")
    c.summary["paused_reader"] = {"settled_at": last}


def reading(text, layout):
    """The ParseRequest fields that read `text` as the vector says: its layout, or a decimal
    without one as a 64-bit integer (the server reads decimals with its own layout otherwise)."""
    if layout is not None:
        return {"layout": layout}
    if text and text.lstrip("-").isdigit():
        return {"format": "integer"}
    return {}


def check_parse(ids, pb, auth, c):
    """Parse of every vector: the fields core decodes, the same for every format."""
    with open(os.path.join(ROOT, "tests", "vectors", "formats.json")) as f:
        vectors = json.load(f)
    parsed = 0
    for case in vectors["decode"]:
        name, text = case["name"], case["text"]
        d = ids.Parse(pb.ParseRequest(id=text, **reading(text, case["layout"])), metadata=auth)
        got = {
            "format": d.format,
            "id": d.id,
            "value": str(d.value) if d.HasField("value") else None,
            "time_ms": d.time_ms if d.HasField("time_ms") else None,
            "time": d.time if d.HasField("time") else None,
            "layout": d.layout if d.HasField("layout") else None,
            # In the order of the ID's bits, as the vector lists them.
            "parts": [(p.name, getattr(p, p.WhichOneof("value"))) for p in d.parts],
        }
        want = {k: case[k] for k in ("format", "id", "value", "time_ms", "time", "layout")}
        want["parts"] = list(case["parts"].items())
        if c.check(got == want, f"Parse {name}: {got} != {want}"):
            parsed += 1
    errors = {}
    for case in vectors["invalid"]:
        text = case["text"]
        code, kind = error_of(lambda: ids.Parse(
            pb.ParseRequest(id=text, **reading(text, None)), metadata=auth))
        c.check((code, kind) == ("INVALID_ARGUMENT", case["error"]),
                f"Parse {case['name']}: {code} {kind}")
        errors[case["name"]] = kind
    c.summary["parse"] = {"vectors": parsed, "of": len(vectors["decode"]), "errors": errors}


def check_auth(channel, pb, stubs, narrow, c):
    ids = stubs.IdsStub(channel)
    code, kind = error_of(lambda: ids.Segment(pb.SegmentRequest(tag="grpc_orders")))
    c.check((code, kind) == ("UNAUTHENTICATED", "unauthorized"), f"no token: {code} {kind}")
    c.summary["no_token"] = {"code": code, "kind": kind}
    code, kind = error_of(lambda: ids.Segment(pb.SegmentRequest(tag="grpc_orders"),
                                              metadata=[("authorization", "Bearer nope")]))
    c.check((code, kind) == ("UNAUTHENTICATED", "unauthorized"), f"bad token: {code} {kind}")
    narrow_auth = [("authorization", "Bearer " + narrow)]
    code, kind = error_of(lambda: ids.Segment(pb.SegmentRequest(tag="grpc_orders"),
                                              metadata=narrow_auth))
    c.check((code, kind) == ("PERMISSION_DENIED", "forbidden"), f"wrong scope: {code} {kind}")
    c.summary["wrong_scope"] = {"code": code, "kind": kind}
    code, kind = error_of(lambda: list(ids.StreamIds(
        pb.StreamRequest(kind=pb.STREAM_KIND_SEGMENT, tag="grpc_orders"), metadata=narrow_auth)))
    c.check((code, kind) == ("PERMISSION_DENIED", "forbidden"), f"StreamIds, wrong scope: {code} {kind}")
    # The narrow token's own scope passes.
    u = list(ids.Uuid7(pb.CountRequest(), metadata=narrow_auth).ids)
    c.check(len(u) == 1, f"narrow token's own scope: {u}")
    # Parse needs only a valid token, of any scope.
    d = ids.Parse(pb.ParseRequest(id="507f1f77bcf86cd799439011"), metadata=narrow_auth)
    c.check(d.format == "objectid", f"Parse with the narrow token: {d}")
    code, kind = error_of(lambda: ids.Parse(pb.ParseRequest(id="507f1f77bcf86cd799439011")))
    c.check((code, kind) == ("UNAUTHENTICATED", "unauthorized"), f"Parse, no token: {code} {kind}")


def check_reflection(channel, c):
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
        ProtoReflectionDescriptorDatabase,
    )
    from google.protobuf.descriptor_pool import DescriptorPool

    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    replies = stub.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
    services = sorted(s.name for r in replies for s in r.list_services_response.service)
    c.check("idmint.v1.Ids" in services and "idmint.v1.Leases" in services,
            f"reflection lists {services}")
    pool = DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
    methods = [m.name for m in pool.FindServiceByName("idmint.v1.Ids").methods]
    c.check(methods == ["Segment", "SegmentRange", "Snowflake", "ObjectId", "Uuid7",
                        "OrderNumber", "Parse", "StreamIds"], f"reflection: Ids methods {methods}")
    c.summary["reflection"] = {"services": services, "ids_methods": methods}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", required=True, help="HOST:PORT of idmint serve's API")
    ap.add_argument("--token", help="a token with the mint and lease scopes")
    ap.add_argument("--narrow-token", help="a token without the mint:segment scope")
    ap.add_argument("--admin", help="HOST:PORT of the admin listener (the paused-reader check)")
    ap.add_argument("--drain-stream", action="store_true",
                    help="only: a stream until the server ends it (see drain_stream)")
    a = ap.parse_args()
    c = Checks()
    auth = [("authorization", "Bearer " + a.token)] if a.token else None
    if a.drain_stream:
        with tempfile.TemporaryDirectory(prefix="idmint-grpc-") as out:
            pb, stubs = generate(out)
            with grpc.insecure_channel(a.target) as channel:
                drain_stream(channel, pb, stubs, auth)
        return 0
    try:
        with tempfile.TemporaryDirectory(prefix="idmint-grpc-") as out:
            pb, stubs = generate(out)
            with grpc.insecure_channel(a.target) as channel:
                grpc.channel_ready_future(channel).result(timeout=120)
                draw(channel, pb, stubs, auth, c)
                if a.admin:
                    check_paused_reader(stubs.IdsStub(channel), pb, auth, a.admin, c)
                if a.token:
                    check_auth(channel, pb, stubs, a.narrow_token or "", c)
                check_reflection(channel, c)
    except Exception:  # a call that should have worked, or a generation error
        c.failures.append(traceback.format_exc())
    c.summary["failures"] = c.failures
    c.summary["ok"] = not c.failures
    print(json.dumps(c.summary, indent=1))
    return 0 if not c.failures else 1


if __name__ == "__main__":
    sys.exit(main())
