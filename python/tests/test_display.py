"""The display-ID API: short strings, obfuscation keys and rotation, UUIDv7 and its generator,
order-number templates and daily counters, and how their errors reach Python."""

import copy
import pickle
import re
import uuid
from datetime import datetime, timedelta, timezone

import pytest

import idmint

KEY1 = "idmint-key-v1:000102030405060708090a0b0c0d0e0f"
KEY2 = "idmint-key-v2:f0e0d0c0b0a090807060504030201000"
# 2024-05-21T16:30:00Z, which is 2024-05-22 00:30 at +08:00
T = 1_716_309_000_000


def raises(cls, call, *, match):
    with pytest.raises(cls) as info:
        call()
    err = info.value
    assert type(err) is cls, type(err)
    assert isinstance(err, idmint.Error) and err.kind == cls.kind
    assert re.search(match, str(err)), str(err)
    return err


# --- errors of the new kinds, from the core -----------------------------------------------


def test_each_display_kind_from_the_core():
    raises(idmint.InvalidKey, lambda: idmint.Key("idmint-key-v3:0011"), match="the secret is 32 hex digits")
    raises(idmint.InvalidKey, lambda: idmint.Keyring([]), match="no keys")
    raises(idmint.InvalidKey, lambda: idmint.Keyring([KEY1, KEY1]), match="two keys have this version")
    raises(idmint.InvalidKey, lambda: idmint.Keyring.from_text(KEY1).reveal(5, version=2), match=r"v2: no key .* v1")
    raises(idmint.InvalidEncoding, lambda: idmint.decode("010"), match="leading zero")
    raises(idmint.InvalidEncoding, lambda: idmint.decode("U", "base32"), match="'U' at position 0")
    raises(idmint.InvalidTemplate, lambda: idmint.Template("%Y%M%D"), match="no sequence")
    raises(idmint.InvalidTemplate, lambda: idmint.OrderNumbers("%H%m%4S"), match="needs %Y")
    raises(idmint.InvalidTemplate, lambda: idmint.Template("%Y%M%D-%12S").format_snowflake(1), match="needs %19S")
    raises(idmint.InvalidUuid, lambda: idmint.parse_uuid7("6ba7b810-9dad-41d1-80b4-00c04fd430c8"), match="version 4")
    t = idmint.Template("SO-%y%M%D-%6S", check="luhn")
    n = t.format(T, 7)
    raises(idmint.CheckDigitMismatch, lambda: t.parse(n.replace("-000007", "-000008")), match="do not match")
    err = raises(idmint.CounterOverflow, lambda: exhaust(idmint.Template("%Y%M%D%1S", tz="+08:00")), match=r"2024-05-22 \(\+08:00\)")
    assert isinstance(err, RuntimeError) and not isinstance(err, ValueError)
    raises(idmint.InvalidArgument, lambda: idmint.encode(1, "base64"), match="base62, base62-fixed, base32 or base32-fixed")
    raises(idmint.InvalidArgument, lambda: idmint.Template("%5S", check="crc"), match="none, luhn or mod97")
    raises(idmint.InvalidArgument, lambda: idmint.Template("%5S", tz="Asia/Shanghai"), match="IANA")
    raises(idmint.InvalidArgument, lambda: idmint.Template("%L%5S", label="a-b"), match="letters and digits")
    raises(idmint.InvalidArgument, lambda: idmint.Template("%L%5S").format(T, 1), match="label")
    raises(idmint.ValueOutOfRange, lambda: idmint.Uuid7.from_parts(2**48, 0, 0), match=r"unix_ts_ms value 281474976710656")
    raises(idmint.ValueOutOfRange, lambda: idmint.Template("%3S").format(T, 1000), match="sequence value 1000 .* 0..=999")
    raises(idmint.ClockMovedBackwards, lambda: day_backwards(), match="86400000 ms behind")


def exhaust(template):
    orders = idmint.OrderNumbers(template, clock=idmint.ManualClock(T))
    assert [orders.next() for _ in range(9)][-1] == "202405229"
    orders.next()


