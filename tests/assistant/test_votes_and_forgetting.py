"""The two paths every vote and every erasure take: ``Votes.apply`` and ``Forgetting``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.assistant.forgetting import Forgetting
from bot.assistant.voting import Votes
from memory import (
    EpisodeStatus,
    MemoryStore,
    NewExchange,
    Vote,
    VoteEvent,
    WorkingMemory,
)
from memory.config import BUTTON
from tests.episodes import DM, T0


@pytest.fixture
def woken() -> list[EpisodeStatus]:
    """The answer's status after each stored vote, as ``Votes`` reported it."""
    return []


@pytest.fixture
def votes(store: MemoryStore, woken: list[EpisodeStatus]) -> Votes:
    return Votes(store, woken.append)


async def exchange(store: MemoryStore, ts: str) -> int:
    episode = await store.record_exchange(
        NewExchange(
            scope=DM,
            requester_id="U1",
            thread_ts=None,
            question="How do I deploy?",
            answer="Run make deploy.",
            message_ts=[ts],
            created_at=T0,
        )
    )
    return episode.id


def vote(
    ts: str, *, reaction: str, vote: Vote | None = None, minute: int = 1, added: bool = True
) -> VoteEvent:
    return VoteEvent(
        channel_id="D1",
        message_ts=ts,
        voter_id="U1",
        reaction=reaction,
        vote=vote,
        added=added,
        at=T0 + timedelta(minutes=minute),
    )


async def test_a_button_vote_and_a_reaction_vote_have_the_same_outcome_and_wake(
    store: MemoryStore, votes: Votes, woken: list[EpisodeStatus]
) -> None:
    await exchange(store, "1.1")
    await exchange(store, "2.2")

    by_reaction = await votes.apply(vote("1.1", reaction="-1"))
    by_button = await votes.apply(vote("2.2", reaction=BUTTON, vote=Vote.DOWN))

    assert (by_reaction.applied, by_reaction.status) == (True, EpisodeStatus.FAILURE)
    assert (by_button.applied, by_button.status) == (True, EpisodeStatus.FAILURE)
    assert woken == [EpisodeStatus.FAILURE, EpisodeStatus.FAILURE]


async def test_a_vote_that_validates_nothing_wakes_nobody(
    votes: Votes, woken: list[EpisodeStatus]
) -> None:
    outcome = await votes.apply(vote("9.9", reaction=BUTTON, vote=Vote.UP))

    assert not outcome.applied
    assert woken == []


async def test_removing_the_last_vote_reports_the_answer_pending_again(
    store: MemoryStore, votes: Votes, woken: list[EpisodeStatus]
) -> None:
    await exchange(store, "1.1")

    await votes.apply(vote("1.1", reaction="+1"))
    await votes.apply(vote("1.1", reaction="+1", minute=2, added=False))

    assert woken == [EpisodeStatus.SUCCESS, EpisodeStatus.PENDING]


async def test_forget_user_erases_the_store_and_the_threads_notes(
    store: MemoryStore, votes: Votes
) -> None:
    await exchange(store, "1.1")
    await votes.apply(vote("1.1", reaction="+1"))
    notes = WorkingMemory()
    notes.put("D1:top", "lookup_user", "Carol", user_id="U1", started_at=datetime.now(UTC))
    notes.put("C1:5.5", "lookup_user", "Dan", user_id="U2", started_at=datetime.now(UTC))

    report = await Forgetting(store, notes).forget_user("U1")

    assert report.total > 0
    assert await store.list_episodes("U1") == []
    assert notes.facts("D1:top", user_id="U1") == {}
    assert notes.facts("C1:5.5", user_id="U2") == {"lookup_user": "Dan"}
