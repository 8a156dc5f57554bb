"""``idmint/_errors.pyi``, the type stub of the exception classes, is generated from the core's
table of error kinds; this test fails when it is out of date.

Regenerate it after adding a kind to the core (with the package installed)::

    python python/tests/test_error_stubs.py
"""

import textwrap
from pathlib import Path

from idmint import _errors
from idmint._idmint import _ERROR_TABLE

HEADER = '''"""Type stubs of ``idmint._errors``, generated from the core's table of error kinds by
``python/tests/test_error_stubs.py``: run it to regenerate, do not edit."""

__all__ = [
{names}]

class Error(Exception):
    """Base class of every idmint error.

    ``kind`` is the core's stable name for the error (``"invalid_id"``, ...); ``message`` is
    its text, also ``str(err)``.
    """

    kind: str
    def __init__(self, message: str = "", *, kind: str | None = None) -> None: ...
    @property
    def message(self) -> str: ...

FAMILY_BASES: dict[str, tuple[type[Exception], ...]]
BY_KIND: dict[str, type[Error]]
'''


def render() -> str:
    """The text of ``_errors.pyi`` for the core this package was built with."""
    names = "".join(f'    "{name}",\n' for name in _errors.__all__)
    out = [HEADER.format(names=names)]
    for kind, name, family, doc in _ERROR_TABLE:
        bases = ", ".join(["Error", *(b.__name__ for b in _errors.FAMILY_BASES.get(family, ()))])
        wrapped = textwrap.fill(doc, width=95, initial_indent="", subsequent_indent="    ")
        out.append(f'\nclass {name}({bases}):\n    """{wrapped}"""\n')
    return "".join(out)


def stub_path() -> Path:
    """The source tree's stub, next to this file (the installed copy is built from it)."""
    return Path(__file__).resolve().parents[1] / "idmint" / "_errors.pyi"


def test_errors_stub_is_generated_from_the_core_table():
    assert stub_path().read_text(encoding="utf-8") == render(), (
        "idmint/_errors.pyi is out of date: run `python python/tests/test_error_stubs.py`"
    )


if __name__ == "__main__":
    stub_path().write_text(render(), encoding="utf-8")
    print(f"wrote {stub_path()}")
