"""tests/vectors/health.json through ``idmint.health`` (the core's rule, as every package runs it),
and the context managers the native glue writes once for each class that closes."""

import asyncio

import pytest

import idmint

from conftest import load

HEALTH = load("health.json")


def tuples(case):
    """The case's observations in the form ``observe()`` gives them."""
    return [(o["metric"], o["value"], o["attributes"]) for o in case["observations"]]


@pytest.mark.parametrize("case", HEALTH["valid"], ids=[c["name"] for c in HEALTH["valid"]])
def test_health_vectors(case):
    h = idmint.health(tuples(case))
    assert h.asdict() == case["expected"]
    want = case["expected"]
    assert (h.status, h.reasons, h.lease, h.tags) == (want["status"], want["reasons"], want["lease"], want["tags"])
    assert bool(h) == (want["status"] != "down")  # degraded still hands out IDs


@pytest.mark.parametrize("case", HEALTH["invalid"], ids=[c["name"] for c in HEALTH["invalid"]])
def test_health_refuses(case):
    assert case["error"] == "invalid_argument"
    with pytest.raises(idmint.InvalidArgument):
        idmint.health(tuples(case))


@pytest.mark.parametrize("case", HEALTH["layout_remaining"], ids=[c["name"] for c in HEALTH["layout_remaining"]])
def test_layout_remaining_vectors(case, recwarn):
    """A generator on a manual clock observes the vector's time left, its health alone is the
    vector's, and it warns (``idmint.LayoutWarning``) at construction exactly where told."""
    gen = idmint.Snowflake(case["layout"], clock=idmint.ManualClock(case["clock_ms"]), **case["nodes"])
    (left,) = [v for m, v, _ in gen.observe() if m == "idmint.layout.remaining"]
    assert left == case["remaining_s"]
    assert idmint.health(gen.observe()).status == case["status"]
    warned = [w for w in recwarn if issubclass(w.category, idmint.LayoutWarning)]
    assert len(warned) == (1 if case["warns"] else 0), [str(w.message) for w in recwarn]
    if warned:
        assert f"layout `{gen.layout}` runs out at" in str(warned[0].message)
        assert warned[0].filename == __file__  # pointed at the caller's line


def test_health_wants_tuples():
    with pytest.raises(TypeError, match="observations must be"):
        idmint.health([{"metric": "idmint.lease.held", "value": 1, "attributes": {}}])
    with pytest.raises(TypeError):
        idmint.health(5)


def test_live_generators_are_up():
    gen = idmint.Snowflake("sonyflake", machine=3)
    with idmint.SegmentClient("memory:") as client:
        client.tag("orders").next_id()
        h = idmint.health(gen.observe() + client.observe())
        assert h.status == "up" and h.reasons == [] and h.lease is None
        assert h.tags[0]["tag"] == "orders" and h.tags[0]["remaining"] > 0
        assert idmint.health(idmint.observe_all([gen, client])).asdict() == h.asdict()
    assert repr(h) == "Health(status='up', reasons=[])"


def test_with_closes_and_lets_the_exception_through():
    with pytest.raises(KeyError):
        with idmint.Snowflake("sonyflake", machine=4) as gen:
            gen.next_id()
            raise KeyError("inside")
    assert gen.closed
    with pytest.raises(idmint.Closed):
        gen.next_id()
    with pytest.raises(KeyError):
        with idmint.SegmentClient("memory:") as client:
            raise KeyError("inside")
    with pytest.raises(idmint.Closed):
        client.tag("orders")


def test_async_with_closes():
    async def run():
        async with idmint.SegmentClient("memory:") as client:
            tag = await client.tag_async("orders")
            assert await tag.next_id_async() >= 1
        return client

    client = asyncio.run(run())
    with pytest.raises(idmint.Closed):
        client.tag("orders")
