"""The SQLite backend of :class:`memory.MemoryStore`: one connection on one thread
(memory/README.md, *SQLite: one file, one thread*)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import ParamSpec, TypeVar

from sqlite_utils import Database
from sqlite_utils.utils import sqlite3 as engine

from memory.config import MemoryConfig
from memory.models import StoreClosed, StoreError, StoreUnavailable
from memory.sql.session import Verb
from memory.sqlite import fts
from memory.sqlite.migrations import migrations
from memory.sqlite.session import SQLiteSession, run_to_end
from memory.store import MemoryStore

P = ParamSpec("P")
T = TypeVar("T")

MIN_SQLITE = (3, 43, 0)
"""FTS5's ``secure-delete`` is new in 3.43."""

_ERRORS = (sqlite3.Error, engine.Error)
"""The errors of whichever library runs the database (the same class when it is Python's)."""


def connect(path: Path) -> Database:
    """Open (creating if needed) the database file, migrated to the current schema;
    ``secure_delete`` overwrites deleted content with zeros, which forgetting relies on."""
    if engine.sqlite_version_info < MIN_SQLITE:
        needed = ".".join(map(str, MIN_SQLITE))
        raise StoreUnavailable(
            f"SQLite {engine.sqlite_version} is too old: the bot needs {needed} or later"
            " (install pysqlite3-binary, or use a Python built with a newer SQLite)"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    db = Database(path, execute_plugins=False)
    for pragma in ("busy_timeout = 5000", "foreign_keys = ON", "secure_delete = ON"):
        db.execute(f"PRAGMA {pragma}")
    db.enable_wal()
    db.execute("PRAGMA synchronous = NORMAL")
    migrations.apply(db)
    return db


class SQLiteMemoryStore(MemoryStore):
    def __init__(self, executor: ThreadPoolExecutor, db: Database, config: MemoryConfig) -> None:
        super().__init__(
            config, filing=lambda limit: self._call(partial(fts.file_waiting, limit=limit))
        )
        self._executor = executor
        self._db = db
        self._closed = False

    @classmethod
    async def open(cls, path: Path | str, config: MemoryConfig) -> SQLiteMemoryStore:
        """Open (creating and migrating if needed) the database at ``path``, its index aligned
        with whether ``config`` shares channel successes, and file what votes left queued."""
        path = Path(path)
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-db")
        try:
            db = await asyncio.get_running_loop().run_in_executor(executor, connect, path)
        except BaseException as error:
            executor.shutdown(wait=False)
            if isinstance(error, (*_ERRORS, OSError)):
                raise StoreUnavailable(f"cannot open the database at {path}: {error}") from error
            raise
        store = cls(executor, db, config)
        share = config.share_channel_successes
        await store._call(lambda db: fts.align_channel_partitions(db, share=share))
        store._votes.file_soon()
        return store

    async def _call(self, work: Callable[[Database], T]) -> T:
        """Run ``work`` on the database thread; SQLite's errors become :class:`StoreError`."""
        if self._closed:
            raise StoreClosed("the memory store is closed")
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, work, self._db)
        except _ERRORS as error:
            raise StoreError(f"the database failed ({type(error).__name__}: {error})") from error

    async def _run(self, verb: Verb[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._call(lambda db: run_to_end(verb(SQLiteSession(db), *args, **kwargs)))

    async def close(self) -> None:
        """Empty the write-ahead log, close the connection and stop the thread; idempotent."""
        await self.settle()
        if self._closed:
            return
        self._closed = True
        try:
            await asyncio.get_running_loop().run_in_executor(self._executor, self._checkpoint)
        finally:
            self._executor.shutdown(wait=True)

    def _checkpoint(self) -> None:
        with closing(self._db):
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    async def tidy_index(self) -> bool:
        return await self._call(fts.tidy_index)

    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        """Always True: a SQLite file is served by one bot process."""
        return True
