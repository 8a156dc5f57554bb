import json
from pathlib import Path

import pytest

VECTORS = Path(__file__).resolve().parents[2] / "tests" / "vectors"


def load(name: str) -> dict:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


SNOWFLAKE = load("snowflake.json")
OBJECTID = load("objectid.json")
SHORTID = load("shortid.json")
OBFUSCATE = load("obfuscate.json")
UUID7 = load("uuid7.json")
TEMPLATE = load("template.json")


@pytest.fixture
def twitter():
    import idmint

    return idmint.Layout("twitter")


def server_url(name: str) -> str:
    """The URL of a test server from tests/run.sh (``IDMINT_TEST_<NAME>_URL``): a skip when it
    is not set, a failure when ``IDMINT_REQUIRE_SERVERS=1`` (CI) says it must be."""
    import os

    url = os.environ.get(f"IDMINT_TEST_{name.upper()}_URL")
    if url:
        return url
    if os.environ.get("IDMINT_REQUIRE_SERVERS") == "1":
        pytest.fail(f"IDMINT_TEST_{name.upper()}_URL is not set and IDMINT_REQUIRE_SERVERS=1")
    pytest.skip(f"no {name} server (IDMINT_TEST_{name.upper()}_URL)")


def unique_tag(prefix: str = "t") -> str:
    """A tag no earlier run used (the servers keep their data between runs)."""
    import uuid

    return f"{prefix}-{uuid.uuid4().hex[:12]}"
