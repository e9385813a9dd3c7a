"""A Slack that hangs or refuses connections: every Web API call gives up after
SLACK_TIMEOUT_SECONDS, and each failure is one short log line naming the cause (a timeout,
a refused connection) and what to check; never a traceback, a token or what anyone wrote.
The Socket Mode endpoint refusing connections is one line naming it too."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp

from bot.config import ConfigurationError, Settings
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.socket_mode import connect_socket_mode
from tests.support.harness import (
    ALICE,
    BOB,
    SIGNING_SECRET,
    SignedSlack,
    dm_channel,
    running,
)
from tests.support.process import fakes_env, free_port, run_bot

QUESTION = "what is the staging database password rotation policy?"
LONGEST_LINE = 300


@pytest.fixture
async def hanging_port() -> AsyncIterator[int]:
    """A server that accepts connections, reads what it is sent and never answers."""
    held: list[asyncio.StreamWriter] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        while await reader.read(65536):
            pass

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    yield server.sockets[0].getsockname()[1]
    for writer in held:
        writer.close()
    server.close()


@pytest.fixture
def refusing_port() -> int:
    """A port nothing listens on: connections to it are refused."""
    return free_port()


def _problems(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.levelno >= logging.WARNING]


async def _answer_with_slack_at(
    settings: Settings, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient, port: int
) -> SignedSlack:
    """The bot, started against the fake Slack, then asked once after its Web API moved to
    ``port``; returns once that answer was given up."""
    async with running(settings, fake_slack, http, slack_timeout_seconds=1) as slack:
        await slack.ask_in_dm("a first question, while Slack answers?", user=BOB)
        slack.server.bot.client.base_url = f"http://127.0.0.1:{port}/api/"
        await slack.dm(QUESTION, user=ALICE)
        await asyncio.sleep(0.1)
        async with asyncio.timeout(15):
            await slack.settled()
    return slack


async def test_a_slack_that_never_answers_is_one_line_naming_the_timeout(
    settings: Settings,
    fake_slack: FakeSlackWebAPI,
    http: httpx.AsyncClient,
    hanging_port: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    started = time.monotonic()

    await _answer_with_slack_at(settings, fake_slack, http, hanging_port)

    assert time.monotonic() - started < 12, "the calls gave up after SLACK_TIMEOUT_SECONDS"
    [line] = _problems(caplog)
    message = line.getMessage()
    assert "did not answer within 1 s (timeout)" in message
    assert "check SLACK_API_URL" in message
    assert len(message) < LONGEST_LINE and line.exc_info is None
    assert QUESTION not in message and fake_slack.token not in message
    assert fake_slack.final_messages(dm_channel(ALICE)) == []


async def test_a_slack_that_refuses_connections_is_one_line_naming_the_refusal(
    settings: Settings,
    fake_slack: FakeSlackWebAPI,
    http: httpx.AsyncClient,
    refusing_port: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)

    await _answer_with_slack_at(settings, fake_slack, http, refusing_port)

    [line] = _problems(caplog)
    message = line.getMessage()
    assert f"Slack's Web API at 127.0.0.1:{refusing_port} refused the connection" in message
    assert "check SLACK_API_URL" in message
    assert len(message) < LONGEST_LINE and line.exc_info is None
    assert QUESTION not in message and fake_slack.token not in message


async def test_a_socket_mode_endpoint_refusing_connections_is_named_without_the_sdks_retries(
    fake_slack: FakeSlackWebAPI, refusing_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake_slack.socket_url = f"ws://127.0.0.1:{refusing_port}/socket"
    app = AsyncApp(token=fake_slack.token, signing_secret=SIGNING_SECRET)
    app.client.base_url = fake_slack.base_url
    handler = AsyncSocketModeHandler(app, fake_slack.app_token)
    try:
        with pytest.raises(ConfigurationError) as raised:
            await connect_socket_mode(handler, tries=2, backoff=0.01)
    finally:
        await handler.close_async()

    assert (
        f"after 2 tries (the Socket Mode endpoint 127.0.0.1:{refusing_port} refused the "
        "connection)" in str(raised.value)
    )
    assert _problems(caplog) == [], "the SDK never tried, so never logged its tracebacks"


async def test_socket_mode_with_a_refusing_endpoint_stops_the_bot_in_one_line(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, refusing_port: int
) -> None:
    fake_slack.socket_url = f"ws://127.0.0.1:{refusing_port}/socket"
    env = fakes_env(
        fake_slack, fake_llm, db=tmp_path / "bot.db", SLACK_APP_TOKEN=fake_slack.app_token
    )
    process = await run_bot(env=env, cwd=tmp_path)
    _, stderr = await asyncio.wait_for(process.communicate(), 60)

    assert process.returncode == 2
    problems = [line for line in stderr.decode().splitlines() if "INFO" not in line]
    [line] = problems
    assert f"127.0.0.1:{refusing_port} refused the connection" in line
    assert len(line) < LONGEST_LINE
    assert fake_slack.app_token not in stderr.decode()


async def test_a_slack_that_never_answers_at_start_up_stops_the_bot_in_one_line(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, hanging_port: int
) -> None:
    env = fakes_env(
        fake_slack,
        fake_llm,
        db=tmp_path / "bot.db",
        SLACK_API_URL=f"http://127.0.0.1:{hanging_port}/api/",
        SLACK_TIMEOUT_SECONDS="1",
    )
    process = await run_bot(env=env, cwd=tmp_path)
    _, stderr = await asyncio.wait_for(process.communicate(), 30)

    assert process.returncode == 2
    problems = [line for line in stderr.decode().splitlines() if "INFO" not in line]
    [line] = problems
    assert "did not answer within 1 s (timeout)" in line
    assert "SLACK_API_URL" in line and len(line) < LONGEST_LINE
