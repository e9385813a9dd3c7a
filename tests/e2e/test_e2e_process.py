"""``python -m bot`` as a process: configuration errors, serving, SIGTERM, the forget command."""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from memory import ConversationKind, MemoryConfig, NewExchange, Scope, open_store
from tests.support.harness import (
    ALICE,
    SIGNING_SECRET,
    dm_channel,
    event_envelope,
    message_event,
)
from tests.support.process import (
    bot_env,
    fakes_env,
    local_url,
    post_event,
    run_bot,
    wait_until_healthy,
)

LLM_KEY = "sk-test-llm-key-never-logged"


async def test_a_missing_setting_stops_the_bot_with_one_line_and_exit_code_2(
    tmp_path: Path,
) -> None:
    process = await run_bot(env=bot_env(SLACK_SIGNING_SECRET="s"), cwd=tmp_path)
    _, stderr = await asyncio.wait_for(process.communicate(), 30)

    assert process.returncode == 2
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1
    assert "SLACK_BOT_TOKEN" in lines[0]
    assert "Traceback" not in lines[0]


async def test_an_invalid_setting_names_the_variable(tmp_path: Path) -> None:
    env = bot_env(SLACK_BOT_TOKEN="xoxb-1", SLACK_SIGNING_SECRET="s", PORT="not-a-port")
    process = await run_bot(env=env, cwd=tmp_path)
    _, stderr = await asyncio.wait_for(process.communicate(), 30)

    assert process.returncode == 2
    [line] = stderr.decode().strip().splitlines()
    assert "PORT" in line


@pytest.fixture
async def served(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    env = fakes_env(
        fake_slack, fake_llm, db=tmp_path / "bot.db", LLM_API_KEY=LLM_KEY, LOG_LEVEL="DEBUG"
    )
    process = await run_bot(env=env, cwd=tmp_path)
    url = local_url(env)
    try:
        await wait_until_healthy(url, process)
        yield process, url
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_sigterm_lets_the_answer_in_flight_finish_then_exits_cleanly(
    served: tuple[asyncio.subprocess.Process, str],
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
) -> None:
    process, url = served
    fake_llm.latency_seconds = 0.5
    message = fake_slack.add_user_message(dm_channel(ALICE), "finish me first", user=ALICE)
    event = {
        "type": "message",
        "user": ALICE,
        "text": message.text,
        "ts": message.ts,
        "channel": message.channel,
        "channel_type": "im",
    }
    body = json.dumps(
        {"type": "event_callback", "team_id": fake_slack.team_id, "event_id": "Ev1", "event": event}
    )
    response = await post_event(url, body)
    assert response.status_code == 200
    await fake_slack.wait_for(lambda: bool(fake_llm.requests), what="the model request")

    process.send_signal(signal.SIGTERM)
    _, stderr = await asyncio.wait_for(process.communicate(), 30)

    assert process.returncode == 0, stderr.decode()
    [answer] = fake_slack.final_messages(dm_channel(ALICE))
    assert answer.text == "Answer: finish me first"
    logs = stderr.decode()
    assert "ready as" in logs, "DEBUG logging was not on"
    assert "in HTTP mode: Slack must send events" in logs  # what an app made for Socket Mode misses
    for secret in (fake_slack.token, SIGNING_SECRET, LLM_KEY):
        assert secret not in logs


async def test_the_forget_command_prints_what_it_erased(
    tmp_path: Path, fake_slack: FakeSlackWebAPI
) -> None:
    db_file = tmp_path / "bot.db"
    store = await open_store(str(db_file), MemoryConfig())
    scope = Scope(team_id="T1", channel_id=dm_channel(ALICE), kind=ConversationKind.DM)
    await store.record_exchange(
        NewExchange(
            scope=scope,
            requester_id=ALICE,
            thread_ts=None,
            question="q",
            answer="a",
            message_ts=["1700000001.000001", "1700000002.000002"],
            created_at=datetime.now(UTC),
        )
    )
    await store.close()
    env = bot_env(
        SLACK_BOT_TOKEN=fake_slack.token,
        SLACK_SIGNING_SECRET=SIGNING_SECRET,
        BOT_DB_PATH=str(db_file),
    )

    process = await run_bot("forget", ALICE, env=env, cwd=tmp_path)
    stdout, stderr = await asyncio.wait_for(process.communicate(), 30)

    assert process.returncode == 0, stderr.decode()
    lines = stdout.decode().splitlines()
    assert "episodes: 1" in lines
    assert "ledger: 2" in lines
    assert lines[-1] == f"erased 3 row(s) about {ALICE}"


async def test_with_an_app_token_the_process_runs_in_socket_mode_until_sigterm(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    env = fakes_env(
        fake_slack, fake_llm, db=tmp_path / "bot.db", SLACK_APP_TOKEN=fake_slack.app_token
    )
    process = await run_bot(env=env, cwd=tmp_path)
    try:
        await fake_slack.wait_for_socket(within=30)
        message = fake_slack.add_user_message(dm_channel(ALICE), "via the socket", user=ALICE)
        event = message_event(fake_slack, message, channel_type="im")
        await fake_slack.send_envelope(
            "events_api", event_envelope(fake_slack, event, event_id="Ev9")
        )
        [answer] = await fake_slack.wait_for_final_messages(1, channel=dm_channel(ALICE))
        assert answer.text == "Answer: via the socket"

        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
        assert process.returncode == 0, stderr.decode()
        assert fake_slack.app_token not in stderr.decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
