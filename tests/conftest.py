"""The end-to-end harness: fake Slack, fake LLM, a real SQLite file and the real bot server;
and a real SQLite store on that file, for tests that use the store directly."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.server import HttpServer
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.slack.streaming import THINKING_PLACEHOLDER
from memory import MemoryConfig, MemoryStore, open_store
from tests.support.harness import SignedSlack, StartBot, fakes_settings, running, start_bot
from tests.support.postgres_scratch import scratch_schema
from tests.support.process import fakes_env
from tests.support.replicas import REPLICAS, Replica, running_replicas


@pytest.fixture
async def fake_slack() -> AsyncIterator[FakeSlackWebAPI]:
    async with FakeSlackWebAPI(placeholder_texts={THINKING_PLACEHOLDER}) as fake:
        yield fake


@pytest.fixture
def slack_client(fake_slack: FakeSlackWebAPI) -> AsyncWebClient:
    """A Web API client on the fake Slack, with the bot's token."""
    return AsyncWebClient(token=fake_slack.token, base_url=fake_slack.base_url)


@pytest.fixture
async def fake_llm() -> AsyncIterator[FakeLLMServer]:
    async with FakeLLMServer() as llm:
        yield llm


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    return tmp_path / "bot.db"


@pytest.fixture
async def database_url() -> AsyncIterator[str]:
    """A PostgreSQL schema of this test's own (dropped afterwards), as a store URL."""
    async with scratch_schema() as url:
        yield url


@pytest.fixture
async def store(db_file: Path) -> AsyncIterator[MemoryStore]:
    opened = await open_store(str(db_file), MemoryConfig())
    yield opened
    await opened.close()


@pytest.fixture
def settings(fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, db_file: Path) -> Settings:
    return fakes_settings(
        fake_slack, fake_llm, slack_bot_token=fake_slack.token, bot_db_path=db_file
    )


@pytest.fixture
async def bot_server(settings: Settings) -> AsyncIterator[HttpServer]:
    server = await start_bot(settings)
    yield server
    await server.stop()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=10.0) as client:
        yield client


@pytest.fixture
def slack(
    bot_server: HttpServer, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> SignedSlack:
    return SignedSlack(bot_server, fake_slack, http)


@pytest.fixture
async def bot_with(
    settings: Settings, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> AsyncIterator[StartBot]:
    """Starts the bot with some settings changed, as often as asked; each one stops at the
    test's end."""
    async with AsyncExitStack() as stack:

        async def start(**changes: Any) -> SignedSlack:
            return await stack.enter_async_context(running(settings, fake_slack, http, **changes))

        yield start


@pytest.fixture
def replica_env() -> dict[str, str]:
    """What every replica of ``replicas`` is started with beside the fakes and the shared
    database (a test module overrides it)."""
    return {}


@pytest.fixture
async def replicas(
    database_url: str,
    tmp_path: Path,
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    replica_env: dict[str, str],
) -> AsyncIterator[list[Replica]]:
    """Bot processes on one PostgreSQL database, as behind a load balancer, healthy."""

    def env() -> dict[str, str]:
        return fakes_env(fake_slack, fake_llm, BOT_DB_URL=database_url, **replica_env)

    async with running_replicas(REPLICAS, tmp_path, env) as started:
        yield started
