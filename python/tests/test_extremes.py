"""Every numeric argument of every function and method of the package at the extremes of what
Python can pass (huge and negative ints, floats, NaN, infinities): each call returns or raises a
typed error (an ``idmint.Error``, ``TypeError``, ``ValueError``, ``OverflowError`` or
``MemoryError``); never a process abort (``next_ids(10**12)`` once ended the interpreter) and
never pyo3's ``PanicException``.

The calls are generated from the type stubs ``python/idmint/_idmint.pyi``: every parameter
annotated with a number type gets the extremes. A function whose receiver or other required
arguments the tables below cannot make fails ``test_every_numeric_parameter_is_covered``, so a
new function gets its extremes too."""

from __future__ import annotations

import ast
import asyncio
import math
from datetime import timedelta
from pathlib import Path

import pytest

import idmint

STUBS = Path(idmint.__file__).with_name("_idmint.pyi")

INTS = [-(2**128), -(2**64), -(2**63) - 1, -1, 0, 2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**63,
        2**64, 10**12, 2**128, 1.5, math.nan]
DURATIONS = [-math.inf, -1.0, 0.0, 5e-324, 1e9 + 1, 1e308, math.inf, math.nan, timedelta.max,
             timedelta.min, -(2**64), 2**64]
NUMERIC = ("int", "SupportsIndex", "_Time", "_Duration", "float")


def _layout():
    return idmint.Layout("twitter")


# Receivers of instance methods, one fresh per call.
RECEIVERS = {
    "Layout": _layout,
    "ManualClock": lambda: idmint.ManualClock(0),
    "Snowflake": lambda: idmint.Snowflake(datacenter=1, worker=1),
    "SegmentClient": lambda: idmint.SegmentClient("memory:"),
    "Tag": lambda: idmint.SegmentClient("memory:").tag("extremes"),
    "Keyring": lambda: idmint.Keyring.generate(1),
    "Uuid7Generator": idmint.Uuid7Generator,
    "Template": lambda: idmint.Template("%Y%M%D%5S"),
    "MemoryDailyCounter": idmint.MemoryDailyCounter,
    "TypeIdGenerator": lambda: idmint.TypeIdGenerator("user"),
}

# Values of required arguments other than the one under test, by name.
TYPICAL = {
    "id": 1,
    "time": 1_700_000_000_000,
    "now": 0,
    "sequence": 0,
    "url": "memory:",
    "tag": "extremes",
    "random": b"\0" * 5,
    "layout": "twitter",
    "template": "%Y%M%D%5S",
    "day": 20240522,
    "first": 1,
    "unix_ms": 0,
    "rand_a": 0,
    "rand_b": 0,
    "timestamp": 0,
    "counter": 0,
    "shown": 1,
    "ms": 1,
    "n": 1,
    "fields": {"datacenter": 0, "worker": 0},
    "nodes": 1,
    "rate": 1,
    "years": 1,
    "old": "twitter",
    "new": "twitter",
    "prefix": "user",
}

# Arguments a call needs besides the one under test for the value to reach its check (a lease
# range is read only with a lease).
CONTEXT = {
    ("Snowflake", "__new__"): {"datacenter": 1, "worker": 1},
    ("Snowflake", "lease_range"): {"lease": "memory:"},
    ("Snowflake", "lease_ttl"): {"lease": "memory:"},
    ("Snowflake", "lease_freeze"): {"lease": "memory:"},
}


def _is_numeric(annotation: str) -> bool:
    return any(word in NUMERIC for word in annotation.replace("|", " ").replace("[", " ")
               .replace("]", " ").replace(",", " ").split())


