"""Bounded work: questions beyond MAX_CONCURRENT_ANSWERS wait in line, each told where it
stands, and are answered in arrival order, one person's burst not delaying the others; a
question is declined only past ANSWER_QUEUE_LIMIT or ANSWER_WAIT_SECONDS, with when to ask
again; model requests beyond MAX_CONCURRENT_LLM_CALLS wait their turn."""

from __future__ import annotations

import asyncio
import re

from bot.simulator import FakeLLMServer, ScriptedReply
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI
from bot.slack.streaming import THINKING_STATUS
from tests.support.harness import ALICE, BOB, SignedSlack, StartBot, dm_channel

CROWD = 200
ASK_AGAIN = re.compile(r"please ask again in about (a minute|\d+ minutes)\.$")


def _asked(fake_llm: FakeLLMServer) -> list[str]:
    """The question of each model request, in the order the model received them."""
    return [
        next(m["content"] for m in reversed(r["messages"]) if m["role"] == "user")
        for r in fake_llm.requests
    ]


def _statuses(fake_slack: FakeSlackWebAPI, channel: str) -> list[str]:
    return [
        str(call.args["status"])
        for call in fake_slack.calls_to("assistant.threads.setStatus")
        if call.args["channel_id"] == channel
    ]


async def alice_holds_the_only_slot(
    slack: SignedSlack, fake_llm: FakeLLMServer, *, seconds: float
) -> None:
    """Alice asks, and the model takes ``seconds`` over her answer: the one answer at once
    is hers until then."""
    fake_llm.script(ScriptedReply.answer("Alice's answer.", delay_seconds=seconds))
    await slack.dm("what's the staging password policy?", user=ALICE)
    await asyncio.wait_for(fake_llm.wait_for_requests(1), 10)


async def alice_answered(slack: SignedSlack) -> None:
    """Alice got her answer all the same."""
    [alice] = await slack.answers(1, channel=dm_channel(ALICE))
    assert alice.text.startswith("Alice's answer.")


def assert_declined(notice: FakeMessage, opening: str) -> None:
    """``notice`` declines a question with ``opening`` and says when to ask again."""
    assert notice.text.startswith(opening)
    assert ASK_AGAIN.search(notice.text), notice.text


async def test_a_crowd_of_200_is_all_answered_in_arrival_order_each_told_it_waits(
    bot_with: StartBot, fake_llm: FakeLLMServer, fake_slack: FakeSlackWebAPI
) -> None:
    slots = 4
    slack = await bot_with(max_concurrent_answers=slots)
    fake_llm.latency_seconds = 0.05
    people = [f"U{n:04d}CROWD" for n in range(CROWD)]

    for n, person in enumerate(people):  # one after the other: the arrival order is known
        await slack.dm(f"question {n} of the all-hands?", user=person)
    answers = await fake_slack.wait_for_final_messages(CROWD, within=120)
    await slack.settled()

    assert sorted(a.text for a in answers) == sorted(
        f"Answer: question {n} of the all-hands?" for n in range(CROWD)
    )
    order = [int(question.split()[1]) for question in _asked(fake_llm)]
    assert sorted(order) == list(range(CROWD))
    # Taken strictly in arrival order: with `slots` answers at once, a question reaches the
    # model before an earlier one only if that one was still being worked on beside it.
    assert all(abs(position - n) < slots for position, n in enumerate(order)), order
    waited = {p: _statuses(fake_slack, dm_channel(p)) for p in people}
    told = [p for p, statuses in waited.items() if statuses[0] != THINKING_STATUS]
    assert len(told) >= CROWD // 2, "most of the crowd had to wait, and was told so"
    for person in told:
        first, *_, last = waited[person]
        assert re.fullmatch(r"is (next in line|in line: \d+ questions? ahead of yours)…", first)
        assert last == THINKING_STATUS, "then thinking, once its turn came"
    most_ahead = max(int(re.sub(r"\D", "", waited[p][0]) or 0) for p in told)
    assert most_ahead >= 50, "the later ones were told how many are ahead of them"


async def test_one_persons_burst_does_not_delay_the_next_person(
    bot_with: StartBot, fake_llm: FakeLLMServer, fake_slack: FakeSlackWebAPI
) -> None:
    slack = await bot_with(max_concurrent_answers=1)
    fake_llm.latency_seconds = 0.1
    for n in range(10):
        await slack.dm(f"alice's question {n}?", user=ALICE)
    await slack.dm("bob's only question?", user=BOB)

    await fake_slack.wait_for_final_messages(11, within=30)
    await slack.settled()

    asked = _asked(fake_llm)
    assert asked.index("bob's only question?") <= 2, asked
    assert [q for q in asked if q.startswith("alice")] == [
        f"alice's question {n}?" for n in range(10)
    ], "her own questions keep their order"


async def test_a_question_past_the_queue_limit_is_declined_saying_when_to_ask_again(
    bot_with: StartBot, fake_llm: FakeLLMServer, fake_slack: FakeSlackWebAPI
) -> None:
    slack = await bot_with(max_concurrent_answers=1, answer_queue_limit=1)
    await alice_holds_the_only_slot(slack, fake_llm, seconds=1.0)
    await slack.dm("and who owns the search cluster?", user=BOB)  # waits
    await slack.dm("where are the runbooks?", user="U0000CAROL")  # one too many

    [notice] = await fake_slack.wait_for_final_messages(1, channel=dm_channel("U0000CAROL"))
    assert_declined(notice, "Too many questions are waiting for me right now (1);")
    await alice_answered(slack)
    [bob] = await slack.answers(1, channel=dm_channel(BOB))
    assert bob.text.startswith("Answer: and who owns the search cluster?")
    assert "where are the runbooks?" not in _asked(fake_llm)


async def test_a_question_that_waited_past_the_bound_is_declined_saying_when_to_ask_again(
    bot_with: StartBot, fake_llm: FakeLLMServer, fake_slack: FakeSlackWebAPI
) -> None:
    slack = await bot_with(max_concurrent_answers=1, answer_wait_seconds=0.5)
    await alice_holds_the_only_slot(slack, fake_llm, seconds=2.0)
    await slack.dm("and who owns the search cluster?", user=BOB)

    [notice] = await fake_slack.wait_for_final_messages(1, channel=dm_channel(BOB), within=10)
    assert_declined(notice, "So many people are asking at once that I couldn't get to")
    await alice_answered(slack)
    assert len(fake_llm.requests) == 1, "the declined question never reached the model"


async def test_model_requests_over_the_bound_wait_their_turn(
    bot_with: StartBot, fake_llm: FakeLLMServer
) -> None:
    slack = await bot_with(max_concurrent_answers=4, max_concurrent_llm_calls=1)
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
