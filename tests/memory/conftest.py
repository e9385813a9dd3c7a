"""Fixtures for the memory store's tests: a real SQLite file per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from memory_helpers import Memory

from memory import MemoryConfig, MemoryStore, open_store


@pytest.fixture
def config() -> MemoryConfig:
    return MemoryConfig()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "bot.db"


@pytest.fixture
async def store(db_path: Path, config: MemoryConfig) -> AsyncIterator[MemoryStore]:
    store = await open_store(f"sqlite:///{db_path}", config)
    yield store
    await store.close()


@pytest.fixture
def memory(store: MemoryStore) -> Memory:
    return Memory(store)
