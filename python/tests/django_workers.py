"""A pre-fork Django server's life, for test_frameworks.py: run in the test project's directory
(DJANGO_SETTINGS_MODULE and DATABASE_URL set) as ``python django_workers.py WORKERS ROWS``.

The parent sets Django up and inserts through every field (so the process's idmint clients are
open and have minted), closes its database connection as a pre-fork master does, then forks the
workers; each inserts ROWS rows of every model, half with ``save()`` and half with
``bulk_create()``, tagged with its number, and exits normally (atexit handlers run). The parent
waits for them and exits with the first failure. The keys are checked by the test, in the
database.
"""

from __future__ import annotations

import os
import sys
import traceback

import django


def work(worker: int, rows: int) -> None:
    from shop.models import Document, Event, Order

    name = f"w{worker}"
    half = rows // 2
    for _ in range(half):
        Order.objects.create(item=name)
        Event.objects.create(name=name)
        Document.objects.create(title=name)
    Order.objects.bulk_create([Order(item=name) for _ in range(rows - half)])
    Event.objects.bulk_create([Event(name=name) for _ in range(rows - half)])
    Document.objects.bulk_create([Document(title=name) for _ in range(rows - half)])


def check_object_id_field() -> None:
    """ObjectIdField reads what idmint.ObjectId reads; its refusal is a ValidationError with the
    core's message."""
    import idmint
    from django.core.exceptions import ValidationError
    from idmint.django.fields import ObjectIdField

    field = ObjectIdField()
    oid = idmint.ObjectId()
    assert field.to_python(str(oid).upper()) == oid and field.get_prep_value(oid) == str(oid)
    try:
        idmint.ObjectId("zz")
    except idmint.InvalidObjectId as e:
        core = str(e)
    try:
        field.to_python("zz")
    except ValidationError as e:
        assert e.messages == [core], (e.messages, core)
    else:
        raise AssertionError("ObjectIdField took 'zz'")


def main() -> int:
    workers, rows = int(sys.argv[1]), int(sys.argv[2])
    django.setup()
    from django.db import connections
    from shop.use import create_some

    print(create_some(), flush=True)
    check_object_id_field()
    connections.close_all()
    pids = []
    for i in range(workers):
        pid = os.fork()
        if pid == 0:
            # A worker ends as a gunicorn worker does, through sys.exit: the atexit handler of
            # idmint.django closes its clients (its lease is released).
            try:
                work(i, rows)
            except BaseException:
                traceback.print_exc()
                return 1
            finally:
                connections.close_all()
            return 0
        pids.append(pid)
    failed = 0
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        failed = failed or os.waitstatus_to_exitcode(status)
    return failed


if __name__ == "__main__":
    sys.exit(main())
