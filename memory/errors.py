"""The errors the memory package raises, so callers never see a backend's own types.

``bot/`` catches these (``StoreError`` and its kinds), never ``sqlite3.Error``: a
PostgreSQL backend raises the same ones.
"""

from __future__ import annotations


class StoreError(Exception):
    """The store could not do what was asked (the backend failed, not the caller)."""


class StoreUnavailable(StoreError):
    """The store cannot be opened or used: a missing directory, a locked or corrupt file."""


class StoreClosed(StoreError):
    """The store was used after :meth:`memory.MemoryStore.close`."""