def _functions():
    """(class or None, function node, static) for every function and method of the stubs."""
    tree = ast.parse(STUBS.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield None, node, True
        elif isinstance(node, ast.ClassDef):
            for f in node.body:
                if isinstance(f, ast.FunctionDef):
                    decorators = {ast.unparse(d) for d in f.decorator_list}
                    if "property" in decorators:
                        continue
                    static = f.name == "__new__" or bool(decorators & {"staticmethod", "classmethod"})
                    yield node.name, f, static


# Classes whose every call talks to a live server: with extreme timeouts a call may wait that long
# on the test Redis, so their arguments are covered by their own tests (test_redis_snowflake.py),
# not here.
NEEDS_A_LIVE_STORE = {"RedisSnowflake"}


def _cases():
    """One case per numeric parameter: (id, class, name, static, params, param, annotation)."""
    for cls, f, static in _functions():
        if cls in NEEDS_A_LIVE_STORE:
            continue
        a = f.args
        params = a.posonlyargs + a.args + a.kwonlyargs
        if params and params[0].arg in ("self", "cls"):
            params = params[1:]
        required_pos = len(a.posonlyargs + a.args) - len(a.defaults)
        info = []
        for i, p in enumerate(a.posonlyargs + a.args):
            if p.arg in ("self", "cls"):
                continue
            info.append((p.arg, ast.unparse(p.annotation) if p.annotation else "", i < required_pos, False))
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            info.append((p.arg, ast.unparse(p.annotation) if p.annotation else "", d is None, True))
        if a.kwarg is not None and a.kwarg.annotation is not None:
            info.append(("**" + a.kwarg.arg, ast.unparse(a.kwarg.annotation), False, True))
        for name, annotation, _, _ in info:
            if _is_numeric(annotation):
                qual = f"{cls}.{f.name}" if cls else f.name
                yield f"{qual}:{name}", cls, f.name, static, info, name, annotation


CASES = list(_cases())


def _values(annotation: str) -> list:
    values = DURATIONS if "_Duration" in annotation or annotation == "float" else INTS
    if annotation.startswith("dict["):
        return [{"datacenter": v, "worker": 1} for v in values]
    if annotation.startswith("tuple["):
        return [(v, 1) for v in values] + [(0, v) for v in values]
    return values


def _call(cls, fname, static, info, param, value):
    if cls is None:
        target = getattr(idmint, fname)
    elif static:
        target = getattr(idmint, cls) if fname == "__new__" else getattr(getattr(idmint, cls), fname)
    else:
        target = getattr(RECEIVERS[cls](), fname)
    args, kwargs = [], dict(CONTEXT.get((cls, fname), {}))
    kwargs.update(CONTEXT.get((cls, param), {}))
    for name, _, required, keyword in info:
        if not required:
            continue
        given = value if name == param else TYPICAL[name]
        if keyword:
            kwargs[name] = given
        else:
            args.append(given)
    if param.startswith("**"):
        kwargs["datacenter"] = value
    elif not any(name == param and required for name, _, required, _ in info):
        kwargs[param] = value
    if param == "nodes":
        # The node values come from `nodes` alone.
        kwargs.pop("datacenter", None)
        kwargs.pop("worker", None)
    return target(*args, **kwargs)


def test_every_numeric_parameter_is_covered():
    assert len(CASES) > 30, [c[0] for c in CASES]
    missing = []
    for case_id, cls, fname, static, info, param, _ in CASES:
        if cls is not None and not static and cls not in RECEIVERS:
            missing.append(f"{case_id}: no receiver for {cls} in RECEIVERS")
        for name, _, required, _ in info:
            if required and name != param and name not in TYPICAL:
                missing.append(f"{case_id}: no typical value for {name!r} in TYPICAL")
    assert missing == []


TYPED = (idmint.Error, TypeError, ValueError, OverflowError, MemoryError)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_numeric_extremes(case):
    _, cls, fname, static, info, param, annotation = case
    if fname.endswith("_async") or fname in ("connect",):
        # Futures need a running loop: the call happens inside one.
        async def inside(value):
            try:
                r = _call(cls, fname, static, info, param, value)
                if asyncio.isfuture(r):
                    await asyncio.wait_for(r, 5)
            except BaseException as e:  # noqa: BLE001 - a panic is a BaseException
                _typed(e, case[0], value)

        for value in _values(annotation):
            asyncio.run(inside(value))
        return
    for value in _values(annotation):
        try:
            _call(cls, fname, static, info, param, value)
        except BaseException as e:  # noqa: BLE001 - pyo3's PanicException is a BaseException
            _typed(e, case[0], value)
    # The package still works.
    assert idmint.Snowflake(datacenter=1, worker=1).next_ids(2)


def _typed(e: BaseException, what: str, value) -> None:
    if isinstance(e, (pytest.skip.Exception, pytest.fail.Exception)):
        raise e
    assert isinstance(e, TYPED), f"{what} = {value!r}: {type(e).__module__}.{type(e).__name__}: {e}"


def test_next_ids_huge_is_a_typed_error():
    g = idmint.Snowflake(datacenter=1, worker=1)
    for n in (10**12, 2**24 + 1, 2**63 - 1):
        with pytest.raises(idmint.InvalidArgument, match=r"a count 0\.\.=16777216"):
            g.next_ids(n)
    with pytest.raises(idmint.InvalidArgument):
        idmint.Uuid7Generator().next_uuids(10**12)
    assert len(g.next_ids(3)) == 3
