"""One SQLite connection, configured for a long-running bot, on one dedicated thread: the
store's async methods await it, and concurrent writes queue up instead of failing with
``database is locked``. The library is sqlite-utils' (``pysqlite3``, a current SQLite, when
installed, else Python's own), and must be :data:`MIN_SQLITE` or later."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from sqlite_utils import Database
from sqlite_utils.utils import sqlite3 as engine

from memory.errors import StoreClosed, StoreError, StoreUnavailable
from memory.sqlite.migrations import migrations

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000
MIN_SQLITE = (3, 43, 0)
"""Contentless full-text tables that rows can be deleted from (``contentless_delete``) and
FTS5's ``secure-delete`` are both new in 3.43."""

_ERRORS = (sqlite3.Error, engine.Error)
"""The errors of whichever library runs the database (the same class when it is Python's)."""


def check_version() -> None:
    if engine.sqlite_version_info < MIN_SQLITE:
        needed = ".".join(map(str, MIN_SQLITE))
        raise StoreUnavailable(
            f"SQLite {engine.sqlite_version} is too old: the bot needs {needed} or later"
            " (install pysqlite3-binary, or use a Python built with a newer SQLite)"
        )


def connect(path: Path) -> Database:
    """Open (creating if needed) the database file, migrated to the current schema;
    ``secure_delete`` overwrites deleted content with zeros, which forgetting relies on."""
    check_version()
    path.parent.mkdir(parents=True, exist_ok=True)
    db = Database(path, execute_plugins=False)
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("PRAGMA secure_delete = ON")
    db.enable_wal()
    db.execute("PRAGMA synchronous = NORMAL")
    migrations.apply(db)
    return db


class DatabaseThread:
    """Runs functions of the database, one at a time, on the thread that owns it."""

    def __init__(self, executor: ThreadPoolExecutor, db: Database) -> None:
        self._executor = executor
        self._db = db
        self._closed = False

    @classmethod
    async def open(cls, path: Path) -> DatabaseThread:
        """Connect on a new thread; :class:`StoreUnavailable` when the file can't be used."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-db")
        try:
            db = await asyncio.get_running_loop().run_in_executor(executor, connect, path)
        except (*_ERRORS, OSError) as error:
            executor.shutdown(wait=False)
            raise StoreUnavailable(f"cannot open the database at {path}: {error}") from error
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(executor, db)

    async def run(self, work: Callable[[Database], T]) -> T:
        """Run ``work`` on the database thread; SQLite's errors become :class:`StoreError`."""
        if self._closed:
            raise StoreClosed("the memory store is closed")
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, work, self._db)
        except _ERRORS as error:
            raise StoreError(f"the database failed ({type(error).__name__}: {error})") from error

    async def close(self, last: Callable[[Database], None]) -> None:
        """Run ``last``, close the connection and stop the thread. Safe to call twice."""
        if self._closed:
            return
        self._closed = True

        def finish(db: Database) -> None:
            try:
                last(db)
            finally:
                db.close()

        try:
            await asyncio.get_running_loop().run_in_executor(self._executor, finish, self._db)
        finally:
            self._executor.shutdown(wait=True)
