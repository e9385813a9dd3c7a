"""Choosing and opening a memory backend from a URL."""

from __future__ import annotations

from pathlib import Path

from memory.config import MemoryConfig
from memory.sqlite import SQLiteMemoryStore
from memory.store import MemoryStore

__all__ = ["open_store"]

_SQLITE_PREFIX = "sqlite:///"


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


async def open_store(url: str, config: MemoryConfig) -> MemoryStore:
    """Open the store at ``url``, creating and migrating its database if needed."""
    return await SQLiteMemoryStore.open(_sqlite_path(url), config)
