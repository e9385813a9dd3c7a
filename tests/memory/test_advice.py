"""The plan advisor: advice from validated experience only, within the scope."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from memory_helpers import CHANNEL, DM, T0, FreshStore, Memory

from memory import (
    EpisodeStatus,
    MemoryConfig,
    MemoryStore,
    RecalledEpisode,
    RecallRequest,
    Scope,
    Vote,
)
from memory.learning import Advice, PlanAdvisor
from tests.episodes import make_episode

LATER = T0 + timedelta(days=1)
QUESTION = "How do I deploy the billing service to staging?"
FOLLOW_UP = "deploying billing on staging again, what's the way?"


class Advising(PlanAdvisor):
    """Recall, then advice from what was recalled: the answering service's path."""

    def __init__(self, store: MemoryStore) -> None:
        super().__init__(store)
        self.store = store

    async def advise(
        self, scope: Scope, user_id: str, question: str, now: datetime
    ) -> Advice | None:
        recalled = await self.store.recall(
            RecallRequest(scope=scope, requester_id=user_id, text=question, now=now)
        )
        return await self.advice_from(scope, user_id, recalled)


@pytest.fixture
def advisor(store: MemoryStore) -> Advising:
    return Advising(store)


async def test_no_advice_from_pending_exchanges(memory: Memory, advisor: Advising) -> None:
    await memory.ask(QUESTION, "Run make deploy-prod.", scope=CHANNEL)

    assert await advisor.advise(CHANNEL, "U1", FOLLOW_UP, LATER) is None


async def test_a_thumbs_down_and_its_lesson_become_advice(
    store: MemoryStore, memory: Memory, advisor: Advising
) -> None:
    failed = await memory.answered(QUESTION, "Run make deploy-prod.", scope=CHANNEL, vote=Vote.DOWN)
    await store.set_lesson(failed.id, "Staging deploys use make deploy-staging, never prod.")

    advice = await advisor.advise(CHANNEL, "U1", FOLLOW_UP, LATER)

    assert advice is not None
    assert [episode.id for episode in advice.failures] == [failed.id]
    assert advice.successes == []
    [failure] = advice.failures
    assert failure.lesson == "Staging deploys use make deploy-staging, never prod."


async def test_successes_and_failures_are_told_apart(memory: Memory, advisor: Advising) -> None:
    await memory.answered(QUESTION, "Run make deploy-prod.", scope=CHANNEL, vote=Vote.DOWN)
    worked = await memory.answered(
        "billing staging deploy steps?", "Run make deploy-staging.", scope=CHANNEL, vote=Vote.UP
    )

    advice = await advisor.advise(CHANNEL, "U1", FOLLOW_UP, LATER)

    assert advice is not None
    assert [episode.id for episode in advice.successes] == [worked.id]
    assert [episode.answer for episode in advice.failures] == ["Run make deploy-prod."]


async def test_no_advice_for_an_unrelated_question(memory: Memory, advisor: Advising) -> None:
    await memory.answered(QUESTION, "Run make deploy-prod.", scope=CHANNEL, vote=Vote.DOWN)

    assert await advisor.advise(CHANNEL, "U1", "Which fonts suit a poster?", LATER) is None


async def test_other_people_and_scopes_give_no_advice(memory: Memory, advisor: Advising) -> None:
    await memory.answered(QUESTION, "Run make deploy-prod.", scope=CHANNEL, vote=Vote.DOWN)
    await memory.answered(QUESTION, "Run make deploy-prod.", scope=DM, vote=Vote.DOWN)

    assert await advisor.advise(CHANNEL, "U2", FOLLOW_UP, LATER) is None
    assert await advisor.advise(DM, "U2", FOLLOW_UP, LATER) is None


async def test_wisdom_notes_come_with_the_advice_of_their_scope_only(
    store: MemoryStore, advisor: Advising
) -> None:
    await store.replace_wisdom(
        DM, "U1", ["Prefers answers with a runnable command."], episode_count=4, at=T0
    )

    in_dm = await advisor.advise(DM, "U1", "Which fonts suit a poster?", LATER)

    assert in_dm is not None
    assert [note.text for note in in_dm.wisdom] == ["Prefers answers with a runnable command."]
    assert await advisor.advise(CHANNEL, "U1", "Which fonts suit a poster?", LATER) is None
    assert await advisor.advise(DM, "U2", "Which fonts suit a poster?", LATER) is None


@pytest.mark.parametrize("sharing", [False, True])
async def test_advice_from_recalled_episodes_keeps_only_what_the_asker_may_see(
    fresh_store: FreshStore, sharing: bool
) -> None:
    def recalled(
        number: int, status: EpisodeStatus, *, user: str = "U1", scope: Scope = CHANNEL
    ) -> RecalledEpisode:
        episode = make_episode(
            QUESTION,
            f"Answer {number}.",
            status,
            id=number,
            scope=scope,
            requester_id=user,
            created_at=T0,
        )
        return RecalledEpisode(episode=episode, score=1, relevance=1, recency=1, importance=0.5)

    mine = recalled(1, EpisodeStatus.FAILURE)
    theirs = recalled(2, EpisodeStatus.FAILURE, user="U2")
    shared = recalled(3, EpisodeStatus.SUCCESS, user="U2")
    elsewhere = recalled(4, EpisodeStatus.SUCCESS, scope=DM)
    pending = recalled(5, EpisodeStatus.PENDING)

    config = MemoryConfig(share_channel_successes=sharing)
    async with fresh_store(config) as store:
        advisor = PlanAdvisor(store)
        everything = [mine, theirs, shared, elsewhere, pending]
        advice = await advisor.advice_from(CHANNEL, "U1", everything)

        assert advice is not None
        assert [episode.id for episode in advice.failures] == [1], "a failure is never shared"
        assert [episode.id for episode in advice.successes] == ([3] if sharing else [])
        assert await advisor.advice_from(CHANNEL, "U1", [pending, elsewhere]) is None
