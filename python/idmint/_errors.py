"""The exceptions of idmint: one class per error kind of the Rust core.

Every exception the core raises is an :class:`Error` carrying the core's message (which names
the bad value and the valid range) and a stable ``.kind`` string, the same string the Node and
JVM packages use. The classes are built from the core's table of kinds: each is named after its
kind (``lease_lost`` -> :class:`LeaseLost`) and also subclasses a builtin by the kind's family,
so code that catches ``ValueError`` around parsing keeps working. ``_errors.pyi`` lists them for
type checkers.
"""

from __future__ import annotations

from ._idmint import _ERROR_TABLE


class Error(Exception):
    """Base class of every idmint error.

    ``kind`` is the core's stable name for the error (``"invalid_id"``, ...); ``message`` is
    its text, also ``str(err)``.
    """

    kind: str = "error"

    def __init__(self, message: str = "", *, kind: str | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


#: The builtin each family of kinds (the core's ``ErrorFamily``) also subclasses; a family this
#: module does not know yet (a newer core) subclasses only :class:`Error`.
FAMILY_BASES: dict[str, tuple[type[Exception], ...]] = {
    "invalid_value": (ValueError,),
    "out_of_range": (ValueError,),
    "state": (RuntimeError,),
    "store": (ConnectionError,),
    "lookup": (LookupError,),
}


def _define(kind: str, name: str, family: str, doc: str) -> type[Error]:
    bases = (Error, *FAMILY_BASES.get(family, ()))
    cls = type(name, bases, {"__doc__": doc, "__module__": __name__, "kind": kind})
    globals()[name] = cls
    return cls


#: Each error kind of the core to its class; the native module looks classes up here.
BY_KIND: dict[str, type[Error]] = {row[0]: _define(*row) for row in _ERROR_TABLE}



class LayoutWarning(UserWarning):
    """A snowflake generator started with less than five years left in its layout (the core's
    ``Layout::lifetime_warning``): plan its successor (``idmint plan``, ``idmint layouts
    check-migration``). Its health turns ``degraded`` a year before the end."""


__all__ = ["Error", "LayoutWarning", *(cls.__name__ for cls in BY_KIND.values())]
