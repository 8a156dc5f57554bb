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
