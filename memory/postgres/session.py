"""One transaction on one pooled connection, with the few verbs the backend's SQL needs.

:class:`Session` is to this backend what sqlite-utils' ``Database`` is to the SQLite one:
every module of :mod:`memory.postgres` takes one and runs its SQL through it, and it is
PostgreSQL's :class:`memory.sql.session.Session` for the verbs written once. It also
carries the database's digest secret (see :mod:`memory.postgres.fence`), read once when
the store opens.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import DictRow

from memory.sql.session import Params

__all__ = ["Params", "Session"]


@dataclass(frozen=True)
class Session:
    """A connection inside a transaction, and this database's digest secret."""

    conn: AsyncConnection[DictRow]
    secret: bytes
    lease_cleared = ", reflection_holder = NULL, reflection_until = NULL"
    locked_skipped = " FOR UPDATE SKIP LOCKED"

    async def rows(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        cursor = await self.conn.execute(sql, params)
        return await cursor.fetchall()

    async def row(self, sql: str, params: Params = ()) -> dict[str, Any] | None:
        cursor = await self.conn.execute(sql, params)
        return await cursor.fetchone()

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run a statement; the number of rows it changed."""
        cursor = await self.conn.execute(sql, params)
        return cursor.rowcount

    def digest(self, text: str) -> str:
        """The keyed hash of ``text`` under this database's secret, in hex."""
        return hmac.new(self.secret, text.encode(), hashlib.sha256).hexdigest()

    def read_time(self, value: datetime) -> datetime:
        """``timestamptz`` comes back as a datetime."""
        return value

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """Nothing to begin: the session is one transaction (:meth:`Database.run`)."""
        yield

    async def lock_person(self, user_id: str, team_id: str | None = None) -> None:
        from memory.postgres.fence import lock_person  # the fence runs its SQL on a Session

        await lock_person(self, user_id, team_id)

    async def forgotten_since(
        self, user_id: str, started_at: datetime, team_id: str | None = None
    ) -> bool:
        from memory.postgres.fence import forgotten_since

        return await forgotten_since(self, user_id, started_at, team_id)

    async def lock_workspace(self, team_id: str) -> None:
        from memory.postgres.fence import lock_workspace

        await lock_workspace(self, team_id)

    @asynccontextmanager
    async def refiling(self, episode_ids: Sequence[int]) -> AsyncIterator[None]:
        yield
        from memory.postgres.fts import reindex_episode

        for episode_id in episode_ids:
            await reindex_episode(self, episode_id)

    async def scrub(self) -> None:
        """Nothing to do: a deleted row's space is reused by PostgreSQL's own vacuum."""

    def one_of(self, values: Sequence[int]) -> tuple[str, Any]:
        return "= ANY(%s)", list(values)

    async def claim(self, keys: Sequence[str], at: datetime, team_id: str | None) -> bool:
        from memory.postgres.counters import claim

        return await claim(self, keys, at, team_id)
