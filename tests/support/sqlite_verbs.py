"""The verbs of :mod:`memory.sql` as plain functions of SQLite's connection, run to their
end as the store's database thread runs them: for tests and benchmarks that write a file
directly, without a store (or beside one)."""

from __future__ import annotations

from functools import update_wrapper
from types import ModuleType
from typing import Any

from sqlite_utils import Database

from memory.sql.session import Verb
from memory.sqlite.session import SQLiteSession, run_to_end

__all__ = ["on_connection"]


def _on_connection(verb: Verb[..., Any]) -> Any:
    def run(db: Database, /, *arguments: Any, **keywords: Any) -> Any:
        return run_to_end(verb(SQLiteSession(db), *arguments, **keywords))

    return update_wrapper(run, verb)


class on_connection:
    """Each verb of a :mod:`memory.sql` module, taking SQLite's connection first."""

    def __init__(self, module: ModuleType) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        return _on_connection(getattr(self._module, name))
