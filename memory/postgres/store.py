"""The PostgreSQL backend of :class:`memory.MemoryStore`: each verb in one transaction on
a pooled connection (:meth:`Database.run`); any number of processes share the database."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from functools import partial
from typing import ParamSpec, TypeVar

from memory import models
from memory.config import MemoryConfig
from memory.postgres import imports
from memory.postgres.connection import Database
from memory.postgres.session import Session
from memory.sql.session import Verb
from memory.store import MemoryStore

P = ParamSpec("P")
T = TypeVar("T")


TURN_SHARE = 0.9
"""A turn at a periodic job lasts this share of its interval, so the process whose timer
fires next after it, whichever it is, takes the next turn: about one run per interval,
never one per process."""


async def _take_turn(db: Session, job: str, every: timedelta) -> bool:
    """One statement decides it, so two processes asking at once cannot both win."""
    row = await db.row(
        "INSERT INTO job_turns (name, until) VALUES (%(job)s, now() + %(turn)s)"
        " ON CONFLICT (name) DO UPDATE SET until = excluded.until"
        " WHERE job_turns.until <= now()"
        " RETURNING name",
        {"job": job, "turn": every * TURN_SHARE},
    )
    return row is not None


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

    async def import_episodes(self, episodes: Sequence[models.ImportedEpisode]) -> list[int | None]:
        """By ``COPY``, in one transaction (:mod:`memory.postgres.imports`)."""
        return await self._db.run(
            partial(imports.import_episodes, episodes=episodes), pipelined=False
        )

    async def close(self) -> None:
        await self.settle()
        await self._db.close()

    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        return await self._db.run(partial(_take_turn, job=job, every=every))
