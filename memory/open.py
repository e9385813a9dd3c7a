"""Choosing and opening a memory backend from a URL, a SQLite path checked before SQLite
touches it (memory/README.md, *Opening a store*)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from memory.config import MemoryConfig
from memory.models import StoreUnavailable
from memory.postgres import PostgresMemoryStore
from memory.sqlite import SQLiteMemoryStore
from memory.store import MemoryStore
from memory.vectors import default_embedder

_SQLITE_PREFIX = "sqlite:///"
_SQLITE_HEADER = b"SQLite format 3\x00"
_WRITABLE = os.R_OK | os.W_OK
_ENTERABLE = os.W_OK | os.X_OK


async def open_store(url: str, config: MemoryConfig, *, existing: bool = False) -> MemoryStore:
    """Open the store at ``url`` (``postgresql://...``, libpq's; ``sqlite:///relative.db``,
    ``sqlite:////absolute.db`` or a plain path), creating and migrating its database unless
    ``existing`` (a SQLite file must be there). The embedding model is loaded first, so the
    first recall does not wait for it."""
    if url.startswith(("postgresql://", "postgres://")):
        await asyncio.to_thread(default_embedder)
        return await PostgresMemoryStore.open(url, config)
    if url.startswith(_SQLITE_PREFIX):
        url = url.removeprefix(_SQLITE_PREFIX)
    elif "://" in url:
        raise ValueError(f"unsupported memory store URL scheme: {url.split('://', 1)[0]}")
    if not url:
        raise ValueError("the memory store URL names no database file")
    path = Path(url)
    if (problem := database_file_problem(path, existing=existing)) is not None:
        raise StoreUnavailable(f"{path} {problem}")
    await asyncio.to_thread(default_embedder)
    return await SQLiteMemoryStore.open(path, config)


def database_file_problem(path: Path, *, existing: bool) -> str | None:
    """Why ``path`` cannot hold the store, as the rest of a sentence that starts with the
    path (``"is a folder, ..."``), or None. ``existing``: the database must already be
    there (what the admin commands open), so an empty file is refused too."""
    if path.is_dir():
        return f"is a folder, not a database file: give the file's path, e.g. {path / 'bot.db'}"
    folder = path.parent
    if not path.exists():
        if existing:
            return (
                "does not exist: check the path (the bot creates its database at its first "
                "start; the admin commands never do)"
            )
        # The store creates the file, and the folders it is in up from the nearest one there.
        nearest = next(parent for parent in path.absolute().parents if parent.exists())
        if not nearest.is_dir():
            return f"cannot be created: {nearest} is a file, not a folder"
        if not os.access(nearest, _ENTERABLE):
            return f"cannot be created: this user may not write to {nearest}"
        return None
    if not path.is_file():
        return "is not a regular file: give the path of a database file"
    if not os.access(path, _WRITABLE):
        return (
            "is read-only for this user: run as the user that owns it (the bot's), "
            "or work on a copy"
        )
    journals = (path.with_name(f"{path.name}{suffix}") for suffix in ("-wal", "-shm"))
    if not os.access(folder, _ENTERABLE) and not all(os.access(j, _WRITABLE) for j in journals):
        return (
            f"is in a folder this user may not write to ({folder}): SQLite creates "
            f"{path.name}-wal and {path.name}-shm beside it"
        )
    with path.open("rb") as file:
        header = file.read(len(_SQLITE_HEADER))
    if not header and existing:
        return (
            "is empty (0 bytes), not a database: check the path (an empty file is never "
            "made into one here; the bot creates its database at its first start)"
        )
    if header and header != _SQLITE_HEADER:
        return "is not a SQLite database (or is corrupt): check the path, or restore a backup"
    return None
