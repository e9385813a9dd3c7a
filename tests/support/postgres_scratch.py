"""Throwaway PostgreSQL schemas for tests and benchmarks, on the server CI provides.

``TEST_POSTGRES_URL`` names the server and database (default: ``test`` on 127.0.0.1:5432,
as user ``postgres``, else as the current user). Each schema made here is new and dropped
afterwards; its URL puts it first on the ``search_path``, so the store creates its tables
there. An unreachable server is an error, never a reason to skip: the PostgreSQL tests are
required.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from urllib.parse import quote

import psycopg
from psycopg import sql

__all__ = [
    "admin_url",
    "create_schema",
    "drop_schema",
    "empty_schema",
    "end_connections",
    "named_connections",
    "schema_url",
    "scratch_schema",
]

_DEFAULT_HOST = "127.0.0.1:5432"
_DEFAULT_DATABASE = "test"
_KEPT = ("memory_migrations", "secrets")
"""Tables :func:`empty_schema` keeps: the schema's version and its digest secret."""


def _candidates() -> list[str]:
    if url := os.environ.get("TEST_POSTGRES_URL"):
        return [url]
    users = dict.fromkeys(["postgres", getpass.getuser()])
    return [f"postgresql://{user}@{_DEFAULT_HOST}/{_DEFAULT_DATABASE}" for user in users]


@cache
def admin_url() -> str:
    """The first candidate URL that connects; raises with every reason when none does."""
    problems: list[str] = []
    for url in _candidates():
        try:
            with psycopg.connect(url, connect_timeout=5):
                return url
        except psycopg.Error as error:
            problems.append(f"{url}: {type(error).__name__}: {error}".strip())
    raise RuntimeError(
        "the PostgreSQL tests need a server (set TEST_POSTGRES_URL); none answered:\n"
        + "\n".join(problems)
    )


_NO_FSYNC_WAIT = "-csynchronous_commit=off"
"""Tests and benchmarks need no durability against a crash of the server itself, so their
commits do not wait for the disk (a crash of the bot's process loses nothing either way)."""


def schema_url(schema: str) -> str:
    """The admin URL, with ``schema`` first on the search path (and
    :data:`_NO_FSYNC_WAIT`)."""
    separator = "&" if "?" in admin_url() else "?"
    options = quote(f"-csearch_path={schema} {_NO_FSYNC_WAIT}")
    return f"{admin_url()}{separator}options={options}"


def named_connections(url: str, application_name: str) -> str:
    """``url`` with its connections named ``application_name`` in ``pg_stat_activity``, so
    :func:`end_connections` can end them and no one else's."""
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}application_name={quote(application_name)}"


async def end_connections(application_name: str) -> int:
    """End every connection named ``application_name``, as a restart or failover of the
    server would (``pg_terminate_backend``); how many were ended."""
    async with await psycopg.AsyncConnection.connect(admin_url(), autocommit=True) as conn:
        cursor = await conn.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE application_name = %s AND pid <> pg_backend_pid()",
            [application_name],
        )
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


def create_schema() -> str:
    """A new, empty schema; its name."""
    schema = f"test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    return schema


def drop_schema(schema: str) -> None:
    with psycopg.connect(admin_url(), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def empty_schema(schema: str) -> None:
    """Delete every row a store wrote in ``schema``, as if it had just been created (but
    ids go on from where they were): much faster than a new schema, whose migration is the
    slow part, or than ``TRUNCATE``, which makes new files (property tests use it)."""
    with psycopg.connect(admin_url(), autocommit=True) as conn, conn.transaction():
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s AND tablename <> ALL(%s)",
                [schema, list(_KEPT)],
            )
        ]
        for table in tables:
            conn.execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(schema, table)))


@asynccontextmanager
async def scratch_schema() -> AsyncIterator[str]:
    """A new, empty schema for one test: yields a store URL using it, then drops it."""
    schema = await asyncio.to_thread(create_schema)
    try:
        yield schema_url(schema)
    finally:
        await asyncio.to_thread(drop_schema, schema)
