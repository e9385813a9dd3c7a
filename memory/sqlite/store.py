"""The SQLite backend of :class:`memory.MemoryStore`.

Each verb runs a function of :mod:`memory.sql` on the store's database thread (through
:mod:`memory.backend` and :func:`memory.sqlite.session.shared`); what SQLite does its own
way is in its session, recall and full-text index.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from sqlite_utils import Database

from memory.backend import BackendModules, BackendStore
from memory.config import MemoryConfig
from memory.sqlite import (
    fts,
    recall,
)
from memory.sqlite.connection import DatabaseThread
from memory.sqlite.fts import align_channel_partitions, file_waiting
from memory.sqlite.session import shared

__all__ = ["SQLiteMemoryStore"]

_MODULES = BackendModules.of(recall, shared)


def _checkpoint(db: Database) -> None:
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _ping(db: Database) -> None:
    db.execute("SELECT 1 FROM episodes LIMIT 1").fetchall()


class SQLiteMemoryStore(BackendStore):
    """Memory in one SQLite file (WAL mode), used from asyncio through one thread."""

    one_process = True

    def __init__(self, thread: DatabaseThread, config: MemoryConfig) -> None:
        super().__init__(thread, _MODULES, config, filing=file_waiting)
        self._thread = thread

    @classmethod
    async def open(cls, path: Path | str, config: MemoryConfig) -> SQLiteMemoryStore:
        """Open (creating and migrating if needed) the database at ``path``, its index
        aligned with whether ``config`` shares channel successes, and file what a vote
        left in the index queue (see :mod:`memory.sql.vote_queue`)."""
        thread = await DatabaseThread.open(Path(path))
        share = config.share_channel_successes
        await thread.run(lambda db: align_channel_partitions(db, share=share))
        store = cls(thread, config)
        store._votes.file_soon()
        return store

    async def close(self) -> None:
        await self.settle()
        await self._thread.close(_checkpoint)

    async def ping(self) -> None:
        await self._thread.run(_ping)

    async def tidy_index(self) -> bool:
        """One step of merging the full-text index's segments (see
        :func:`memory.sqlite.fts.tidy_index`)."""
        return await self._thread.run(fts.tidy_index)

    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        """Always True: a SQLite file is served by one bot process."""
        return True
