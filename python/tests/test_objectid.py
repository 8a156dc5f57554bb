import copy
import pickle
from datetime import datetime, timezone

import bson
import pytest

import idmint

UTC = timezone.utc


def test_new_objectid():
    oid = idmint.ObjectId()
    text = str(oid)
    assert len(text) == 24 and int(text, 16) >= 0 and text == text.lower()
    assert len(bytes(oid)) == 12 and bytes(oid) == oid.binary == bytes.fromhex(text)
    assert oid.generation_time == datetime.fromtimestamp(oid.timestamp, UTC)
    assert oid.generation_time.utcoffset().total_seconds() == 0
    assert idmint.ObjectId(None).timestamp >= oid.timestamp


def test_many_objectids_are_unique_and_increase():
    oids = [idmint.ObjectId() for _ in range(100_000)]
    assert len(set(oids)) == len(oids)
    assert len({str(o) for o in oids}) == len(oids)


def test_same_process_shares_random_value():
    assert len({idmint.ObjectId().random for _ in range(100)}) == 1


def test_constructors_agree():
    oid = idmint.ObjectId()
    for other in (
        idmint.ObjectId(str(oid)),
        idmint.ObjectId(str(oid).upper()),
        idmint.ObjectId(bytes(oid)),
        idmint.ObjectId(bytearray(bytes(oid))),
        idmint.ObjectId(oid),
        idmint.ObjectId.from_hex(str(oid)),
        idmint.ObjectId.from_bytes(bytes(oid)),
        idmint.ObjectId.from_parts(oid.timestamp, oid.random, oid.counter),
        eval(repr(oid), {"ObjectId": idmint.ObjectId}),
        pickle.loads(pickle.dumps(oid)),
        copy.copy(oid),
        copy.deepcopy(oid),
    ):
        assert other == oid and hash(other) == hash(oid) and not (other != oid)
    assert repr(oid) == f"ObjectId('{oid}')"


def test_ordering_is_by_bytes():
    oids = [idmint.ObjectId.from_bytes(bytes([b]) * 12) for b in (5, 1, 200, 7)]
    assert [bytes(o)[0] for o in sorted(oids)] == [1, 5, 7, 200]
    a, b = idmint.ObjectId("000000000000000000000001"), idmint.ObjectId("000000000000000000000002")
    assert a < b and a <= b and b > a and b >= a and a != b
    assert not (a > b) and not (b <= a)
    assert (a == "000000000000000000000001") is False
    with pytest.raises(TypeError):
        a < "000000000000000000000002"


def test_from_datetime_and_is_valid():
    t = datetime(2024, 2, 3, 4, 5, 6, 700000, tzinfo=UTC)
    oid = idmint.ObjectId.from_datetime(t)
    assert oid.generation_time == t.replace(microsecond=0)
    assert bytes(oid)[4:] == bytes(8)
    assert bson.ObjectId.from_datetime(t).binary == bytes(oid)
    assert idmint.ObjectId.is_valid(str(oid)) and idmint.ObjectId.is_valid(bytes(oid)) and idmint.ObjectId.is_valid(oid)
    assert not idmint.ObjectId.is_valid("nope") and not idmint.ObjectId.is_valid(None) and not idmint.ObjectId.is_valid(5)


def test_bson_interop():
    ours = idmint.ObjectId()
    theirs = bson.ObjectId(str(ours))
    assert str(theirs) == str(ours) and theirs.binary == bytes(ours)
    assert theirs.generation_time == ours.generation_time
    assert idmint.ObjectId(str(theirs)) == ours
    assert idmint.ObjectId(theirs) == ours  # a bson.ObjectId directly
    assert bson.ObjectId(bytes(ours)) == theirs
    assert ours.to_bson() == theirs and type(ours.to_bson()) is bson.ObjectId
    # compare and hash interchangeably
    assert ours == theirs and theirs == ours
    assert hash(ours) == hash(theirs)
    assert {theirs: 1}[ours] == 1
    earlier = bson.ObjectId("000000000000000000000000")
    assert ours > earlier and earlier < ours
    # and the other way: a bson ObjectId made by pymongo
    fresh = bson.ObjectId()
    assert str(idmint.ObjectId(str(fresh))) == str(fresh)
    assert idmint.ObjectId(str(fresh)).generation_time == fresh.generation_time
    # a document round trip through BSON
    doc = bson.decode(bson.encode({"_id": ours.to_bson()}))
    assert idmint.ObjectId(doc["_id"]) == ours


def test_generator_with_manual_clock():
    clock = idmint.ManualClock(1_700_000_000_500)
    gen = idmint.ObjectIdGenerator(clock=clock, random=b"\x01\x02\x03\x04\x05", counter_start=0xFFFFFF)
    a, b = gen.next_id(), gen.next_id()
    assert (a.timestamp, a.counter, b.counter) == (1_700_000_000, 0xFFFFFF, 0)
    assert a.random == b.random == gen.random == b"\x01\x02\x03\x04\x05"
    assert b < a  # the counter wrapped within one second: byte order differs from minting order
    clock.advance(1000)
    assert gen.next_id().timestamp == 1_700_000_001
    assert gen.waits == 0
    assert "0102030405" in repr(gen)
    assert isinstance(idmint.ObjectIdGenerator().next_id(), idmint.ObjectId)
    assert idmint.ObjectIdGenerator(clock="wall").next_id().timestamp > 0
