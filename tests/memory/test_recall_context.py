"""Recall's conversation context: the exchange right after (or before) a strong match, in
the asker's own conversation and within the hour, ranks above an equally relevant one
from another time; never across people, conversations or that window."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memory_helpers import CHANNEL, DM, T0, FreshStore, Memory

from memory import HybridRecall, MemoryConfig, Scope

ROTATE = (
    "How do I rotate the staging database password?",
    "Run the vault rotation job for the staging database.",
)
FOLLOW_UP = ("And where do the new credentials go?", "Into the deploy secrets.")
FILLERS = (
    ("Is there a new coffee place near the office?", "Try the one on Elm Street."),
    ("Which new laptop should I order?", "The 14-inch model."),
    ("Where do I book a meeting room?", "In the calendar app."),
    ("What goes into the weekly report?", "Shipped work and blockers."),
)
"""Exchanges matching the question by a word or two, days earlier: what is least relevant."""
LEXICAL = HybridRecall(semantic=0)
QUESTION = "where do the new credentials go after rotating the staging database password"
LATER = timedelta(days=3)


async def _follow_up_and_its_twin(
    memory: Memory, *, gap: timedelta, user: str = "U1", scope: Scope = DM
) -> tuple[int, int]:
    """A few weak matches, then the strong match, the follow-up ``gap`` later, and the
    same follow-up again days later, alone: the ids of the follow-up and of its twin (the
    later, so a tie puts it first)."""
    for day, filler in enumerate(FILLERS, start=1):
        await memory.answered(*filler, at=T0 - timedelta(days=day), user=user, scope=scope)
    await memory.answered(*ROTATE, at=T0, user=user, scope=scope)
    follow_up = await memory.answered(*FOLLOW_UP, at=T0 + gap, user=user, scope=scope)
    twin = await memory.answered(*FOLLOW_UP, at=T0 + LATER, user=user, scope=scope)
    return follow_up.id, twin.id


def _order(recalled: list, *ids: int) -> list[int]:
    return [item.episode.id for item in recalled if item.episode.id in ids]


async def test_the_follow_up_of_a_strong_match_gains_half_its_score(memory: Memory) -> None:
    follow_up, twin = await _follow_up_and_its_twin(memory, gap=timedelta(minutes=2))
    recalled = await memory.recall(QUESTION, now=T0 + LATER + timedelta(hours=1))
    strong, *_ = recalled
    by_id = {item.episode.id: item for item in recalled}
    assert strong.episode.question == ROTATE[0]
    assert _order(recalled, follow_up, twin) == [follow_up, twin]
    gained = by_id[follow_up].score - by_id[follow_up].relevance
    assert gained == pytest.approx(0.5 * strong.relevance)
    assert by_id[twin].score == pytest.approx(by_id[twin].relevance)


async def _lexical_order(fresh_store: FreshStore, hybrid: HybridRecall, gap: timedelta) -> str:
    """Which comes first under full-text recall with ``hybrid``: the follow-up asked
    ``gap`` after the strong match, or its twin."""
    async with fresh_store(MemoryConfig(hybrid=hybrid)) as store:
        memory = Memory(store)
        follow_up, twin = await _follow_up_and_its_twin(memory, gap=gap)
        recalled = await memory.recall(QUESTION, now=T0 + LATER + timedelta(hours=1))
        assert set(_order(recalled, follow_up, twin)) == {follow_up, twin}
        return "follow-up" if _order(recalled, follow_up, twin)[0] == follow_up else "twin"


async def test_full_text_recall_alone_uses_the_context_too(fresh_store: FreshStore) -> None:
    assert await _lexical_order(fresh_store, LEXICAL, timedelta(minutes=2)) == "follow-up"


async def test_without_context_the_twins_tie_and_the_later_comes_first(
    fresh_store: FreshStore,
) -> None:
    no_context = LEXICAL.model_copy(update={"context": 0})
    assert await _lexical_order(fresh_store, no_context, timedelta(minutes=2)) == "twin"


async def test_an_exchange_past_the_window_is_no_neighbour(fresh_store: FreshStore) -> None:
    assert await _lexical_order(fresh_store, LEXICAL, timedelta(hours=2)) == "twin"


async def test_another_persons_exchange_is_never_a_neighbour(memory: Memory) -> None:
    await memory.answered(*ROTATE, at=T0, scope=CHANNEL)
    theirs = await memory.answered(
        *FOLLOW_UP, at=T0 + timedelta(minutes=1), user="U2", scope=CHANNEL
    )
    mine = await memory.answered(*FOLLOW_UP, at=T0 + LATER, scope=CHANNEL)
    recalled = await memory.recall(QUESTION, scope=CHANNEL, now=T0 + LATER + timedelta(hours=1))
    ids = [item.episode.id for item in recalled]
    assert mine.id in ids
    assert theirs.id not in ids


async def test_an_exchange_of_another_conversation_is_never_a_neighbour(memory: Memory) -> None:
    await memory.answered(*ROTATE, at=T0, scope=DM)
    elsewhere = await memory.answered(*FOLLOW_UP, at=T0 + timedelta(minutes=1), scope=CHANNEL)
    twin = await memory.answered(*FOLLOW_UP, at=T0 + LATER, scope=DM)
    recalled = await memory.recall(QUESTION, scope=DM, now=T0 + LATER + timedelta(hours=1))
    ids = [item.episode.id for item in recalled]
    assert twin.id in ids
    assert elsewhere.id not in ids
