"""Every core error kind reaches Python as its own exception class, with the core's message."""

import re
from datetime import datetime, timezone

import pytest

import idmint
from idmint import _errors

VALUE_ERRORS = {
    "invalid_layout",
    "value_out_of_range",
    "unknown_field",
    "missing_field",
    "time_out_of_range",
    "epoch_in_future",
    "invalid_id",
    "invalid_object_id",
    "invalid_argument",
    "invalid_tag",
    "invalid_key",
    "invalid_encoding",
    "invalid_template",
    "invalid_uuid",
    "check_digit_mismatch",
}


def camel(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_"))


def test_every_core_kind_has_its_own_class():
    assert len(idmint.ERROR_KINDS) >= 11
    classes = set()
    for kind in idmint.ERROR_KINDS:
        cls = _errors.BY_KIND.get(kind)
        assert cls is not None, f"no exception class for core error kind {kind!r}"
        assert cls is getattr(idmint, camel(kind))
        assert issubclass(cls, idmint.Error) and cls is not idmint.Error
        assert cls.kind == kind
        assert issubclass(cls, ValueError) == (kind in VALUE_ERRORS), kind
        classes.add(cls)
    assert len(classes) == len(idmint.ERROR_KINDS)


def test_unknown_kind_falls_back_to_base_class():
    e = idmint.Error("boom", kind="lease_lost")
    assert e.kind == "lease_lost" and e.message == "boom" and str(e) == "boom"
    assert idmint.Error.kind == "error"


def raises(cls, call, *, match):
    with pytest.raises(cls) as info:
        call()
    err = info.value
    assert type(err) is cls
    assert isinstance(err, idmint.Error)
    assert err.kind == cls.kind
    assert re.search(match, str(err)), str(err)
    assert err.message == str(err)
    return err


def test_each_kind_from_the_core():
    twitter = idmint.Layout("twitter")
    t = 1426212000000
    raises(idmint.InvalidLayout, lambda: idmint.Layout("time:41,worker:30,sequence:12"), match="83 bits")
    raises(idmint.ValueOutOfRange, lambda: idmint.Snowflake(datacenter=0, worker=32), match=r"worker value 32 .* 0..=31")
    raises(idmint.ValueOutOfRange, lambda: twitter.compose(t, datacenter=0, worker=0, sequence=-1), match="sequence value -1")
    raises(idmint.UnknownField, lambda: idmint.Snowflake(machine=1), match="datacenter, worker")
    raises(idmint.MissingField, lambda: twitter.compose(t, datacenter=1), match="`worker`")
    raises(idmint.TimeOutOfRange, lambda: twitter.compose(0, datacenter=0, worker=0), match="time 0 ms")
    clock = idmint.ManualClock(1_000_000)
    raises(idmint.EpochInFuture, lambda: idmint.Snowflake(epoch=2_000_000, clock=clock), match="in the future")
    raises(idmint.LayoutExhausted, lambda: idmint.Snowflake("baidu"), match="2024-11-20")
    gen = idmint.Snowflake(clock=clock, epoch=0, datacenter=0, worker=0)
    gen.next_id()
    clock.set(999_000)
    raises(idmint.ClockMovedBackwards, gen.next_id, match="1000 ms behind")
    raises(idmint.InvalidId, lambda: idmint.parse(-1), match="negative")
    raises(idmint.InvalidObjectId, lambda: idmint.ObjectId("507f1f77bcf86cd79943901g"), match="'g' at position 23")
    raises(idmint.InvalidArgument, lambda: idmint.Snowflake(on_exhausted="spin"), match="borrow:MS")
    raises(idmint.InvalidArgument, lambda: idmint.Snowflake(on_rollback="wait"), match="wait:MS")
    raises(idmint.InvalidArgument, lambda: idmint.Layout("twitter", epoch="yesterday"), match="RFC 3339")


def test_layout_exhausted_while_running():
    clock = idmint.ManualClock(1_000)
    with pytest.warns(idmint.LayoutWarning, match="in 0 days"):  # 3 s left: it says so at start
        gen = idmint.Snowflake("time:2@1s,worker:1,sequence:1", epoch=0, clock=clock, worker=0)
    assert gen.parse(gen.next_id()).timestamp_ms == 1_000
    clock.set(4_000)
    raises(idmint.LayoutExhausted, gen.next_id, match="ran out")
    raises(idmint.LayoutExhausted, lambda: gen.next_ids(3), match="ran out")


@pytest.mark.parametrize(
    "value",
    [-1, -(2**70), 2**63, 2**64, 2**64 + 5, 2**200, "-1", "9223372036854775808", "1e3", " 1", ""],
)
def test_never_a_silent_wrap_on_ids(value):
    with pytest.raises(idmint.InvalidId):
        idmint.parse(value, "twitter")
    with pytest.raises(ValueError):
        idmint.Snowflake(datacenter=0, worker=1).parse(value)


@pytest.mark.parametrize("value", [-1, 32, 2**63, -(2**63), 2**64, 2**130, -(2**130)])
def test_never_a_silent_wrap_on_values(value):
    with pytest.raises(idmint.ValueOutOfRange):
        idmint.Snowflake(datacenter=0, worker=value)
    with pytest.raises(idmint.ValueOutOfRange):
        idmint.Layout("twitter").compose(1426212000000, datacenter=0, worker=value)
    with pytest.raises(idmint.ValueOutOfRange):
        idmint.Layout("twitter").compose(1426212000000, datacenter=0, worker=0, sequence=value * 4096)


@pytest.mark.parametrize("time", [-1, 2**64, 2**130, -(2**130)])
def test_never_a_silent_wrap_on_times(time):
    with pytest.raises(idmint.TimeOutOfRange):
        idmint.Layout("twitter").compose(time, datacenter=0, worker=0)


@pytest.mark.parametrize(
    "call",
    [
        lambda: idmint.parse(1.5),
        lambda: idmint.parse(True),
        lambda: idmint.parse(None),
        lambda: idmint.parse(b"123"),
        lambda: idmint.Snowflake(worker="1"),
        lambda: idmint.Snowflake(worker=True),
        lambda: idmint.Snowflake(worker=1.0),
        lambda: idmint.Snowflake(5),
        lambda: idmint.Snowflake(epoch=1.5),
        lambda: idmint.Snowflake(epoch=True),
        lambda: idmint.Snowflake(clock=5),
        lambda: idmint.Snowflake(on_rollback=5),
        lambda: idmint.Layout(5),
        lambda: idmint.Layout("twitter").compose(1.5, datacenter=0, worker=0),
        lambda: idmint.Layout("twitter").compose(1426212000000, datacenter=0, worker=0, sequence="1"),
        lambda: idmint.Snowflake(random_nodes=True).next_ids("3"),
        lambda: idmint.Snowflake(random_nodes=True).next_ids(2.0),
        lambda: idmint.ObjectId(12),
        lambda: idmint.ObjectId(1.5),
        lambda: idmint.ObjectId.from_parts(0, "abcde", 0),
        lambda: idmint.ObjectIdGenerator(random=[1, 2, 3, 4, 5]),
        lambda: idmint.ManualClock(None),
    ],
)
def test_wrong_types_are_type_errors(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: idmint.Snowflake(epoch=datetime(2020, 1, 1)),
        lambda: idmint.Layout("twitter", epoch=datetime(2020, 1, 1)),
        lambda: idmint.Layout("twitter").compose(datetime(2020, 1, 1), datacenter=0, worker=0),
        lambda: idmint.Snowflake(random_nodes=True).next_ids(-1),
        lambda: idmint.Snowflake(clock="sundial"),
        lambda: idmint.Layout("twitter", epoch=-5),
        lambda: idmint.Layout("twitter", epoch=datetime(1969, 12, 31, tzinfo=timezone.utc)),
        lambda: idmint.ObjectId.from_parts(0, b"abcd", 0),
        lambda: idmint.ManualClock(-1),
        lambda: idmint.ManualClock(0).advance(-1),
    ],
)
def test_bad_values_are_invalid_argument(call):
    with pytest.raises(idmint.InvalidArgument) as info:
        call()
    assert isinstance(info.value, ValueError)
    assert info.value.kind == "invalid_argument"


