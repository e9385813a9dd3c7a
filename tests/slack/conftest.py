"""Fixtures of the Slack-side tests: the fake Web API, a client on it, a real SQLite store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.testing.fake_slack import FakeSlackWebAPI
from memory import MemoryConfig, MemoryStore, open_store


@pytest.fixture
def fake(fake_slack: FakeSlackWebAPI) -> FakeSlackWebAPI:
    """The suite's fake Web API (``fake_slack``), under the short name these tests use."""
    return fake_slack


@pytest.fixture
def client(fake: FakeSlackWebAPI) -> AsyncWebClient:
    return AsyncWebClient(token=fake.token, base_url=fake.base_url)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[MemoryStore]:
    store = await open_store(str(tmp_path / "bot.db"), MemoryConfig())
    yield store
    await store.close()
