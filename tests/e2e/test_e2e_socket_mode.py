"""Socket Mode end to end: the bot opens a WebSocket to (fake) Slack and answers over it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from bot.app import Bot
from bot.config import Settings
from bot.server import EVENTS_PATH, HEALTH_PATH, SocketModeServer
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from tests.support.harness import ALICE, FAST_RETRIES, dm_channel, event_envelope, message_event


@pytest.fixture
async def socket_bot(
    settings: Settings, fake_slack: FakeSlackWebAPI
) -> AsyncIterator[SocketModeServer]:
    server = SocketModeServer(
        Bot(settings, llm_retry=FAST_RETRIES),
        app_token=fake_slack.app_token,
        host="127.0.0.1",
        port=0,
        grace_seconds=5,
    )
    await server.start()
    await fake_slack.wait_for_socket()
    yield server
    await server.stop()


async def test_an_event_over_the_socket_is_acknowledged_and_answered(
    socket_bot: SocketModeServer, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    message = fake_slack.add_user_message(dm_channel(ALICE), "over the socket", user=ALICE)
    event = message_event(fake_slack, message, channel_type="im")

    ack = await fake_slack.send_envelope(
        "events_api", event_envelope(fake_slack, event, event_id="Ev0000SOCKET")
    )

    assert ack["envelope_id"].startswith("envelope-")
    await fake_slack.wait_for_final_messages(1, channel=dm_channel(ALICE))
    [answer] = fake_slack.final_messages(dm_channel(ALICE))
    assert answer.text == "Answer: over the socket"
    assert len(fake_llm.requests) == 1


async def test_a_slash_command_over_the_socket_gets_its_ephemeral_reply_in_the_ack(
    socket_bot: SocketModeServer, fake_slack: FakeSlackWebAPI
) -> None:
    command = {
        "team_id": fake_slack.team_id,
        "channel_id": "C0000GENERAL",
        "user_id": ALICE,
        "command": "/forget",
        "text": "",
    }

    ack = await fake_slack.send_envelope("slash_commands", command)

    assert ack["payload"]["response_type"] == "ephemeral"
    assert "nothing to erase" in ack["payload"]["text"]


async def test_socket_mode_serves_health_but_no_events_endpoint(
    socket_bot: SocketModeServer, http: httpx.AsyncClient
) -> None:
    health = await http.get(f"{socket_bot.health_url}{HEALTH_PATH}")
    events = await http.post(f"{socket_bot.health_url}{EVENTS_PATH}", content="{}")

    assert health.status_code == 200
    assert events.status_code == 404
