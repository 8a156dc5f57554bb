"""The slim default package and its stores add-on (docs/packages.md, "Slim and stores").

CI installs both (``pip install ./python ./python/stores``), so ``import idmint`` loads the
add-on's native module and every other test here runs with the stores. The slim package's own
native module is tested in a child process that cannot see the add-on, as if it were not
installed: it mints and parses, and each store call raises ``StoresNotInstalled`` naming the
command that installs the add-on.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import idmint
from idmint import _platform

ROOT = Path(__file__).resolve().parents[2]
INSTALL = "pip install 'idmint[stores]'"


def slim(code: str) -> str:
    """Runs ``code`` in a Python whose ``import idmint`` cannot find the add-on."""
    prelude = "import sys\nsys.modules['idmint_stores'] = None  # as if not installed\n"
    out = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_add_on_is_the_module_loaded_here():
    # CI installs the add-on: its native module, with the stores, is the one imported, and the
    # package's own module is not loaded beside it (one native library per process).
    assert idmint._idmint._STORES is True
    assert idmint._idmint.__name__ == "idmint_stores._idmint"
    assert sys.modules["idmint._idmint"] is idmint._idmint
    assert idmint.SegmentClient.__module__ != "idmint._slim"


# The suites that need no store, run again on the slim package's own native module.
IN_PROCESS = ["test_vectors.py", "test_display_vectors.py", "test_snowflake.py", "test_formats.py", "test_objectid.py"]


def test_slim_passes_the_suites_that_need_no_store():
    here = Path(__file__).resolve().parent
    slim(
        f"""
        import idmint, pytest
        assert idmint._idmint._STORES is False and idmint._idmint.__name__ == "idmint._idmint"
        args = ["-q", "-p", "no:cacheprovider", "--rootdir", {str(here)!r}]
        sys.exit(pytest.main(args + [{str(here)!r} + "/" + f for f in {IN_PROCESS!r}]))
        """
    )


def test_slim_refuses_each_store_call_by_name():
    out = slim(
        """
        import json
        import idmint

        calls = {
            "SegmentClient": lambda: idmint.SegmentClient("sqlite::memory:"),
            "SegmentClient.connect": lambda: idmint.SegmentClient.connect("memory:"),
            "RedisSnowflake": lambda: idmint.RedisSnowflake("redis://127.0.0.1"),
            "lease_list": lambda: idmint.lease_list("memory:"),
            "Snowflake(lease=...)": lambda: idmint.Snowflake(lease="postgres://app:s3cret@db/ids"),
            "a shared daily counter (a counter URL)": lambda: idmint.OrderNumbers("%Y%5S", counter="memory:"),
        }
        seen = {}
        for what, call in calls.items():
            try:
                call()
            except idmint.StoresNotInstalled as e:
                seen[what] = (str(e), e.kind, isinstance(e, RuntimeError))
        print(json.dumps(seen))
        """
    )
    seen = json.loads(out.strip().splitlines()[-1])
    assert len(seen) == 6, seen
    for what, (text, kind, runtime) in seen.items():
        assert text == f"{what} needs idmint's stores, which this package does not include: {INSTALL}"
        assert kind == "stores_not_installed" and runtime
        assert "s3cret" not in text


def test_slim_keeps_the_checks_that_need_no_store():
    # A lease option without `lease=`, a counter's name without a URL: refused as before.
    out = slim(
        """
        import idmint
        for call in (lambda: idmint.Snowflake(worker=1, datacenter=1, lease_ttl=5),
                     lambda: idmint.OrderNumbers("%Y%5S", name="shop")):
            try:
                call()
            except idmint.InvalidArgument as e:
                print(e.kind)
        """
    )
    assert out.split() == ["invalid_argument", "invalid_argument"]


def test_an_add_on_of_another_version_is_refused():
    with pytest.raises(ImportError, match=r"idmint 0\.1\.0 and its stores add-on idmint-stores 0\.2\.0 differ"):
        _platform.check_addon_version("0.2.0", installed="0.1.0")
    _platform.check_addon_version("0.1.0", installed="0.1.0")


def test_the_extra_pins_this_version():
    pyproject = (ROOT / "python/pyproject.toml").read_text()
    assert f'stores = ["idmint-stores=={idmint.__version__}"]' in pyproject
