"""SQLAlchemy, Django, Pydantic and OpenTelemetry (docs/python-frameworks.md).

Every Python block of that page runs here: the OpenTelemetry and Pydantic ones as written, the
SQLAlchemy one against a PostgreSQL database of its own, the Django ones as the files of a
project in a temporary directory (makemigrations, a second makemigrations that finds no change,
migrate). Then 4 workers forked gunicorn-style, after the parent's clients exist and have
minted, insert through the SQLAlchemy defaults and the Django fields: every insert succeeds
against the primary keys, every row is counted, and each worker's snowflakes carry a node value
of its own.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import traceback
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import idmint
from conftest import load, server_url

DOC = Path(__file__).resolve().parents[2] / "docs" / "python-frameworks.md"
WORKERS = 4
ROWS = 200  # per worker and table


def doc_blocks(section: str) -> list[str]:
    """The Python blocks of the page's ``## section``."""
    text = DOC.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, flags=re.S)


def run_block(block: str) -> dict:
    namespace: dict = {"__name__": "docs_example"}
    # dont_inherit: the block is compiled as written, without this file's __future__ import.
    exec(compile(block, str(DOC), "exec", dont_inherit=True), namespace)
    return namespace


def collect(reader) -> dict:
    """(metric name, sorted attributes) -> value of an in-memory reader's collection."""
    data = reader.get_metrics_data()  # None when nothing was observed
    return {
        (m.name, tuple(sorted(p.attributes.items()))): p.value
        for rm in (data.resource_metrics if data else [])
        for sm in rm.scope_metrics
        for m in sm.metrics
        for p in m.data.data_points
    }


@pytest.fixture
def database() -> Iterator[str]:
    """A new PostgreSQL database on the test server, dropped afterwards: its URL."""
    import psycopg

    base = server_url("postgres")
    name = f"idmint_fw_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield base.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def keys(url: str, table: str) -> tuple[int, int]:
    """(rows, distinct keys) of ``table``."""
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute(f"SELECT count(*), count(DISTINCT id) FROM {table}").fetchone()
    assert row is not None
    return row[0], row[1]


def node_values(url: str, table: str, worker_column: str) -> dict[str, set[int]]:
    """Each writer's snowflake node values (twitter: datacenter << 5 | worker)."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(f"SELECT {worker_column}, id FROM {table}").fetchall()
    out: dict[str, set[int]] = {}
    for who, key in rows:
        p = idmint.parse(key, "twitter")
        out.setdefault(who, set()).add(p.datacenter << 5 | p.worker)
    return out


def prefork(workers: int, work: Callable[[int], None]) -> None:
    """Forks ``workers`` children that each run ``work(i)`` and exit; fails if any failed."""
    pids = []
    for i in range(workers):
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            code = 1
            try:
                work(i)
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        pids.append(pid)
    codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]
    assert codes == [0] * workers


def held_leases(url: str) -> list:
    return [i for i in idmint.lease_list(url) if i.state == "held"]


# ---- OpenTelemetry (first: its example counts everything published so far) ----------------


def test_opentelemetry_example():
    (block,) = doc_blocks("OpenTelemetry metrics")
    run_block(block)


def test_definitions_are_the_cores():
    import idmint.otel
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    defs = idmint.metric_definitions()
    doc = (DOC.parent / "metrics.md").read_text(encoding="utf-8")
    for name, instrument, unit, description, _attrs in defs:
        assert f"| `{name}` | {instrument} | `{unit}` | {description} |" in doc
    # A leased generator reports its lease: every definition becomes an instrument of its kind.
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    with idmint.Snowflake(lease="memory:") as gen, idmint.SegmentClient("memory:") as client:
        gen.next_id()
        client.tag("t").next_id()
        idmint.otel.publish(gen, client, meter_provider=provider)
        idmint.otel.publish(gen, meter_provider=provider)  # once per provider: not doubled
        data = reader.get_metrics_data()
        metrics = {
            m.name: m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
        }
        scopes = {sm.scope.name for rm in data.resource_metrics for sm in rm.scope_metrics}
        assert scopes == {"idmint"}
        assert set(metrics) == {d[0] for d in defs}
        for name, instrument, unit, _description, _attrs in defs:
            assert metrics[name].unit == unit
            assert type(metrics[name].data).__name__ == {"counter": "Sum", "gauge": "Gauge"}[instrument]
        values = collect(reader)
        assert values[("idmint.ids.issued", (("kind", "snowflake"),))] == 1
        assert values[("idmint.lease.held", ())] == 1
        assert gen.observe() and client.observe()
    # The time left in a layout, on a manual clock: tests/vectors/health.json's value, as the
    # Node package's OpenTelemetry and the JVM's Micrometer publish it.
    case = load("health.json")["layout_remaining"][0]
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    with idmint.Snowflake(case["layout"], clock=idmint.ManualClock(case["clock_ms"]), **case["nodes"]) as late:
        idmint.otel.publish(late, meter_provider=provider)
        assert collect(reader)[("idmint.layout.remaining", ())] == case["remaining_s"]
        idmint.otel.unpublish(late)
    # Closed: the generator reports nothing; unpublished, the client neither.
    idmint.otel.unpublish(client)
    assert idmint.observe_all([gen, client])[0][0] == "idmint.ids.issued"  # the client's
    assert not any(k[0] == "idmint.lease.held" for k in collect(reader))
    with pytest.raises(TypeError):
        idmint.otel.publish(object())  # type: ignore[arg-type]


def test_import_idmint_does_not_import_opentelemetry_nor_needs_it():
    code = """
