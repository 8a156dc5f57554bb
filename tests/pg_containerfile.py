#!/usr/bin/env python3
"""pg/Containerfile checked without its base image, which cannot be pulled here.

    tests/pg_containerfile.py CONTAINERFILE CONTEXT VERSION MAJOR...

For each MAJOR, with the file's build arguments set as `--build-arg PG_MAJOR=MAJOR` would set
them: the base image is the official postgres image of that major; every file COPY takes from
the build context (CONTEXT, target/packages/pg) is there; IDMINT_VERSION defaults to VERSION;
the .deb depends on that major's server package, and the glibc it needs is one the official
image's Debian release has (trixie, 2.41: the default tags of 13 to 18). Exits 1 naming what
fails.
"""

import re
import subprocess
import sys
from pathlib import Path

IMAGE_GLIBC = (2, 41)  # Debian 13 (trixie): the official postgres images' default base


def instructions(text: str) -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", text)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def expand(s: str, args: dict[str, str]) -> str:
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args[m.group(1) or m.group(2)], s)


def main() -> int:
    containerfile, context, version = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    majors = sys.argv[4:]
    steps = instructions(containerfile.read_text())
    failures = []
    defaults = {}
    for word, rest in steps:
        if word == "ARG":
            name, _, value = rest.partition("=")
            defaults.setdefault(name, value)
    if defaults.get("IDMINT_VERSION") != version:
        failures.append(f"IDMINT_VERSION defaults to {defaults.get('IDMINT_VERSION')}, the workspace is {version}")
    for major in majors:
        args = {**defaults, "PG_MAJOR": major}
        froms = [expand(rest, args) for word, rest in steps if word == "FROM"]
        if froms != [f"docker.io/library/postgres:{major}"]:
            failures.append(f"{major}: FROM {froms}, not the official postgres:{major}")
        for word, rest in steps:
            if word != "COPY":
                continue
            *sources, _dest = expand(rest, args).split()
            for src in sources:
                if not (context / src).is_file():
                    failures.append(f"{major}: COPY {src}: not in the build context {context}")
                    continue
                if not src.endswith(".deb"):
                    continue
                depends = subprocess.run(
                    ["dpkg-deb", "-f", str(context / src), "Depends"], capture_output=True, text=True, check=True
                ).stdout
                if not re.search(rf"(^|, )postgresql-{major}(,|$| )", depends.strip()):
                    failures.append(f"{major}: {src} does not depend on postgresql-{major}: {depends.strip()}")
                libc = re.search(r"libc6 \(>= ([0-9]+)\.([0-9]+)\)", depends)
                if not libc or (int(libc.group(1)), int(libc.group(2))) > IMAGE_GLIBC:
                    failures.append(f"{major}: {src} needs {libc and libc.group(0)}, the image has glibc 2.41")
                else:
                    print(f"{major}: FROM postgres:{major}, COPY {src} (Depends: {depends.strip()})")
    for f in failures:
        print(f"pg_containerfile: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
