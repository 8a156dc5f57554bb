"""The installed wheel, as a user meets it: mint, parse every snowflake and ObjectId vector, and
find every file the package ships (stubs, py.typed). Then, as installed:

- `idmint` alone (the slim default package): a store call is refused with StoresNotInstalled,
  whose message names `pip install 'idmint[stores]'`;
- `idmint[stores]` (the add-on `idmint-stores` beside it): `import idmint` loaded the add-on's
  native module, which draws from a SQLite segment store and takes a worker lease.

    python smoke.py PATH/TO/tests/vectors [slim|stores]   (run by tests/packages.sh in a fresh venv)

The second argument says which the harness installed; without it, the one whose distribution is
installed (the matrix's other platforms).
"""

import json
import os
import sys
import tempfile
from importlib import metadata, resources, util
from pathlib import Path

import idmint

vectors = Path(sys.argv[1])
installed = "stores" if util.find_spec("idmint_stores") else "slim"
expect = sys.argv[2] if len(sys.argv) > 2 else installed
assert expect == installed, f"expected the {expect} install, found {installed}"
here = Path(idmint.__file__).resolve()
assert "site-packages" in here.parts, f"idmint imported from {here}, not from the installed wheel"

# Every file the package ships: the extension, the sources, the stubs and the typing marker.
shipped = {p.name for p in resources.files("idmint").iterdir()}
for name in ("__init__.py", "_errors.py", "_errors.pyi", "_idmint.pyi", "py.typed"):
    assert name in shipped, f"the wheel lacks idmint/{name}: {sorted(shipped)}"
# (_idmint.abi3.so on Linux and macOS, _idmint.pyd on Windows)
assert any(n.startswith("_idmint.") and n.endswith((".so", ".pyd")) for n in shipped), sorted(shipped)

gen = idmint.Snowflake(datacenter=1, worker=7)
a, b = gen.next_id(), gen.next_id()
assert 0 < a < b, (a, b)
assert idmint.parse(b, "twitter").worker == 7

snowflake = json.loads((vectors / "snowflake.json").read_text())
assert len(snowflake["valid"]) > 10
for case in snowflake["valid"]:
    parts = idmint.parse(int(case["id"]), case["layout"])
    assert parts.timestamp_ms == case["time_ms"], case["name"]
    assert parts.fields == case["fields"], case["name"]
    assert parts.sequence == case["sequence"], case["name"]
for case in snowflake["invalid_ids"]:
    try:
        idmint.parse(case["id"], case["layout"])
    except idmint.InvalidId:
        pass
    else:
        raise AssertionError(f"{case['name']}: {case['id']!r} parsed")

objectid = json.loads((vectors / "objectid.json").read_text())
for case in objectid["valid"]:
    oid = idmint.ObjectId(case["hex"])
    assert (oid.timestamp, oid.counter) == (case["time_s"], case["counter"]), case["hex"]
assert idmint.ObjectId() != idmint.ObjectId()

native = sys.modules["idmint._idmint"].__name__
has_stores = sys.modules["idmint._idmint"]._STORES
if expect == "slim":
    # No store in the package: each store call refused by name, naming what installs them.
    assert native == "idmint._idmint" and not has_stores, native
    refused = []
    for call in (
        lambda: idmint.SegmentClient("sqlite::memory:"),
        lambda: idmint.Snowflake(lease="sqlite::memory:"),
        lambda: idmint.lease_list("sqlite::memory:"),
    ):
        try:
            call()
        except idmint.StoresNotInstalled as e:
            assert "pip install 'idmint[stores]'" in str(e), str(e)
            refused.append(str(e).split(" needs ")[0])
        else:
            raise AssertionError("a store call worked in the slim package")
    done = f"store calls refused ({', '.join(refused)})"
else:
    assert native == "idmint_stores._idmint" and has_stores, native
    assert metadata.version("idmint-stores") == metadata.version("idmint")
    with tempfile.TemporaryDirectory() as tmp:
        url = "sqlite:" + os.path.join(tmp, "ids.db")
        with idmint.SegmentClient(url) as client:
            tag = client.tag("orders")
            first = [tag.next_id() for _ in range(3)]
        assert first == sorted(first) and len(set(first)) == 3, first
        with idmint.SegmentClient(url) as client:  # the store remembers: a new client goes on above
            later = client.tag("orders").next_id()
        assert later > first[-1], (first, later)

        # A worker lease from the same kind of store: the generator holds worker 5 until closed.
        leases = "sqlite:" + os.path.join(tmp, "leases.db")
        leased = idmint.Snowflake(lease=leases, lease_range=(5, 5), lease_holder="smoke")
        assert leased.nodes["worker"] == 5, leased.nodes
        assert idmint.parse(leased.next_id(), "twitter").worker == 5
        held = [(i.value, i.state, i.holder) for i in idmint.lease_list(leases)]
        assert held == [(5, "held", "smoke")], held
        leased.close()
        assert [i for i in idmint.lease_list(leases) if i.state == "held"] == [], "close() released it"
    done = f"segment IDs {first} then {later} from SQLite, worker 5 leased"

print(f"python {sys.version.split()[0]}: idmint {metadata.version('idmint')} ({expect}, {native}) from "
      f"{here.parent}: minted {b}, {len(snowflake['valid'])} + {len(objectid['valid'])} vectors parsed, {done}")
