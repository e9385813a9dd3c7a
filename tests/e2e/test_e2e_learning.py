"""Learning from reactions end to end: votes validate exchanges that later prompts recall."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.assistant import EXPERIENCE_HEADING
from bot.assistant.lessons.reflector import REFLECTION_PROMPT
from bot.assistant.lessons.scorer import SCORING_PROMPT
from bot.simulator import FakeLLMServer
from memory.sql.vote_queue import VoteQueue
from tests.support.harness import ALICE, BOB, SignedSlack, StartBot, dm_channel

FIRST = "How do I deploy the billing service to staging?"
RELATED = "what's the way to get billing deployed on staging"


def system_text(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "system")


async def prompt_after_a_vote(
    slack: SignedSlack, fake_llm: FakeLLMServer, *, voter: str, reaction: str
) -> str:
    """What the model is told before a question related to Alice's first one, once ``voter``
    voted ``reaction`` on its answer."""
    answer = await slack.ask_in_dm(FIRST)
    await slack.vote(answer, user=voter, reaction=reaction)
    await slack.ask_in_dm(RELATED)
    return system_text(fake_llm.request_for(RELATED, agent_only=True))


async def test_a_thumbs_up_from_the_asker_makes_the_exchange_past_experience(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    answer = await slack.ask_in_dm(FIRST)
    assert EXPERIENCE_HEADING not in system_text(fake_llm.request_for(FIRST, agent_only=True))

    await slack.vote(answer, user=ALICE, reaction="+1")
    await slack.ask_in_dm(RELATED)

    prompt = system_text(fake_llm.request_for(RELATED, agent_only=True))
    assert EXPERIENCE_HEADING in prompt
    assert FIRST in prompt
    assert f"Answer: {FIRST}" in prompt
    services = slack.services
    assert (await services.memory.stats()).recalls == 1, "one search per question"


async def test_someone_elses_thumbs_up_does_not_count(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    prompt = await prompt_after_a_vote(slack, fake_llm, voter=BOB, reaction="+1")

    assert EXPERIENCE_HEADING not in prompt
    services = slack.services
    assert await services.memory.list_episodes(ALICE) == []


async def test_removing_the_reaction_takes_the_experience_back(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    answer = await slack.ask_in_dm(FIRST)

    await slack.vote(answer, user=ALICE, reaction="+1")
    await slack.react(answer, user=ALICE, reaction="+1", added=False)
    await slack.settled()
    await slack.ask_in_dm(RELATED)

    assert EXPERIENCE_HEADING not in system_text(fake_llm.request_for(RELATED, agent_only=True))


async def test_a_thumbs_down_is_recalled_as_what_did_not_work(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    prompt = await prompt_after_a_vote(slack, fake_llm, voter=ALICE, reaction="-1")

    assert EXPERIENCE_HEADING in prompt
    assert f"They asked “{FIRST}” and your answer did not help them." in prompt


async def test_a_vote_wakes_reflection_which_asks_the_model_to_score_the_answer(
    bot_with: StartBot, fake_llm: FakeLLMServer
) -> None:
    # With RECALL_WEIGHT_IMPORTANCE above 0, 👍 answers get scored.
    importance_weighed = await bot_with(recall_weight_importance=1.0)
    answer = await importance_weighed.ask_in_dm(FIRST)
    asked = len(fake_llm.requests)

    await importance_weighed.react(answer, user=ALICE, reaction="thumbsup")

    # Reflection runs every few minutes, so only the vote's wake-up can bring this soon.
    await asyncio.wait_for(fake_llm.wait_for_requests(asked + 1), 5)
    assert SCORING_PROMPT.splitlines()[0] in system_text(fake_llm.requests[asked])


async def test_by_default_a_thumbs_up_costs_no_model_call_and_a_thumbs_down_asks_a_lesson(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    liked = await slack.ask_in_dm(FIRST)
    disliked = await slack.ask_in_dm(RELATED)
    asked = len(fake_llm.requests)

    await slack.vote(liked, user=ALICE, reaction="+1")
    await slack.react(disliked, user=ALICE, reaction="thumbsdown")

    await asyncio.wait_for(fake_llm.wait_for_requests(asked + 1), 5)
    await asyncio.sleep(0.3)  # room for a scoring request, were one coming
    reflection = [system_text(request) for request in fake_llm.requests[asked:]]
    assert len(reflection) == 1
    assert REFLECTION_PROMPT.splitlines()[0] in reflection[0]


async def test_forget_erases_everything_and_answers_ephemerally_with_counts(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    answer = await slack.ask_in_dm(FIRST)
    await slack.vote(answer, user=ALICE, reaction="+1")

    response = await slack.command("/forget", user=ALICE)

    assert response.status_code == 200
    reply = response.json()
    assert reply["response_type"] == "ephemeral"
    assert reply["text"].startswith("Done: I erased everything I kept about you (")
    assert any(char.isdigit() for char in reply["text"])
    await slack.ask_in_dm(RELATED)
    assert EXPERIENCE_HEADING not in system_text(fake_llm.request_for(RELATED, agent_only=True))


async def test_forget_with_nothing_stored_says_so(slack: SignedSlack) -> None:
    response = await slack.command("/forget", user=BOB)

    assert response.json() == {
        "text": "I had nothing stored about you, so there was nothing to erase.",
        "response_type": "ephemeral",
    }


async def test_memory_lists_the_rated_answers_ephemerally(slack: SignedSlack) -> None:
    answer = await slack.ask_in_dm(FIRST)
    await slack.vote(answer, user=ALICE, reaction="+1")

    response = await slack.command("/memory", user=ALICE, channel=dm_channel(ALICE))

    reply = response.json()
    assert reply["response_type"] == "ephemeral"
    assert f"👍 {FIRST}" in reply["text"]


async def test_the_question_right_after_a_thumbs_up_sees_it_before_the_index_catches_up(
    slack: SignedSlack, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vote leaves its episode's filing in the index to a later batch; recall files what
    waits in the asker's conversation first. Here the batch never comes."""

    async def never(queue: VoteQueue) -> None:
        queue._unfiled = 0

    monkeypatch.setattr(VoteQueue, "_file", never)
    answer = await slack.ask_in_dm(FIRST)

    await slack.vote(answer, user=ALICE, reaction="+1")
    await slack.ask_in_dm(RELATED)

    prompt = system_text(fake_llm.request_for(RELATED, agent_only=True))
    assert EXPERIENCE_HEADING in prompt
    assert FIRST in prompt
