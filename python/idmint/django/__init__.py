"""Django: model fields that mint snowflake, segment and ObjectId keys on insert
(:mod:`idmint.django.fields`), with the clients configured in settings::

    INSTALLED_APPS = [..., "idmint.django"]
    IDMINT = {
        "SEGMENTS": "postgres://app@db/app",   # the segment store, or {"url": ..., **options}
        "SNOWFLAKE": {"lease": "postgres://app@db/app", "lease_range": (0, 1023)},
    }

One segment client and one snowflake generator per process, shared by every model and
thread (``idmint._clients``): opened on first use, closed when the process exits (the lease
is released), reopened after a change of ``settings.IDMINT`` (tests' ``override_settings``).
A pre-fork server's worker opens its own on its first insert.
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

from .._clients import Clients

__all__ = ["clients", "reset"]

_lock = threading.Lock()
_clients: Clients | None = None


def clients() -> Clients:
    """The process's clients, made from ``settings.IDMINT`` on first use."""
    global _clients
    made = _clients
    if made is not None:  # every insert comes here: no lock once made
        return made
    with _lock:
        if _clients is None:
            _clients = _from_settings()
        return _clients


def reset(**_signal: Any) -> None:
    """Closes the clients; the next insert makes new ones from the settings then."""
    global _clients
    with _lock:
        old, _clients = _clients, None
    if old is not None:
        old.close()


def _from_settings() -> Clients:
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured

    conf = getattr(settings, "IDMINT", {})
    return Clients(
        segments=conf.get("SEGMENTS"),
        snowflake=conf.get("SNOWFLAKE"),
        meter_provider=conf.get("METER_PROVIDER"),
        unconfigured=lambda: ImproperlyConfigured(
            'SegmentField needs settings.IDMINT["SEGMENTS"]: the segment store\'s URL'
        ),
    )


# Django has no shutdown signal: the clients close when the interpreter exits (a gunicorn
# worker's too), so a leased node value is released rather than left to expire.
atexit.register(reset)
