"""Bounded work: answers beyond MAX_CONCURRENT_ANSWERS are told to wait, in one sentence;
model requests beyond MAX_CONCURRENT_LLM_CALLS wait their turn, and are then answered."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from bot.answering import AT_CAPACITY
from bot.config import Settings
from bot.testing import FakeLLMServer, ScriptedReply
from bot.testing.fake_slack import FakeSlackWebAPI
from bot.testing.harness import ALICE, BOB, SignedSlack, dm_channel, start_bot


@pytest.fixture
async def bounded(
    settings: Settings, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> AsyncIterator[SignedSlack]:
    server = await start_bot(
        settings.model_copy(update={"max_concurrent_answers": 1, "max_concurrent_llm_calls": 1})
    )
    try:
        yield SignedSlack(server, fake_slack, http)
    finally:
        await server.stop()


async def test_a_question_over_the_bound_is_asked_to_wait_then_answered_later(
    bounded: SignedSlack, fake_llm: FakeLLMServer, fake_slack: FakeSlackWebAPI
) -> None:
    fake_llm.script(ScriptedReply.answer("Alice's answer.", delay_seconds=0.5))
    await bounded.dm("what's the staging password policy?", user=ALICE)
    await asyncio.wait_for(fake_llm.wait_for_requests(1), 5)

    await bounded.dm("and who owns the search cluster?", user=BOB)
    [notice] = await fake_slack.wait_for_final_messages(1, channel=dm_channel(BOB))

    assert notice.text == AT_CAPACITY
    [answer] = await bounded.answers(1, channel=dm_channel(ALICE))
    assert answer.text.startswith("Alice's answer.")
    await bounded.dm("who owns the search cluster, please?", user=BOB)
    bobs = await bounded.answers(2, channel=dm_channel(BOB))
    assert bobs[-1].text.startswith("Answer: who owns the search cluster, please?")


async def test_model_requests_over_the_bound_wait_their_turn(
    settings: Settings,
    fake_llm: FakeLLMServer,
    fake_slack: FakeSlackWebAPI,
    http: httpx.AsyncClient,
) -> None:
    server = await start_bot(
        settings.model_copy(update={"max_concurrent_answers": 4, "max_concurrent_llm_calls": 1})
    )
    slack = SignedSlack(server, fake_slack, http)
    try:
        fake_llm.script(ScriptedReply.answer("First.", delay_seconds=0.5))
        await slack.dm("first question?", user=ALICE)
        await asyncio.wait_for(fake_llm.wait_for_requests(1), 5)
        await slack.dm("second question?", user=BOB)
        await asyncio.sleep(0.2)

        assert len(fake_llm.requests) == 1, "the second request waits for the first"
        [first] = await slack.answers(1, channel=dm_channel(ALICE))
        [second] = await slack.answers(1, channel=dm_channel(BOB))
        assert first.text.startswith("First.")
        assert second.text.startswith("Answer: second question?")
    finally:
        await server.stop()