import sys
import idmint, idmint.sqlalchemy, idmint.pydantic, idmint.django.fields
assert not [m for m in sys.modules if m.startswith("opentelemetry")], "imported"
sys.modules["opentelemetry"] = None   # as if opentelemetry-api were not installed
from idmint._clients import Clients
c = Clients(segments="memory:", snowflake={"random_nodes": True}, unconfigured=RuntimeError)
assert c.segment_id("a") == 1 and c.snowflake_id() > 0
c.close()
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# ---- Pydantic --------------------------------------------------------------------------------


def test_pydantic_example():
    (block,) = doc_blocks("Pydantic v2")
    ns = run_block(block)
    order, text = ns["order"], ns["text"]
    assert f'"id":"{order.id}"' in text and '"customer":42' in text
    assert f'"document":"{order.document}"' in text


def test_pydantic_types():
    from typing import Annotated

    from idmint.pydantic import Id, IdStr, IdType, ObjectId
    from pydantic import BaseModel, TypeAdapter, ValidationError

    class M(BaseModel):
        a: Id
        b: IdStr
        c: ObjectId
        d: Annotated[int, IdType(layout="time:41,worker:10,sequence:12")]  # 63 bits

    oid = idmint.ObjectId()
    m = M(a="12", b=2**64 - 1, c=bytes(oid), d=5)
    assert (m.a, m.b, m.c, m.d) == (12, 2**64 - 1, oid, 5)
    assert M.model_validate_json(m.model_dump_json()) == m
    assert m.model_dump(mode="json") == {"a": 12, "b": str(2**64 - 1), "c": str(oid), "d": 5}
    # The core's refusals, with its messages.
    layout = "time:41,worker:10,sequence:12"
    for name, bad, core in [
        ("a", 2**64, lambda v: idmint.parse(v, format="integer")),
        ("b", "12x", lambda v: idmint.parse(v, format="integer")),
        ("a", 1.5, lambda v: idmint.parse(v, format="integer")),
        ("c", "zz", idmint.ObjectId),
        ("d", 2**63, lambda v: idmint.parse(v, layout, format="snowflake")),
    ]:
        with pytest.raises((idmint.Error, TypeError)) as refused:
            core(bad)
        with pytest.raises(ValidationError) as info:
            M(**{"a": 1, "b": 1, "c": oid, "d": 1, name: bad})
        (err,) = info.value.errors()
        assert err["loc"] == (name,) and str(refused.value) in err["msg"]
    schema = TypeAdapter(IdStr).json_schema()
    assert schema == {"type": "string"}


# ---- SQLAlchemy ------------------------------------------------------------------------------


