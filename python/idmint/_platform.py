"""Which platform this Python runs on and which one the installed wheel was built for: the words
of the error when the native module does not load (a wheel copied from a glibc machine to a musl
one, or a site-packages shared between systems)."""

from __future__ import annotations

import os
import platform as _platform
import sys


def detected() -> str:
    """This interpreter's platform, in the words of wheel tags: ``linux x86_64 glibc 2.36``,
    ``linux x86_64 musl``, ``win32 AMD64``, ``darwin arm64``."""
    machine = _platform.machine()
    if sys.platform.startswith("linux"):
        return f"linux {machine} {libc()}"
    return f"{sys.platform} {machine}"


def libc() -> str:
    """``glibc <version>`` or ``musl`` (glibc answers CS_GNU_LIBC_VERSION, musl does not)."""
    try:
        gnu = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):
        gnu = None
    return gnu if gnu else "musl"


def carried() -> list[str]:
    """The tags of the installed wheel (its WHEEL file), e.g. ``cp310-abi3-musllinux_1_2_x86_64``."""
    try:
        from importlib import metadata

        text = metadata.distribution("idmint").read_text("WHEEL") or ""
    except Exception:  # noqa: BLE001 - no distribution: a source checkout
        return []
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]


def load_error(cause: BaseException, tags: list[str] | None = None, here: str | None = None) -> ImportError:
    """The ImportError for a native module that did not load: the platform detected, the one the
    installed wheel carries, what to do, and the loader's own message."""
    here = here if here is not None else detected()
    tags = carried() if tags is None else tags
    built = ", ".join(tags) if tags else "unknown (not installed from a wheel)"
    return ImportError(
        f"idmint: its native module does not load on this platform ({here}); the installed wheel "
        f"is built for {built}. Reinstall idmint on this machine (`pip install --force-reinstall "
        f"idmint` picks the wheel for it), or build it from source (`pip install --no-binary "
        f"idmint idmint`, needs Rust: https://rustup.rs). The loader said: {cause}"
    )