def day_backwards():
    c = idmint.MemoryDailyCounter()
    assert (c.next(20240522), c.next(20240522), c.next(20240523)) == (1, 2, 1)
    c.next(20240522)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: idmint.encode(-1), r"`-1`"),
        (lambda: idmint.encode(2**64), str(2**64)),
        (lambda: idmint.encode(2**200), str(2**200)),
        (lambda: idmint.Keyring.from_text(KEY1).obfuscate(2**63), "0..=9223372036854775807"),
        (lambda: idmint.Keyring.from_text(KEY1).obfuscate(-1), "negative"),
        (lambda: idmint.Keyring.from_text(KEY1).obfuscate(2**64), str(2**64)),
        (lambda: idmint.Keyring.from_text(KEY1).obfuscate_tagged(-(2**70)), str(-(2**70))),
        (lambda: idmint.Keyring.from_text(KEY1).reveal(2**63), str(2**63)),
        (lambda: idmint.Template("%Y%M%D-%19S").format_snowflake(-1), "negative"),
        (lambda: idmint.Template("%Y%M%D-%19S").format_snowflake(2**63), str(2**63)),
        (lambda: idmint.Template("%Y%M%D-%19S").format_snowflake(2**70), str(2**70)),
    ],
)
def test_ids_are_never_wrapped(call, match):
    raises(idmint.InvalidId, call, match=match)


@pytest.mark.parametrize(
    "call, cls, match",
    [
        (lambda: idmint.Key.generate(62), idmint.InvalidKey, r"invalid key v62: versions are 0..=61"),
        (lambda: idmint.Key.generate(300), idmint.InvalidKey, r"invalid key v300: versions are 0..=61"),
        (lambda: idmint.Keyring.generate(-1), idmint.InvalidKey, r"invalid key v-1: versions are 0..=61"),
        (lambda: idmint.Keyring.from_text(KEY1).reveal(1, version=256), idmint.InvalidKey, r"v256: no key"),
        (lambda: idmint.Template("%5S").format(-1, 1), idmint.TimeOutOfRange, r"time -1 ms"),
        (lambda: idmint.Template("%5S").format(2**70, 1), idmint.TimeOutOfRange, r"time 1180591620717411303424 ms"),
        (lambda: idmint.Template("%5S").format(253402300800000, 1), idmint.TimeOutOfRange, r"time 253402300800000 ms"),
        (lambda: idmint.Template("%5S").day_of(-5), idmint.TimeOutOfRange, r"time -5 ms"),
        (lambda: idmint.Template("%5S").format(T, -1), idmint.ValueOutOfRange, r"sequence value -1 .* 0..=99999"),
        (lambda: idmint.Template("%5S").format(T, 2**64), idmint.ValueOutOfRange, rf"sequence value {2**64}"),
        (lambda: idmint.Template("%5S").format(-1, 2**64), idmint.ValueOutOfRange, rf"sequence value {2**64}"),
        (lambda: idmint.Uuid7.from_parts(-1, 0, 0), idmint.ValueOutOfRange, r"unix_ts_ms value -1"),
        (lambda: idmint.Uuid7.from_parts(0, 2**16, 0), idmint.ValueOutOfRange, r"rand_a value 65536 .* 0..=4095"),
        (lambda: idmint.Uuid7.from_parts(0, 4096, 0), idmint.ValueOutOfRange, r"rand_a value 4096"),
        (lambda: idmint.Uuid7.from_parts(0, 0, 2**62), idmint.ValueOutOfRange, r"rand_b value 4611686018427387904"),
        (lambda: idmint.MemoryDailyCounter.starting_at(20240522, 0), idmint.InvalidArgument, r"`first` = 0"),
        (lambda: idmint.MemoryDailyCounter.starting_at(20240522, -3), idmint.InvalidArgument, r"`first` = -3"),
        (lambda: idmint.MemoryDailyCounter.starting_at(20240522, 2**36), idmint.InvalidArgument, r"1..=68719476735"),
        (lambda: idmint.MemoryDailyCounter().next(-1), idmint.ValueOutOfRange, r"day value -1"),
        (lambda: idmint.Template("%5S", tz=timedelta(hours=24)), idmint.InvalidArgument, r"= 86400"),
        (lambda: idmint.Template("%5S", tz=timedelta(seconds=30)), idmint.InvalidArgument, r"whole number of minutes"),
        (lambda: idmint.Template("%5S", tz=timedelta(days=10**6)), idmint.InvalidArgument, r"= 86400000000"),
        (lambda: idmint.Uuid7Generator().next_uuids(-1), idmint.InvalidArgument, r"a count 0\.\.=16777216"),
        (lambda: idmint.parse_uuid7(b"\x00" * 15), idmint.InvalidArgument, r"15 bytes"),
    ],
)
def test_values_outside_the_core_types_are_reported_as_given(call, cls, match):
    raises(cls, call, match=match)


