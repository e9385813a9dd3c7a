"""Requests that are not from Slack, or not Slack payloads, reach nothing and break nothing."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from slack_sdk.errors import SlackApiError

from bot.app import Bot
from bot.config import Settings
from bot.server import EVENTS_PATH, HEALTH_PATH, HttpServer
from bot.testing import FakeLLMServer
from bot.testing.fake_slack import FakeSlackWebAPI
from bot.testing.harness import ALICE, FAST_RETRIES, SignedSlack, dm_channel, sign


def dm_body(slack: SignedSlack, text: str) -> str:
    message = slack.fake.add_user_message(dm_channel(ALICE), text, user=ALICE)
    return json.dumps(slack.envelope(slack.message_event(message, channel_type="im")))


async def still_answers(slack: SignedSlack) -> None:
    await slack.dm("are you still there?")
    [answer] = await slack.answers(1, channel=dm_channel(ALICE))
    assert answer.text == "Answer: are you still there?"


async def test_a_forged_signature_gets_401_and_reaches_nothing(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    body = dm_body(slack, "forged")
    forged = sign(body, secret="not-the-signing-secret")

    response = await slack.post(body, headers=forged)

    assert response.status_code == 401
    await still_answers(slack)
    assert len(fake_llm.requests) == 1


async def test_an_unsigned_request_gets_401(slack: SignedSlack, http: httpx.AsyncClient) -> None:
    body = dm_body(slack, "unsigned")

    response = await http.post(
        f"{slack.server.url}{EVENTS_PATH}",
        content=body,
        headers={"Content-Type": "application/json"},
    )

    assert response.status_code == 401


async def test_a_stale_request_gets_401_even_when_correctly_signed(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    body = dm_body(slack, "from the past")
    six_minutes_ago = int(time.time()) - 6 * 60

    response = await slack.post(body, headers=sign(body, timestamp=six_minutes_ago))

    assert response.status_code == 401
    await still_answers(slack)
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ('{"type": "event_callback", "event": {', "application/json"),
        ("[1, 2, 3]", "application/json"),
        ('{"type": "event_callback", "event_id": "Ev1", "team_id": "T1"}', "application/json"),
        ('{"type": "event_callback", "event": {"text": "no type"}}', "application/json"),
        ('{"hello": "world"}', "application/json"),
        ("", "application/json"),
        ("command=%2Fforget&text=", "application/x-www-form-urlencoded"),
        ("payload=%7Bbroken", "application/x-www-form-urlencoded"),
        ('{"type": "event_callback"}', "text/plain"),
        ("\xff\xfe", "application/json"),
    ],
    ids=[
        "broken-json",
        "json-array",
        "event-missing",
        "event-without-type",
        "unknown-payload",
        "empty",
        "command-without-user",
        "broken-payload-form",
        "wrong-content-type",
        "not-utf8",
    ],
)
async def test_malformed_but_signed_bodies_get_4xx_and_the_server_stays_up(
    slack: SignedSlack, body: str, content_type: str
) -> None:
    response = await slack.post(body, content_type=content_type)

    assert 400 <= response.status_code < 500, response.text
    await still_answers(slack)


async def test_health_and_events_are_503_until_the_bot_is_ready(
    settings: Settings, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> None:
    release = fake_slack.hold("auth.test")
    server = HttpServer(Bot(settings, llm_retry=FAST_RETRIES), host="127.0.0.1", port=0)
    starting = asyncio.create_task(server.start())
    await fake_slack.wait_for(lambda: bool(fake_slack.calls_to("auth.test")), what="auth.test")
    try:
        assert (await http.get(f"{server.url}{HEALTH_PATH}")).status_code == 503
        signed = SignedSlack(server, fake_slack, http)
        assert (await signed.post(dm_body(signed, "too early"))).status_code == 503

        release.set()
        await starting
        assert (await http.get(f"{server.url}{HEALTH_PATH}")).status_code == 200
    finally:
        release.set()
        await starting
        await server.stop()


async def test_a_rejected_bot_token_stops_the_start(
    settings: Settings, fake_slack: FakeSlackWebAPI
) -> None:
    fake_slack.fail("auth.test", "invalid_auth")
    server = HttpServer(Bot(settings), host="127.0.0.1", port=0)

    with pytest.raises(SlackApiError, match="invalid_auth"):
        await server.start()
