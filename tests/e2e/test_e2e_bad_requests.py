"""Requests that are not from Slack, or not Slack payloads, reach nothing and break nothing."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from urllib.parse import urlencode

import httpx
import pytest
from slack_sdk.errors import SlackApiError

from bot.app import Bot
from bot.config import Settings
from bot.server import EVENTS_PATH, HEALTH_PATH, HttpServer
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.views import FEEDBACK_ACTION_ID, FORGET_ITEM_ACTION_ID
from tests.support.harness import ALICE, FAST_RETRIES, SignedSlack, dm_channel, sign

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


def dm_body(slack: SignedSlack, text: str) -> str:
    message = slack.fake.add_user_message(dm_channel(ALICE), text, user=ALICE)
    return json.dumps(slack.envelope(slack.message_event(message, channel_type="im")))


async def still_answers(slack: SignedSlack) -> None:
    answer = await slack.ask_in_dm("are you still there?")
    assert answer.text == "Answer: are you still there?"


async def test_a_forged_signature_gets_401_reaches_nothing_and_names_the_setting(
    slack: SignedSlack, fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    body = dm_body(slack, "forged")
    forged = sign(body, secret="not-the-signing-secret")

    with caplog.at_level(logging.INFO, logger="bot"):
        response = await slack.post(body, headers=forged)

    assert response.status_code == 401
    [line] = [record.getMessage() for record in caplog.records if record.name == "bot.server"]
    assert "401" in line and "check SLACK_SIGNING_SECRET" in line  # a newcomer's wrong secret
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


def interactive_form(payload: object) -> str:
    return urlencode({"payload": json.dumps(payload)})


def click_payload(**overrides: object) -> dict[str, object]:
    return {
        "type": "block_actions",
        "user": {"id": ALICE, "team_id": "T0000TEST"},
        "team": {"id": "T0000TEST"},
        "container": {"type": "message", "channel_id": dm_channel(ALICE), "message_ts": "1.2"},
        "channel": {"id": dm_channel(ALICE)},
        "actions": [{"action_id": "answer_feedback", "type": "feedback_buttons", "value": "up"}],
        **overrides,
    }


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ('{"type": {"nested": "object"}}', "application/json"),
        ('{"type": ["event_callback"], "event": {"type": "message"}}', "application/json"),
        ('{"type": "event_callback", "event": {"type": {"x": 1}}}', "application/json"),
        ('{"type": "event_callback", "event": {"type": "message", "user": 7}}', JSON),
        (interactive_form(click_payload(actions=None)), FORM),
        (interactive_form(click_payload(actions=[])), FORM),
        (interactive_form(click_payload(actions=[None])), FORM),
        (interactive_form(click_payload(actions=[{"value": "up"}])), FORM),
        (interactive_form(click_payload(type="view_submission", view="a string")), FORM),
        (interactive_form(click_payload(user="U0000ALICE")), FORM),
        (interactive_form(click_payload(container="message")), FORM),
        ("command=%2Fmemory&user_id=U0000ALICE&channel_id=D0000ALICE&text=", FORM),
    ],
    ids=[
        "type-object",
        "type-list",
        "event-type-object",
        "event-user-number",
        "actions-null",
        "actions-empty",
        "actions-of-null",
        "action-without-id",
        "view-string",
        "user-string",
        "container-string",
        "memory-without-team-id",
    ],
)
async def test_payloads_bolt_cannot_handle_get_400_and_one_line_without_their_content(
    slack: SignedSlack, caplog: pytest.LogCaptureFixture, body: str, content_type: str
) -> None:
    with caplog.at_level(logging.INFO, logger="bot"):
        response = await slack.post(body, content_type=content_type)

    assert response.status_code == 400, response.text
    [line] = [record for record in caplog.records if record.name == "bot.server"]
    assert line.getMessage().startswith("rejected a request with 400")
    assert "U0000ALICE" not in line.getMessage()
    assert not any(record.exc_info for record in caplog.records)
    await still_answers(slack)


@pytest.mark.parametrize(
    "payload",
    [
        click_payload(actions=[{"action_id": "no_such_action", "type": "button"}]),
        click_payload(actions=[{"action_id": FORGET_ITEM_ACTION_ID, "value": "episode:²"}]),
        click_payload(actions=[{"action_id": FORGET_ITEM_ACTION_ID, "value": f"episode:{10**19}"}]),
        click_payload(actions=[{"action_id": FEEDBACK_ACTION_ID, "value": "sideways"}]),
    ],
    ids=["unknown-action-id", "forget-superscript-id", "forget-20-digit-id", "unknown-vote"],
)
async def test_well_formed_clicks_the_bot_cannot_use_change_nothing_and_log_no_traceback(
    slack: SignedSlack, caplog: pytest.LogCaptureFixture, payload: dict[str, object]
) -> None:
    with caplog.at_level(logging.DEBUG):
        response = await slack.post(interactive_form(payload), content_type=FORM)
        await slack.settled()

    assert response.status_code in (200, 404), response.text
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert not any(record.exc_info for record in caplog.records)
    await still_answers(slack)


async def test_a_non_ascii_signature_gets_401(slack: SignedSlack, http: httpx.AsyncClient) -> None:
    body = dm_body(slack, "signed in another alphabet")
    headers: dict[str, str | bytes] = {"Content-Type": JSON, **sign(body)}
    headers["X-Slack-Signature"] = ("v0=" + "é" * 64).encode()

    response = await http.post(f"{slack.server.url}{EVENTS_PATH}", content=body, headers=headers)

    assert response.status_code == 401


async def test_a_second_signature_header_gets_401(
    slack: SignedSlack, http: httpx.AsyncClient
) -> None:
    body = dm_body(slack, "signed twice")
    signed = sign(body)
    headers = [
        ("Content-Type", JSON),
        *signed.items(),
        ("X-Slack-Signature", "v0=" + "0" * 64),
    ]

    response = await http.post(f"{slack.server.url}{EVENTS_PATH}", content=body, headers=headers)

    assert response.status_code == 401
