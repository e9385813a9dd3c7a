"""The PostgreSQL backend of :class:`memory.MemoryStore`.

Each verb runs a function of :mod:`memory.sql` in one transaction on a pooled connection
(:meth:`Database.run`); what PostgreSQL does its own way is in its session, recall and
full-text index. Any number of processes may share the database.
"""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import ParamSpec, TypeVar

from memory import models
from memory.config import MemoryConfig
from memory.postgres import jobs, recall
from memory.postgres.connection import Database
from memory.postgres.session import Session
from memory.sql.session import Verb
from memory.store import MemoryStore

__all__ = ["PostgresMemoryStore"]

P = ParamSpec("P")
T = TypeVar("T")


async def _ping(db: Session) -> None:
    await db.rows("SELECT 1 FROM episodes LIMIT 1")


class PostgresMemoryStore(MemoryStore):
    """Memory in a PostgreSQL database, shared by every bot process pointed at it."""

    def __init__(self, database: Database, config: MemoryConfig) -> None:
        super().__init__(config)
        self._db = database

    @classmethod
    async def open(cls, url: str, config: MemoryConfig) -> PostgresMemoryStore:
        """Connect to the database at ``url`` (a libpq URL), migrating it if needed."""
        return cls(await Database.open(url), config)

    async def _run(self, verb: Verb[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._db.run(lambda session: verb(session, *args, **kwargs))

    async def recall(self, request: models.RecallRequest) -> list[models.RecalledEpisode]:
        return await self._db.run(partial(recall.recall, request=request, config=self._config))

    async def close(self) -> None:
        await self.settle()
        await self._db.close()

    async def ping(self) -> None:
        await self._db.run(_ping)

    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        return await self._db.run(partial(jobs.take_turn, job=job, every=every))
