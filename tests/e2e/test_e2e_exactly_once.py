"""Each person's message gets exactly one answer, whatever Slack delivers twice."""

from __future__ import annotations

import json

import httpx

from bot.config import Settings
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from tests.support.harness import ALICE, BOB, GENERAL, SignedSlack, dm_channel, start_bot


async def test_retries_of_the_same_event_are_answered_once(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    message = fake_slack.add_user_message(dm_channel(ALICE), "only once please", user=ALICE)
    event = slack.message_event(message, channel_type="im")

    await slack.send_event(event, event_id="Ev0000RETRY")
    await slack.send_event(event, event_id="Ev0000RETRY", retry_num=1)
    await slack.send_event(event, event_id="Ev0000RETRY", retry_num=2)
    await slack.dm("barrier", user=BOB)

    await slack.answers(1, channel=dm_channel(BOB))
    await slack.answers(1, channel=dm_channel(ALICE))
    assert len(fake_slack.final_messages(dm_channel(ALICE))) == 1
    assert len(fake_llm.requests) == 2


async def test_message_and_app_mention_of_one_mention_are_answered_once(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    await slack.mention("answer me once")
    await slack.dm("barrier", user=BOB)

    await slack.answers(1, channel=dm_channel(BOB))
    await slack.answers(1, channel=GENERAL)
    assert len(fake_slack.final_messages(GENERAL)) == 1
    starts = fake_slack.calls_to("chat.startStream")
    assert [call.args["channel"] for call in starts].count(GENERAL) == 1
    assert len(fake_llm.requests) == 2


async def test_dedupe_holds_across_a_restart_with_the_same_database(
    settings: Settings, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    message = fake_slack.add_user_message(dm_channel(ALICE), "survive a restart", user=ALICE)
    async with httpx.AsyncClient() as http:
        first = await start_bot(settings)
        try:
            slack = SignedSlack(first, fake_slack, http)
            body = slack.envelope(slack.message_event(message, channel_type="im"), event_id="Ev1")
            await slack.post(json.dumps(body))
            await slack.answers(1, channel=dm_channel(ALICE))
        finally:
            await first.stop()

        second = await start_bot(settings)
        try:
            slack = SignedSlack(second, fake_slack, http)
            await slack.post(json.dumps(body), retry_num=1)
            await slack.dm("barrier", user=BOB)
            await slack.answers(1, channel=dm_channel(BOB))
        finally:
            await second.stop()

    assert len(fake_slack.final_messages(dm_channel(ALICE))) == 1
    assert len(fake_llm.requests) == 2
