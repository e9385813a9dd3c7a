"""Conversations end to end: the real bot server against fake Slack and a fake model."""

from __future__ import annotations

from bot.llm import FakeLLMServer
from bot.slack.fake_web_api import FakeSlackWebAPI
from tests.slack_harness import ALICE, SignedSlack, dm_channel


async def test_a_dm_is_answered_once_with_the_models_text(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    await slack.dm("How do I rotate the staging database password?")

    [answer] = await slack.answers(1, channel=dm_channel(ALICE))

    assert answer.text == "Answer: How do I rotate the staging database password?"
    assert answer.thread_ts is None
    assert len(fake_llm.requests) == 1
    assert fake_slack.calls_to("chat.postMessage")[0].args["text"] == "_Thinking…_"
