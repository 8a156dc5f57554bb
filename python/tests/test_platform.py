"""The words of the error when the native module does not load (idmint/_platform.py): the
platform detected and the one the installed wheel carries. tests/packages.sh loads a musl wheel
in a glibc Python for the real thing."""

import sys

from idmint import _platform


def test_detected_names_os_arch_and_libc():
    here = _platform.detected()
    assert here.startswith(sys.platform if not sys.platform.startswith("linux") else "linux ")
    if sys.platform.startswith("linux"):
        assert here.split()[2] in ("glibc", "musl"), here


def test_load_error_names_both_platforms_and_the_cause():
    err = _platform.load_error(
        OSError("Error relocating _idmint.abi3.so: __cxa_thread_atexit_impl: symbol not found"),
        tags=["cp310-abi3-manylinux_2_17_x86_64", "cp310-abi3-manylinux2014_x86_64"],
        here="linux x86_64 musl",
    )
    assert isinstance(err, ImportError)
    text = str(err)
    assert "on this platform (linux x86_64 musl)" in text, text
    assert "built for cp310-abi3-manylinux_2_17_x86_64, cp310-abi3-manylinux2014_x86_64" in text, text
    assert "symbol not found" in text, text
    assert "unknown (not installed from a wheel)" in str(_platform.load_error(OSError("x"), tags=[], here="x"))
