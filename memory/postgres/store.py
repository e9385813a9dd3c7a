"""The PostgreSQL backend of :class:`memory.MemoryStore`.

Each verb runs a function of :mod:`memory.sql` in one transaction on a pooled connection
(:meth:`Database.run`, through :mod:`memory.backend`); what PostgreSQL does its own way is
in its session, recall and full-text index. Any number of processes may share the database.
"""

from __future__ import annotations

from datetime import timedelta

from memory.backend import BackendModules, BackendStore
from memory.config import MemoryConfig
from memory.postgres import (
    jobs,
    recall,
)
from memory.postgres.connection import Database
from memory.postgres.session import Session

__all__ = ["PostgresMemoryStore"]

_MODULES = BackendModules.of(recall)


async def _ping(db: Session) -> None:
    await db.rows("SELECT 1 FROM episodes LIMIT 1")


class PostgresMemoryStore(BackendStore):
    """Memory in a PostgreSQL database, shared by every bot process pointed at it."""

    def __init__(self, database: Database, config: MemoryConfig) -> None:
        super().__init__(database, _MODULES, config)
        self._db = database

    @classmethod
    async def open(cls, url: str, config: MemoryConfig) -> PostgresMemoryStore:
        """Connect to the database at ``url`` (a libpq URL), migrating it if needed."""
        return cls(await Database.open(url), config)

    async def close(self) -> None:
        await self.settle()
        await self._db.close()

    async def ping(self) -> None:
        await self._db.run(_ping)

    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        return await self._call(jobs.take_turn, job=job, every=every)