def test_sqlalchemy_prefork_workers(database, monkeypatch, capsys):
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from sqlalchemy.orm import Session

    from idmint.sqlalchemy import attach

    monkeypatch.setenv("DATABASE_URL", database)
    (block,) = doc_blocks("SQLAlchemy 2")
    ns = run_block(block)
    assert "[1]" in capsys.readouterr().out  # the first order of a new tag
    assert held_leases(database) == []  # engine.dispose() released the lease
    engine, Order, Event, Document = ns["engine"], ns["Order"], ns["Event"], ns["Document"]

    reader = InMemoryMetricReader()
    attach(
        engine,
        segments=database,
        snowflake={"lease": database, "lease_range": (0, 31)},
        meter_provider=MeterProvider(metric_readers=[reader]),
    )

    def insert(who: str, rows: int) -> None:
        with Session(engine) as session:
            session.add_all(
                [Order(item=who) for _ in range(rows)]
                + [Event(name=who) for _ in range(rows)]
                + [Document(title=who) for _ in range(rows)]
            )
            session.commit()

    insert("parent", 20)  # the clients exist and have minted before the fork
    values = collect(reader)
    assert values[("idmint.ids.issued", (("kind", "segment"), ("tag", "orders")))] == 20
    assert values[("idmint.ids.issued", (("kind", "snowflake"),))] == 20
    assert values[("idmint.lease.held", ())] == 1
    # One client for the engine, not one per insert: a single range fetched for 20 IDs.
    assert values[("idmint.segment.refills", (("tag", "orders"),))] == 1

    def worker(i: int) -> None:
        # SQLAlchemy's rule for a pool that crossed a fork (gunicorn's post_fork): let go of the
        # parent's connections without closing them. It also drops the parent's idmint clients;
        # the worker's first insert opens its own.
        engine.dispose(close=False)
        for _ in range(ROWS // 50):
            insert(f"w{i}", 50)
        engine.dispose()  # the worker's exit: its lease is released

    prefork(WORKERS, worker)
    insert("parent", 5)  # the parent's clients still work
    expected = 1 + 20 + WORKERS * ROWS + 5
    for table in ("orders", "events", "documents"):
        assert keys(database, table) == (expected, expected), table
    nodes = node_values(database, "events", "name")
    for i in range(WORKERS):
        assert len(nodes[f"w{i}"]) == 1
    assert len(set().union(*(nodes[f"w{i}"] for i in range(WORKERS)), nodes["parent"])) == WORKERS + 1
    engine.dispose()
    assert held_leases(database) == []


def test_sqlalchemy_unattached_engine_and_type_repr():
    from sqlalchemy import create_engine
    from sqlalchemy.exc import InvalidRequestError

    from idmint.sqlalchemy import ObjectIdType, clients

    with pytest.raises(InvalidRequestError, match="attach"):
        clients(create_engine("sqlite://"))
    # What Alembic's autogenerate writes into a migration makes the same column type.
    again = eval(repr(ObjectIdType()), {"ObjectIdType": ObjectIdType})
    assert repr(again) == "ObjectIdType(length=24)" and again.impl.length == 24
    oid = idmint.ObjectId()
    assert again.process_bind_param(oid, None) == str(oid)  # type: ignore[arg-type]
    assert again.process_result_value(str(oid), None) == oid  # type: ignore[arg-type]


# ---- Django ----------------------------------------------------------------------------------


def test_django_project_prefork_workers(database, tmp_path):
    project = tmp_path / "project"
    for block in doc_blocks("Django"):
        path = block.split("\n", 1)[0].removeprefix("# ")
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(block, encoding="utf-8")
        (project / path).with_name("__init__.py").touch()
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "DJANGO_SETTINGS_MODULE": "mysite.settings",
        "PYTHONPATH": str(project),
    }

    def django(*args: str) -> str:
        out = subprocess.run(
            [sys.executable, *args], cwd=project, env=env, capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout

    made = django("-m", "django", "makemigrations", "shop")
    assert "Create model Order" in made and "Create model Document" in made
    migration = (project / "shop" / "migrations" / "0001_initial.py").read_text(encoding="utf-8")
    assert "idmint.django.fields.SegmentField(primary_key=True, serialize=False, tag='orders')" in migration
    assert "idmint.django.fields.ObjectIdField(primary_key=True, serialize=False)" in migration
    assert "No changes detected" in django("-m", "django", "makemigrations", "--check", "--dry-run")
    django("-m", "django", "migrate")
    first = django(str(Path(__file__).with_name("django_workers.py")), str(WORKERS), str(ROWS))
    assert first.startswith("(1, 2, '")  # create_some(): the first order, two events, an ObjectId
    expected = {"shop_order": 1, "shop_event": 2, "shop_document": 1}
    for table, parent in expected.items():
        rows = parent + WORKERS * ROWS
        assert keys(database, table) == (rows, rows), table
    nodes = node_values(database, "shop_event", "name")
    assert all(len(nodes[f"w{i}"]) == 1 for i in range(WORKERS))
    assert len(set().union(*nodes.values())) == WORKERS + 1
    # Every process closed its clients at exit: no lease is left held.
    assert held_leases(database) == []
