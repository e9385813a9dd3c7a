"""Choosing and opening a memory backend from a URL."""

from __future__ import annotations

import asyncio
from pathlib import Path

from memory.config import MemoryConfig
from memory.embedding import default_embedder
from memory.errors import StoreUnavailable
from memory.postgres import PostgresMemoryStore
from memory.sqlite import SQLiteMemoryStore
from memory.sqlite.database_file import database_file_problem
from memory.store import MemoryStore

_SQLITE_PREFIX = "sqlite:///"
_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def _sqlite_path(url: str) -> Path:
    """``sqlite:///relative.db``, ``sqlite:////absolute.db`` (as SQLAlchemy) or a plain path."""
    if url.startswith(_SQLITE_PREFIX):
        path = url.removeprefix(_SQLITE_PREFIX)
    elif "://" in url:
        raise ValueError(f"unsupported memory store URL scheme: {url.split('://', 1)[0]}")
    else:
        path = url
    if not path:
        raise ValueError("the memory store URL names no database file")
    return Path(path)


async def open_store(url: str, config: MemoryConfig, *, existing: bool = False) -> MemoryStore:
    """Open the store at ``url``, creating and migrating its database if needed.

    ``postgresql://...`` (libpq's URL: user, password, host, port, database and
    parameters such as ``options=-csearch_path%3Dbot``) opens the PostgreSQL backend;
    ``sqlite:///path`` or a plain path, the SQLite one. The embedding model is loaded
    first (once per process), so the first recall does not wait for it.

    A SQLite path that cannot hold the store (a folder, a read-only file, a file that is
    not a database...) is :class:`StoreUnavailable` before SQLite touches it, and before
    the model is loaded; with ``existing``, so is a missing or empty file: no database is
    created."""
    path = (
        None if url.startswith(_POSTGRES_SCHEMES) else _usable_sqlite_path(url, existing=existing)
    )
    await asyncio.to_thread(default_embedder)
    if path is None:
        return await PostgresMemoryStore.open(url, config)
    return await SQLiteMemoryStore.open(path, config)


def _usable_sqlite_path(url: str, *, existing: bool) -> Path:
    path = _sqlite_path(url)
    if (problem := database_file_problem(path, existing=existing)) is not None:
        raise StoreUnavailable(f"{path} {problem}")
    return path
