"""The SQLite backend of :class:`memory.MemoryStore`: each verb run to its end on the
store's database thread (:func:`memory.sqlite.session.run_to_end`)."""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import ParamSpec, TypeVar

from sqlite_utils import Database

from memory.config import MemoryConfig
from memory.sql.session import Verb
from memory.sqlite import fts
from memory.sqlite.connection import DatabaseThread
from memory.sqlite.session import SQLiteSession, run_to_end
from memory.store import MemoryStore

P = ParamSpec("P")
T = TypeVar("T")


def _checkpoint(db: Database) -> None:
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


class SQLiteMemoryStore(MemoryStore):
    """Memory in one SQLite file (WAL mode), used from asyncio through one thread."""

    one_process = True

    def __init__(self, thread: DatabaseThread, config: MemoryConfig) -> None:
        super().__init__(config, filing=self._file_waiting)
        self._thread = thread

    @classmethod
    async def open(cls, path: Path | str, config: MemoryConfig) -> SQLiteMemoryStore:
        """Open (creating and migrating if needed) the database at ``path``, its index
        aligned with whether ``config`` shares channel successes, and file what a vote
        left in the index queue (see :mod:`memory.sql.vote_queue`)."""
        thread = await DatabaseThread.open(Path(path))
        share = config.share_channel_successes
        await thread.run(lambda db: fts.align_channel_partitions(db, share=share))
        store = cls(thread, config)
        store._votes.file_soon()
        return store

    async def _run(self, verb: Verb[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._thread.run(
            lambda db: run_to_end(verb(SQLiteSession(db), *args, **kwargs))
        )

    async def _file_waiting(self, limit: int) -> int:
        return await self._thread.run(partial(fts.file_waiting, limit=limit))

    async def close(self) -> None:
        await self.settle()
        await self._thread.close(_checkpoint)

    async def tidy_index(self) -> bool:
        return await self._thread.run(fts.tidy_index)

    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        """Always True: a SQLite file is served by one bot process."""
        return True
