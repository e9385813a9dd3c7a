"""``python -m bot`` as a process against the fakes: what start-up says, Socket Mode that
cannot connect, and SIGINT/SIGTERM at any stage (exit code, one line, no traceback)."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

import pytest
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp

from bot.config import ConfigurationError
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.socket_mode import connect_socket_mode
from tests.support.harness import (
    ALICE,
    SIGNING_SECRET,
    dm_channel,
    event_envelope,
    message_event,
)
from tests.support.process import fakes_env, local_url, post_event, run_bot, wait_until_healthy

STOP_WITHIN_SECONDS = 10.0


def bot_env(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, **values: str
) -> dict[str, str]:
    return fakes_env(fake_slack, fake_llm, db=tmp_path / "bot.db", **values)


async def finished(process: asyncio.subprocess.Process, within: float) -> str:
    try:
        _, stderr = await asyncio.wait_for(process.communicate(), within)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return stderr.decode()


async def stopped_cleanly(
    env: dict[str, str], cwd: Path, signum: int = signal.SIGTERM, within: float = 30
) -> str:
    """Start the bot with ``env``, wait until it serves, send ``signum``: its log, once it
    has ended with exit code 0."""
    process = await run_bot(env=env, cwd=cwd)
    await wait_until_healthy(local_url(env), process)
    process.send_signal(signum)
    logs = await finished(process, within)
    assert process.returncode == 0, logs
    return logs


async def test_start_up_names_the_model_and_warns_when_the_endpoint_does_not_list_it(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    env = bot_env(tmp_path, fake_slack, fake_llm, LLM_MODEL="llama9-unpulled")

    logs = await stopped_cleanly(env, tmp_path)

    [named] = [line for line in logs.splitlines() if "answering with the model" in line]
    assert f"llama9-unpulled at {fake_llm.base_url.rstrip('/')}" in named
    [warned] = [line for line in logs.splitlines() if "WARNING" in line]
    assert "ollama pull llama9-unpulled" in warned
    assert "Traceback" not in logs


async def test_with_log_format_json_every_line_is_a_json_object(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    env = bot_env(tmp_path, fake_slack, fake_llm, LOG_FORMAT="json")

    logs = await stopped_cleanly(env, tmp_path)

    entries = [json.loads(line) for line in logs.strip().splitlines()]
    messages = [entry["message"] for entry in entries]
    assert any(message.startswith("answering with the model") for message in messages)
    assert messages[-1] == "stopped"
    assert {"time", "level", "logger"} <= set(entries[0])


async def test_a_refused_app_token_is_one_line_and_exit_2_without_retrying_forever(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    env = bot_env(tmp_path, fake_slack, fake_llm, SLACK_APP_TOKEN="xapp-wrong", LOG_LEVEL="ERROR")
    started = time.monotonic()
    process = await run_bot(env=env, cwd=tmp_path)

    logs = await finished(process, 30)

    assert process.returncode == 2
    assert "Traceback" not in logs
    lines = logs.strip().splitlines()
    assert len(lines) == 1, logs
    [line] = lines
    assert "SLACK_APP_TOKEN" in line
    assert "invalid_auth" in line
    assert "xapp-wrong" not in logs
    assert time.monotonic() - started < 20
    assert len(fake_slack.calls_to("apps.connections.open")) == 1


async def test_socket_mode_gives_up_after_a_bounded_number_of_tries(
    fake_slack: FakeSlackWebAPI,
) -> None:
    fake_slack.fail("apps.connections.open", "internal_error", times=None)
    app = AsyncApp(token=fake_slack.token, signing_secret=SIGNING_SECRET)
    app.client.base_url = fake_slack.base_url
    handler = AsyncSocketModeHandler(app, fake_slack.app_token)
    try:
        with pytest.raises(ConfigurationError, match=r"after 3 tries \(internal_error\)"):
            await connect_socket_mode(handler, tries=3, backoff=0.01)
    finally:
        await handler.close_async()

    assert len(fake_slack.calls_to("apps.connections.open")) == 3


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_while_slack_does_not_answer_at_start_up_stops_the_bot(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, signum: int
) -> None:
    held = fake_slack.hold("auth.test")
    process = await run_bot(env=bot_env(tmp_path, fake_slack, fake_llm), cwd=tmp_path)
    try:
        await fake_slack.wait_for(
            lambda: bool(fake_slack.calls_to("auth.test")), within=60, what="auth.test"
        )

        process.send_signal(signum)
        logs = await finished(process, STOP_WITHIN_SECONDS)
    finally:
        held.set()

    assert process.returncode == 0, logs
    assert "Traceback" not in logs
    assert "stopped during start-up" in logs


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_while_serving_stops_the_bot_cleanly(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, signum: int
) -> None:
    env = bot_env(tmp_path, fake_slack, fake_llm)

    logs = await stopped_cleanly(env, tmp_path, signum, STOP_WITHIN_SECONDS)

    assert "Traceback" not in logs
    assert logs.strip().splitlines()[-1].endswith("stopped")


async def test_sigterm_with_a_slow_answer_in_flight_still_stops_within_10_seconds(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    fake_llm.latency_seconds = 60.0
    env = bot_env(tmp_path, fake_slack, fake_llm)
    process = await run_bot(env=env, cwd=tmp_path)
    await wait_until_healthy(local_url(env), process)
    message = fake_slack.add_user_message(dm_channel(ALICE), "a slow one", user=ALICE)
    body = json.dumps(
        event_envelope(
            fake_slack, message_event(fake_slack, message, channel_type="im"), event_id="EvSlow"
        )
    )
    response = await post_event(local_url(env), body)
    assert response.status_code == 200
    await asyncio.wait_for(fake_llm.wait_for_requests(1), 10)

    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    logs = await finished(process, STOP_WITHIN_SECONDS)

    elapsed = time.monotonic() - started
    assert elapsed < STOP_WITHIN_SECONDS
    assert process.returncode == 0, logs
    assert "Traceback" not in logs
