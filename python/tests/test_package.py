import importlib.metadata
from pathlib import Path

import pytest

import idmint


def test_public_names_exist():
    for name in idmint.__all__:
        assert hasattr(idmint, name), name
    assert set(idmint.PRESETS) == {"twitter", "sonyflake", "redis-lua", "baidu", "leaf"}


def test_version_matches_distribution():
    assert idmint.__version__ == importlib.metadata.version("idmint")


def test_typed_package_ships_stubs():
    pkg = Path(idmint.__file__).parent
    assert (pkg / "py.typed").exists()
    stub = (pkg / "_idmint.pyi").read_text()
    for cls in ("class Snowflake", "class ObjectId", "class Layout", "class Parts", "def parse("):
        assert cls in stub
    for name in idmint.__all__:
        if name[0].islower() and not name.startswith("_"):
            assert f"def {name}(" in stub, name
        elif name in vars(idmint._idmint) and isinstance(getattr(idmint, name), type):
            assert f"class {name}:" in stub, name


def test_classes_report_the_public_module():
    for cls in (
        idmint.Snowflake,
        idmint.ObjectId,
        idmint.Layout,
        idmint.Parts,
        idmint.Stats,
        idmint.Key,
        idmint.Keyring,
        idmint.Uuid7,
        idmint.Uuid7Generator,
        idmint.Template,
        idmint.TemplateParts,
        idmint.MemoryDailyCounter,
        idmint.OrderNumbers,
    ):
        assert cls.__module__ == "idmint"


def test_module_docstring_example():
    import doctest

    result = doctest.testmod(idmint, verbose=False)
    assert result.attempted > 0 and result.failed == 0


def test_readme_examples_run(tmp_path, monkeypatch):
    """The Python blocks of python/README.md (the PyPI page) run as written, in order (in a
    temporary directory: an example opens ./orders.db). The Redis examples (they read
    ``REDIS_URL``) run against the test Redis; without one they are left out, or fail when
    ``IDMINT_REQUIRE_SERVERS=1``."""
    import os
    import re

    redis = os.environ.get("IDMINT_TEST_REDIS_URL")
    if redis:
        monkeypatch.setenv("REDIS_URL", redis)
    elif os.environ.get("IDMINT_REQUIRE_SERVERS") == "1":
        pytest.fail("IDMINT_TEST_REDIS_URL is not set and IDMINT_REQUIRE_SERVERS=1")

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert len(blocks) >= 2
    namespace: dict = {}
    monkeypatch.chdir(tmp_path)
    ran_redis = 0
    for block in blocks:
        if "REDIS_URL" in block:
            if not redis:
                continue
            ran_redis += 1
        exec(compile(block, "README.md", "exec"), namespace)
    assert ran_redis == (2 if redis else 0)
    assert namespace["p"].worker == 1


def test_readme_exception_table_lists_every_kind():
    import re

    from idmint._idmint import _ERROR_TABLE

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `(\w+)` \| `(\w+)` \| `(\w+)` \|$", readme, flags=re.M))
    for kind, name, _family, _doc in _ERROR_TABLE:
        base = getattr(idmint, name).__mro__[2].__name__
        assert (name, kind, base) in rows, f"README's exception table lacks {name} ({kind}, {base})"
