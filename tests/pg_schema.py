#!/usr/bin/env python3
"""The extension's schema against the released ones in pg/sql/ (docs/database.md, "Updates").

    tests/pg_schema.py GENERATED SQL_DIR VERSION

GENERATED is the install script cargo-pgrx wrote for VERSION (idmint--VERSION.sql in the
server's extension directory). SQL_DIR holds the install script of every released version
(idmint--X.sql, as it was released) and the update scripts (idmint--X--Y.sql). The rule:

- VERSION released (SQL_DIR has idmint--VERSION.sql): the generated schema must be that one. A
  changed schema needs a new version, not a changed release.
- VERSION not released yet: SQL_DIR must hold an update script from the newest released
  version to it, so that `ALTER EXTENSION idmint UPDATE` reaches it from there.

Schemas are compared as sets of statements, without comments and whitespace: pgrx orders its
output by a dependency graph it does not keep stable, and names the source line of each function.
Exits 1 with what differs or is missing.
"""

import pathlib
import re
import sys


def statements(sql: str) -> set[str]:
    sql = re.sub(r"/\*.*?\*/", " ", sql, flags=re.S)
    sql = re.sub(r"--[^\n]*", " ", sql)
    return {" ".join(s.split()) for s in sql.split(";") if s.strip()}


def version_key(v: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.-]", v))


def main() -> int:
    generated, sql_dir, version = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
    released = sorted(
        (p.name[len("idmint--") : -len(".sql")] for p in sql_dir.glob("idmint--*.sql") if p.name.count("--") == 1),
        key=version_key,
    )
    if version in released:
        want = statements((sql_dir / f"idmint--{version}.sql").read_text())
        got = statements(generated.read_text())
        if want != got:
            for s in sorted(want - got):
                print(f"  released, no longer generated: {s}", file=sys.stderr)
            for s in sorted(got - want):
                print(f"  generated, not in the release: {s}", file=sys.stderr)
            print(
                f"pg_schema: the schema of {version} differs from its release ({sql_dir}/idmint--{version}.sql): "
                f"give the extension a new version and write {sql_dir}/idmint--{version}--NEW.sql",
                file=sys.stderr,
            )
            return 1
        print(f"pg_schema: {version} is released and its schema is unchanged ({len(got)} statements)")
        return 0
    older = [v for v in released if version_key(v) < version_key(version)]
    if not older:
        print(f"pg_schema: no released version before {version} in {sql_dir}", file=sys.stderr)
        return 1
    update = sql_dir / f"idmint--{older[-1]}--{version}.sql"
    if not update.exists():
        print(
            f"pg_schema: {version} is not released and {update} is missing: "
            f"ALTER EXTENSION idmint UPDATE could not reach it from {older[-1]}",
            file=sys.stderr,
        )
        return 1
    print(f"pg_schema: {version} is reached from {older[-1]} by {update.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