def test_iana_zone_objects_are_refused_by_name():
    zoneinfo = pytest.importorskip("zoneinfo")
    try:
        zone = zoneinfo.ZoneInfo("Asia/Shanghai")
    except zoneinfo.ZoneInfoNotFoundError:
        pytest.skip("no tz database on this machine")
    raises(idmint.InvalidArgument, lambda: idmint.Template("%5S", tz=zone), match="Asia/Shanghai")


@pytest.mark.parametrize(
    "call",
    [
        lambda: idmint.encode("12"),
        lambda: idmint.encode(1.0),
        lambda: idmint.encode(True),
        lambda: idmint.encode(1, 62),
        lambda: idmint.decode(12),
        lambda: idmint.decode(b"1"),
        lambda: idmint.Key(1),
        lambda: idmint.Key.generate("1"),
        lambda: idmint.Keyring(KEY1),
        lambda: idmint.Keyring([1]),
        lambda: idmint.Keyring(5),
        lambda: idmint.Keyring.from_text(KEY1).obfuscate("5"),
        lambda: idmint.Keyring.from_text(KEY1).obfuscate(5.0),
        lambda: idmint.Keyring.from_text(KEY1).reveal(5, version="1"),
        lambda: idmint.Keyring.from_text(KEY1).reveal_tagged(5),
        lambda: idmint.parse_uuid7(123),
        lambda: idmint.parse_uuid7(None),
        lambda: idmint.Uuid7.from_parts(0.5, 0, 0),
        lambda: idmint.Uuid7Generator(clock=5),
        lambda: idmint.Uuid7Generator().next_uuids("3"),
        lambda: idmint.Template(5),
        lambda: idmint.Template("%5S", tz=8),
        lambda: idmint.Template("%5S", check=1),
        lambda: idmint.Template("%5S").format(T, "1"),
        lambda: idmint.Template("%5S").format(1.5, 1),
        lambda: idmint.Template("%5S").parse(12345),
        lambda: idmint.OrderNumbers(5),
        lambda: idmint.OrderNumbers("%Y%M%D%5S", counter=5),
        lambda: idmint.MemoryDailyCounter().next("20240522"),
    ],
)
def test_wrong_types_are_type_errors(call):
    with pytest.raises(TypeError):
        call()


def test_naive_datetimes_are_refused():
    raises(idmint.InvalidArgument, lambda: idmint.Template("%5S").format(datetime(2024, 5, 22), 1), match="aware datetime")


# --- short strings ------------------------------------------------------------------------


def test_encode_round_trips_and_accepts_integer_likes():
    class Index:
        def __index__(self):
            return 62

    assert idmint.encode(Index()) == "10"
    assert idmint.encode(0, "base32-fixed") == "0" * 13
    for enc in idmint.ENCODINGS:
        for v in (0, 1, 61, 62, 2**63 - 1, 2**63, 2**64 - 1):
            assert idmint.decode(idmint.encode(v, enc), enc) == v
    assert idmint.decode("lO", "base32") == 32  # Crockford: l = 1, O = 0
    assert idmint.encode(2**64 - 1, encoding="base62") == "LygHa16AHYF"


# --- obfuscation --------------------------------------------------------------------------


def test_key_text_and_repr_hide_nothing_but_the_repr():
    key = idmint.Key(KEY1.upper().replace("IDMINT-KEY-V", "idmint-key-v"))
    assert key.version == 1 and key.to_text() == KEY1
    assert key.secret == bytes(range(16))
    assert "0001" not in repr(key) and "0001" not in str(key) and "version=1" in repr(key)
    assert key == idmint.Key.from_text(KEY1) and key != idmint.Key(KEY2)
    fresh = idmint.Key.generate(7)
    assert fresh.version == 7 and fresh.secret != key.secret
    assert idmint.Key(fresh.to_text()) == fresh
    assert idmint.Key.generate().version == 1  # the CLI's default


