"""Which platform this Python runs on and which one the installed wheel was built for: the words
of the error when the native module does not load (a wheel copied from a glibc machine to a musl
one, or a site-packages shared between systems)."""

from __future__ import annotations

import os
import sys


def detected() -> str:
    """This interpreter's platform, in the words of wheel tags: ``linux x86_64 glibc 2.36``,
    ``linux x86_64 musl``, ``win32 AMD64``, ``darwin arm64``."""
    # Imported here, for the error only: `platform` (and the `re` it imports) would add ~5 ms
    # to every `import idmint` (docs/bench/size.md, "Load time").
    import platform as _platform

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


def carried(dist: str = "idmint") -> list[str]:
    """The tags of the installed wheel of ``dist`` (its WHEEL file), e.g.
    ``cp310-abi3-musllinux_1_2_x86_64``."""
    try:
        from importlib import metadata

        text = metadata.distribution(dist).read_text("WHEEL") or ""
    except Exception:  # noqa: BLE001 - no distribution: a source checkout
        return []
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]


def load_error(
    cause: BaseException,
    tags: list[str] | None = None,
    here: str | None = None,
    dist: str = "idmint",
) -> ImportError:
    """The ImportError for a native module that did not load (``idmint``'s, or the stores
    add-on's, ``idmint-stores``): the platform detected, the one the installed wheel carries,
    what to do, and the loader's own message."""
    here = here if here is not None else detected()
    tags = carried(dist) if tags is None else tags
    built = ", ".join(tags) if tags else "unknown (not installed from a wheel)"
    return ImportError(
        f"idmint: the native module of {dist} does not load on this platform ({here}); the "
        f"installed wheel is built for {built}. Reinstall {dist} on this machine (`pip install "
        f"--force-reinstall {dist}` picks the wheel for it), or build it from source (`pip "
        f"install --no-binary {dist} {dist}`, needs Rust: https://rustup.rs). The loader said: "
        f"{cause}"
    )


def check_addon_version(addon: str, installed: str | None = None) -> None:
    """Refuses a stores add-on of another version than this package: its native module is the
    whole API, which the Python half of this package must match. ``installed`` is this
    package's version (default: read from its metadata; unknown in a source checkout, which is
    not checked)."""
    if installed is None:
        try:
            from importlib import metadata

            installed = metadata.version("idmint")
        except Exception:  # noqa: BLE001 - not installed from a distribution
            return
    if addon != installed:
        raise ImportError(
            f"idmint {installed} and its stores add-on idmint-stores {addon} differ: install the "
            f"same version of both (`pip install 'idmint[stores]=={installed}'`)"
        )
