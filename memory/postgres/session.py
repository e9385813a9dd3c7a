"""One transaction on one pooled connection, with the few verbs the backend's SQL needs.

:class:`Session` is to this backend what sqlite-utils' ``Database`` is to the SQLite one:
every module of :mod:`memory.postgres` takes one and runs its SQL through it. It also
carries the database's digest secret (see :mod:`memory.postgres.fence`), read once when
the store opens.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import DictRow

__all__ = ["Params", "Session"]

Params = Sequence[Any] | Mapping[str, Any]


@dataclass(frozen=True)
class Session:
    """A connection inside a transaction, and this database's digest secret."""

    conn: AsyncConnection[DictRow]
    secret: bytes

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
