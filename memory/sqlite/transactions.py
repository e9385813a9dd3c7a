"""Write transactions on the store's SQLite connection."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlite_utils import Database


@contextmanager
def transaction(db: Database, name: str = "nested") -> Iterator[None]:
    """A write transaction, or a savepoint ``name`` inside the caller's; undone on error.

    The outermost one begins IMMEDIATE, taking the write lock before its first read. A
    deferred one (sqlite-utils' ``atomic()``) that reads, then writes after another
    connection to the file committed (the admin CLI, a second process), fails at once with
    "database is locked": SQLite cannot wait for it without risking a deadlock. Savepoints
    keep a fixed name: ``atomic()`` names each anew, so SQLite compiles its statements
    each time, and a hot path (a vote) reuses them."""
    if not db.conn.in_transaction:
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            db.conn.execute("COMMIT")
        except BaseException:
            db.conn.rollback()  # a no-op when the error already ended the transaction
            raise
        return
    db.conn.execute(f"SAVEPOINT {name}")
    try:
        yield
    except BaseException:
        if db.conn.in_transaction:  # some errors end the whole transaction
            db.conn.execute(f"ROLLBACK TO {name}")
            db.conn.execute(f"RELEASE {name}")
        raise
    db.conn.execute(f"RELEASE {name}")
