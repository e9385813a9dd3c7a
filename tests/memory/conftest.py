"""Fixtures for the memory store's tests: every test runs on both backends.

``store`` is a real SQLite file per test, or a new PostgreSQL schema per test (dropped
after); a test that needs SQLite's file itself (it asks for ``db_path``) or is marked
``sqlite_only`` runs on SQLite alone, one marked ``postgres_only`` on PostgreSQL alone.
PostgreSQL must be reachable (see :mod:`tests.support.postgres_scratch`): when it is not, its tests
fail; they never skip.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from memory_helpers import FreshStore, Memory

from memory import MemoryConfig, MemoryStore, open_store
from tests.support.postgres_scratch import create_schema, drop_schema, empty_schema, schema_url

BACKENDS = ("sqlite", "postgres")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: the test is about SQLite's own files")
    config.addinivalue_line("markers", "postgres_only: the test is about PostgreSQL itself")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    if "db_path" in metafunc.fixturenames or metafunc.definition.get_closest_marker("sqlite_only"):
        backends: tuple[str, ...] = ("sqlite",)
    elif metafunc.definition.get_closest_marker("postgres_only"):
        backends = ("postgres",)
    else:
        backends = BACKENDS
    metafunc.parametrize("backend", backends)


@pytest.fixture
def config() -> MemoryConfig:
    return MemoryConfig()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "bot.db"


@pytest.fixture
def schema(backend: str) -> Iterator[str | None]:
    """This test's PostgreSQL schema (dropped after), or None on SQLite."""
    made = create_schema() if backend == "postgres" else None
    try:
        yield made
    finally:
        if made is not None:
            drop_schema(made)


@pytest.fixture
def url(schema: str | None, tmp_path: Path) -> str:
    """Where this test's (first) store lives: a SQLite file, or the PostgreSQL schema."""
    return f"sqlite:///{tmp_path / 'bot.db'}" if schema is None else schema_url(schema)


@pytest.fixture
def fresh_store(schema: str | None, url: str, tmp_path: Path) -> FreshStore:
    """Opens a new, empty store on this test's backend (each call its own database).

    On PostgreSQL the test's schema is emptied between calls rather than made anew: the
    property tests open a store per example, and migrating one is the slow part."""
    made = 0

    @asynccontextmanager
    async def fresh(config: MemoryConfig) -> AsyncIterator[MemoryStore]:
        nonlocal made
        made += 1
        opened_at = url
        if made > 1 and schema is None:
            opened_at = f"sqlite:///{tmp_path / f'store{made}/bot.db'}"
        elif made > 1:
            await asyncio.to_thread(empty_schema, schema)
        store = await open_store(opened_at, config)
        try:
            yield store
        finally:
            await store.close()

    return fresh


@pytest.fixture
async def store(fresh_store: FreshStore, config: MemoryConfig) -> AsyncIterator[MemoryStore]:
    async with fresh_store(config) as opened:
        yield opened


@pytest.fixture
def memory(store: MemoryStore) -> Memory:
    return Memory(store)
