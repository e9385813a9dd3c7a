"""One SQLite connection, configured for a long-running bot, on one dedicated thread.

sqlite-utils is synchronous, so every database call runs on a single worker thread that
owns the connection; the store's async methods await it. One thread also serialises the
writes, so concurrent votes queue up instead of failing with ``database is locked``.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from sqlite_utils import Database

from memory.errors import StoreClosed, StoreError, StoreUnavailable
from memory.sqlite.migrations import apply_migrations

__all__ = ["DatabaseThread", "connect"]

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000


def connect(path: Path) -> Database:
    """Open (creating if needed) the database file, migrated to the current schema.

    ``secure_delete`` makes SQLite overwrite deleted content with zeros, which forgetting
    a person relies on.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    db = Database(path, execute_plugins=False)
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("PRAGMA secure_delete = ON")
    db.enable_wal()
    db.execute("PRAGMA synchronous = NORMAL")
    apply_migrations(db)
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
        except (sqlite3.Error, OSError) as error:
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
        except sqlite3.Error as error:
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