def test_errors_never_show_a_secret():
    secret = "f0e0d0c0b0a090807060504030201000"
    for text in (f"idmint-key-v62:{secret}", f"idmint-key-v1:{secret}zz", f"key-v1:{secret}"):
        with pytest.raises(idmint.InvalidKey) as info:
            idmint.Keyring.from_text(f"# keys\n{KEY1}\n{text}\n")
        assert secret not in str(info.value)
        assert "line 3" in str(info.value)


def test_rotation_old_outputs_keep_revealing():
    old = idmint.Keyring.from_text(KEY1)
    shown, tagged = old.obfuscate(42), old.obfuscate_tagged(42)
    ring = idmint.Keyring([idmint.Key(KEY2), KEY1])  # any order, strs or Keys
    assert ring.versions == [1, 2] and ring.active_version == 2
    assert ring.reveal_tagged(tagged) == 42
    assert ring.reveal(shown, version=1) == 42
    assert ring.reveal(ring.obfuscate(42)) == 42
    assert ring.obfuscate_tagged(42).startswith("2") and ring.obfuscate(42) != shown
    assert idmint.split_tagged(tagged) == (1, shown)
    assert repr(ring) == "Keyring(versions=[1, 2])"


def test_neighbouring_ids_give_unrelated_outputs():
    ring = idmint.Keyring.generate(3)
    assert ring.versions == [3]
    out = [ring.obfuscate(i) for i in range(1000, 1100)]
    assert len(set(out)) == 100
    assert out != sorted(out)
    assert all(0 <= o < 2**63 for o in out)
    assert [ring.reveal(o) for o in out] == list(range(1000, 1100))


# --- UUIDv7 -------------------------------------------------------------------------------


def test_uuid7_is_a_stdlib_uuid_and_increases():
    a, b = idmint.uuid7(), idmint.uuid7()
    assert isinstance(a, uuid.UUID) and a.version == 7 and a.variant == uuid.RFC_4122
    assert b > a
    many = [idmint.uuid7() for _ in range(10_000)]
    assert many == sorted(many) and len(set(many)) == len(many)
    now = datetime.now(timezone.utc)
    assert abs(idmint.parse_uuid7(many[-1]).time - now) < timedelta(days=1)


def test_generator_on_a_manual_clock_counts_then_carries():
    clock = idmint.ManualClock(0x017F22E279B0)
    gen = idmint.Uuid7Generator(clock=clock)
    assert gen.clock == "manual" and "manual" in repr(gen)
    first = idmint.parse_uuid7(gen.next())
    assert first.time_ms == 0x017F22E279B0 and first.rand_a < 2048  # seeded with the top bit clear
    second = gen.next_uuid7()
    assert (second.time_ms, second.rand_a) == (first.time_ms, first.rand_a + 1)
    ulid = gen.next_ulid()
    assert len(ulid) == 26 and idmint.parse_uuid7(ulid).rand_a == first.rand_a + 2
    batch = gen.next_uuids(5000)  # more than a millisecond's 4096: carries into the timestamp
    assert len(batch) == 5000 and all(isinstance(u, uuid.UUID) for u in batch)
    assert batch == sorted(batch) and batch[0] > idmint.parse_uuid7(ulid).uuid
    assert idmint.parse_uuid7(batch[-1]).time_ms > first.time_ms
    assert gen.next_uuids(0) == []
    clock.set(1_000)  # the clock steps back: keep counting up from the last value
    assert gen.next() > batch[-1]
    assert idmint.Uuid7Generator(clock="wall").clock == "wall"
    assert idmint.Uuid7Generator().clock == "monotonic"


