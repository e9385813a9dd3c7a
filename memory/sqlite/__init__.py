"""The SQLite backend: one file in WAL mode, full-text recall with FTS5."""

from memory.sqlite.store import SQLiteMemoryStore

__all__ = ["SQLiteMemoryStore"]
