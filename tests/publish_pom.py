#!/usr/bin/env python3
"""Maven Central's rules for a pom (the Central Portal refuses a deployment without them):
groupId, artifactId, version, name, description, url, licenses (name and url each),
developers, and scm (url and connection). Standard library only.

    python3 tests/publish_pom.py PATH.pom [...]
"""

import sys
import xml.etree.ElementTree as ET

NS = {"m": "http://maven.apache.org/POM/4.0.0"}
REQUIRED = ["groupId", "artifactId", "version", "name", "description", "url",
            "licenses/license/name", "licenses/license/url", "developers/developer",
            "scm/url", "scm/connection"]


def missing(path):
    root = ET.parse(path).getroot()
    gone = []
    for req in REQUIRED:
        xpath = "/".join(f"m:{p}" for p in req.split("/"))
        found = root.findall(xpath, NS)
        # groupId and version may come from the parent.
        if not found and req in ("groupId", "version"):
            found = root.findall(f"m:parent/m:{req}", NS)
        if not found or not any((e.text or "").strip() or len(e) for e in found):
            gone.append(req)
    return gone


def main(paths):
    bad = 0
    for path in paths:
        gone = missing(path)
        if gone:
            print(f"{path}: Central needs {', '.join(gone)}", file=sys.stderr)
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if sys.argv[1:] else __doc__)