@pytest.mark.parametrize(
    "call",
    [
        lambda: idmint.ObjectId.from_parts(2**32, b"abcde", 0),
        lambda: idmint.ObjectId.from_parts(-1, b"abcde", 0),
        lambda: idmint.ObjectId.from_parts(0, b"abcde", 2**24),
        lambda: idmint.ObjectId.from_parts(0, b"abcde", -1),
        lambda: idmint.ObjectIdGenerator(counter_start=2**24),
        lambda: idmint.ObjectId.from_datetime(datetime(2200, 1, 1, tzinfo=timezone.utc)),
    ],
)
def test_objectid_parts_out_of_range(call):
    with pytest.raises(idmint.ValueOutOfRange):
        call()


def test_errors_pickle_and_catch_as_base():
    import pickle

    try:
        idmint.parse("x")
    except idmint.Error as e:
        again = pickle.loads(pickle.dumps(e))
        assert type(again) is idmint.InvalidId and str(again) == str(e)
    else:
        pytest.fail("no error")


def test_integer_like_values_are_accepted_and_huge_epochs_reported_exactly():
    class Index:
        def __init__(self, v):
            self.v = v

        def __index__(self):
            return self.v

    assert idmint.Layout("twitter", epoch=Index(1_700_000_000_000)).epoch_ms == 1_700_000_000_000
    assert idmint.Snowflake(datacenter=0, worker=Index(3)).nodes["worker"] == 3
    assert idmint.parse(Index(0), "twitter").timestamp_ms == 1288834974657
    with pytest.raises(idmint.InvalidArgument, match=str(2**200)):
        idmint.Layout("twitter", epoch=2**200)


def test_huge_ids_are_reported_with_their_exact_digits():
    class Index:
        def __index__(self):
            return -5

    with pytest.raises(idmint.InvalidId, match=str(2**200)):
        idmint.parse(2**200)
    with pytest.raises(idmint.InvalidId, match=str(-(2**200))):
        idmint.parse(-(2**200))
    with pytest.raises(idmint.InvalidId, match="-5"):
        idmint.parse(Index())
