"""The privacy boundary through the real app over HTTP: what one person's turn found out
(tool results, working notes, recalled failures) never reaches another person's prompt."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from bot.agent.messages import ToolCall
from bot.config import Settings
from bot.simulator import FakeLLMServer
from bot.simulator.model import ScriptedReply, echo_last_user_message
from bot.simulator.slack_web_api import FakeSlackWebAPI
from tests.support.harness import ALICE, BOB, GENERAL, SignedSlack, running

SECRET = "How do I rotate the wombat vault key on the quokka cluster?"
ASKS_TO_RECALL = "RECALL-PLEASE: did anything like this come up before?"


def recalling_model(request: dict[str, Any]) -> ScriptedReply:
    """A tool-calling model: asked to recall, it calls ``recall_my_memories`` once."""
    messages = request["messages"]
    asked = any(
        m["role"] == "user" and ASKS_TO_RECALL in str(m.get("content")) for m in messages[-1:]
    )
    if asked:
        call = ToolCall(
            id="call_1", name="recall_my_memories", arguments='{"query": "wombat vault key"}'
        )
        return ScriptedReply.calls(call)
    return echo_last_user_message(request)


@pytest.fixture(params=[False, True], ids=["private", "sharing"])
async def sharing_slack(
    request: pytest.FixtureRequest,
    settings: Settings,
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    http: httpx.AsyncClient,
) -> AsyncIterator[SignedSlack]:
    """The bot with ``SHARE_CHANNEL_SUCCESSES`` off, then on."""
    async with running(settings, fake_slack, http, share_channel_successes=request.param) as slack:
        yield slack


async def taught_in_channel(slack: SignedSlack, question: str, *, user: str, vote: str) -> None:
    """``user`` @mentions the bot in #general and votes on its answer."""
    answer = await slack.ask_in_channel(question, user=user)
    await slack.vote(answer, user=user, reaction=vote)


async def test_alices_recalled_failure_never_reaches_bobs_turn_in_the_same_thread(
    sharing_slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    slack = sharing_slack
    fake_llm.responder = recalling_model
    await taught_in_channel(slack, SECRET, user=ALICE, vote="-1")

    root = await slack.mention(ASKS_TO_RECALL, user=ALICE)
    await slack.answers(2, channel=GENERAL)
    alice_turn = [r for r in fake_llm.requests if "recall_my_memories" in json.dumps(r)]
    assert "wombat" in json.dumps(alice_turn[-1]["messages"]), "the tool found her failure"

    await slack.say("bob here: what should I run next?", user=BOB, thread_ts=root.ts)
    await slack.answers(3, channel=GENERAL)
    await slack.say("alice again: and after that?", user=ALICE, thread_ts=root.ts)
    await slack.answers(4, channel=GENERAL)

    bob_prompt = fake_llm.prompt_for("bob here: what should I run next?")
    for word in ("wombat", "quokka", "recall_my_memories"):
        assert word not in bob_prompt, word
    alice_prompt = fake_llm.prompt_for("alice again: and after that?")
    assert "wombat" in alice_prompt, "her own notes still serve her follow-up"


async def test_a_shared_channel_success_reaches_others_but_a_failure_never_does(
    sharing_slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    slack = sharing_slack
    sharing = slack.server.bot.settings.share_channel_successes
    await taught_in_channel(slack, "how do I restart the wombat ingest?", user=ALICE, vote="+1")
    await taught_in_channel(slack, "how do I drain the wombat queue?", user=ALICE, vote="-1")

    await slack.mention("bob: wombat ingest restart and queue drain, anyone?", user=BOB)
    await slack.answers(3, channel=GENERAL)

    prompt = fake_llm.prompt_for("bob: wombat ingest restart and queue drain, anyone?")
    assert ("restart the wombat ingest" in prompt) is sharing
    assert "drain the wombat queue" not in prompt
