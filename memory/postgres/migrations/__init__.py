"""The schema, as numbered migrations applied in order when a store opens, the SQL files here
as released, by the first process to take the lock (memory/README.md, *Migrations*)."""

from __future__ import annotations

from psycopg import AsyncConnection
from psycopg.rows import DictRow

from memory.sql import released_sql

_MIGRATION_LOCK = 0x6D69_6772  # the advisory lock key held while migrating ("migr")

MIGRATIONS: list[tuple[str, str]] = list(released_sql(__name__).items())
"""(name, SQL) in the order they apply, their names' order; a name, once released, never
changes."""


async def apply_migrations(conn: AsyncConnection[DictRow]) -> None:
    """Apply the migrations this database lacks, in one transaction, under the lock."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", [_MIGRATION_LOCK])
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS memory_migrations"
            " (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        cursor = await conn.execute("SELECT name FROM memory_migrations")
        applied = {row["name"] for row in await cursor.fetchall()}
        for name, sql in MIGRATIONS:
            if name not in applied:
                await conn.execute(sql)  # type: ignore[arg-type]
                await conn.execute("INSERT INTO memory_migrations (name) VALUES (%s)", [name])