def test_uuid7_value_semantics():
    text = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"
    u = idmint.Uuid7(text)
    std = uuid.UUID(text)
    assert repr(u) == f"Uuid7('{text}')" and str(u) == text
    assert u == std and std == u and u != uuid.UUID(int=std.int + 1)
    assert u < uuid.UUID(int=std.int + 1) and u >= std
    assert {u: 1}[std] == 1 and {std: 1}[u] == 1
    assert pickle.loads(pickle.dumps(u)) == u
    assert copy.copy(u) is u and copy.deepcopy(u) is u
    assert u != text  # not equal to its text
    with pytest.raises(TypeError):
        u < text  # noqa: B015
    with pytest.raises(AttributeError):
        u.time_ms = 0  # frozen


# --- templates and order numbers ----------------------------------------------------------


def test_template_properties_and_time_zones():
    t = idmint.Template("%L%Y%M%D%m%5S", tz="+08:00", label="7")
    assert (t.pattern, t.check, t.sequence_width, t.capacity, t.has_full_date) == ("%L%Y%M%D%m%5S", "none", 5, 99_999, True)
    assert t.offset_seconds == 8 * 3600 and t.tz == timezone(timedelta(hours=8))
    assert repr(t) == "Template('%L%Y%M%D%m%5S', tz='+08:00', check='none')"
    assert t.day_of(T) == 20240522 and t.day_of(datetime(2024, 5, 21, 16, 30, tzinfo=timezone.utc)) == 20240522
    same = [
        idmint.Template("%L%Y%M%D%m%5S", tz=tz, label="7")
        for tz in ("+0800", "+08", timezone(timedelta(hours=8)), timedelta(hours=8))
    ]
    assert all(s == t for s in same)
    assert idmint.Template("%5S").tz == timezone.utc and idmint.Template("%5S", tz="Z").offset_seconds == 0
    west = idmint.Template("%Y%M%D%H%m%3S", tz=timezone(timedelta(hours=-5, minutes=-30)))
    assert west.offset_seconds == -19_800 and west.format(T, 1) == "202405211100001"
    assert not idmint.Template("%H%5S").has_full_date


def test_template_parse_parts_and_snowflake_sequences():
    t = idmint.Template("INV-%L-%Y%M%D-%5S", tz="+01:00", check="mod97", label="AB12")
    n = t.format(T, 1)
    assert n == "INV-AB12-20240521-0000106"
    p = t.parse(n)
    assert (p.year, p.month, p.day, p.hour, p.label, p.sequence, p.check) == (2024, 5, 21, None, "AB12", 1, "06")
    assert p.asdict() == {"year": 2024, "month": 5, "day": 21, "label": "AB12", "sequence": 1, "check": "06"}
    assert repr(p) == "TemplateParts(year=2024, month=5, day=21, label='AB12', sequence=1, check='06')"
    snow = idmint.Template("%Y%M%D-%19S")
    assert snow.format_snowflake(1541815603606036480) == "20220628-1541815603606036480"
    assert snow.format_snowflake(1541815603606036480, "twitter") == "20220628-1541815603606036480"
    assert snow.format_snowflake(1541815603606036480, idmint.Layout("twitter")) == "20220628-1541815603606036480"
    sony = idmint.Layout("sonyflake")
    assert idmint.Template("%Y%M%D-%19S").format_snowflake(sony.compose(1_716_309_000_000, machine=1), sony).startswith("20240521-")


def test_order_numbers_count_per_day_and_share_a_counter():
    clock = idmint.ManualClock(T)
    counter = idmint.MemoryDailyCounter()
    a = idmint.OrderNumbers(idmint.Template("A%Y%M%D%3S", tz="+08:00"), counter=counter, clock=clock)
    b = idmint.OrderNumbers(idmint.Template("B%Y%M%D%3S", tz="+08:00"), counter=counter, clock=clock)
    assert [a.next(), b.next(), a.next()] == ["A20240522001", "B20240522002", "A20240522003"]
    clock.advance(86_400_000)
    assert a.next() == "A20240523001"
    assert a.template == idmint.Template("A%Y%M%D%3S", tz="+08:00")
    assert a.counter.next(20240523) == 2  # the same counter
    resumed = idmint.OrderNumbers(
        "%Y%M%D%5S", counter=idmint.MemoryDailyCounter.starting_at(20240521, 500), clock=idmint.ManualClock(T)
    )
    assert resumed.next() == "2024052100500"  # a pattern str is read in UTC
    assert "OrderNumbers(Template(" in repr(resumed)
