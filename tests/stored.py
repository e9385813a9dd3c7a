"""What a store holds, read past the store: the bytes of a SQLite database on disk, and
every row of a PostgreSQL schema. Erasure tests search them for what must be gone."""

from __future__ import annotations

from pathlib import Path

import psycopg
import psycopg.sql

__all__ = ["all_rows_as_text", "disk_bytes"]


def disk_bytes(db_path: Path) -> bytes:
    """Everything SQLite has on disk for the database: main file, WAL and shared memory."""
    suffixes = ["", "-wal", "-shm", "-journal"]
    return b"".join(
        path.read_bytes()
        for suffix in suffixes
        if (path := db_path.with_name(db_path.name + suffix)).exists()
    )


async def all_rows_as_text(url: str) -> str:
    """Every row of every table in the store's schema, as text."""
    async with await psycopg.AsyncConnection.connect(url) as conn:
        tables = await (
            await conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            )
        ).fetchall()
        dumped = []
        for (table,) in tables:
            cursor = await conn.execute(
                psycopg.sql.SQL("SELECT t::text FROM {} AS t").format(psycopg.sql.Identifier(table))
            )
            dumped += [row[0] for row in await cursor.fetchall()]
    return "\n".join(dumped)
