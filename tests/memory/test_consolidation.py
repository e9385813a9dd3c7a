"""The consolidator: a few bounded wisdom notes per (scope, person), replacing the old ones."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memory_helpers import CHANNEL, DM, T0, Memory

from memory import Episode, EpisodeStatus, MemoryStore, Scope, Vote
from memory.learning import Consolidator

A_DAY_LATER = T0 + timedelta(days=1)


class EchoSummarizer:
    """One note per episode, naming its question, unless told what to answer."""

    def __init__(self) -> None:
        self.batches: list[list[Episode]] = []
        self.reply: list[str] | None = None
        self.failing = False

    async def summarize(self, episodes: list[Episode]) -> list[str]:
        self.batches.append(episodes)
        if self.failing:
            raise RuntimeError("model down")
        if self.reply is not None:
            return self.reply
        return [f"About {episode.question}" for episode in episodes]


@pytest.fixture
def summarizer() -> EchoSummarizer:
    return EchoSummarizer()


async def texts(store: MemoryStore, scope: Scope, user: str) -> list[str]:
    return [note.text for note in await store.wisdom(scope, user)]


async def test_notes_replace_the_older_notes_of_the_scope(
    store: MemoryStore, memory: Memory, summarizer: EchoSummarizer
) -> None:
    await memory.answered("deploy billing?", "make deploy", scope=CHANNEL, vote=Vote.UP)
    consolidator = Consolidator(store, summarizer, lookback=timedelta(days=1))

    first = await consolidator.consolidate(now=A_DAY_LATER)
    assert (first.scopes, first.notes, first.skipped) == (1, 1, 0)
    assert await texts(store, CHANNEL, "U1") == ["About deploy billing?"]

    await memory.answered("restart search?", "kubectl", scope=CHANNEL, vote=Vote.DOWN)
    summarizer.reply = ["Prefers kubectl commands."]
    await consolidator.consolidate(now=A_DAY_LATER)

    notes = await store.wisdom(CHANNEL, "U1")
    assert [note.text for note in notes] == ["Prefers kubectl commands."]
    assert notes[0].episode_count == 2


async def test_only_validated_episodes_are_summarized(
    store: MemoryStore, memory: Memory, summarizer: EchoSummarizer
) -> None:
    await memory.answered("deploy billing?", "make deploy", scope=CHANNEL, vote=Vote.UP)
    await memory.answered("restart search?", "kubectl", scope=CHANNEL, vote=Vote.DOWN)
    await memory.ask("a pending question?", "never rated", scope=CHANNEL)

    await Consolidator(store, summarizer, lookback=timedelta(days=1)).consolidate(now=A_DAY_LATER)

    [batch] = summarizer.batches
    assert {episode.question for episode in batch} == {"deploy billing?", "restart search?"}
    assert all(episode.status is not EpisodeStatus.PENDING for episode in batch)


async def test_input_and_output_are_bounded(
    store: MemoryStore, memory: Memory, summarizer: EchoSummarizer
) -> None:
    for number in range(5):
        await memory.answered(f"question {number}?", "answer", scope=CHANNEL, vote=Vote.UP)
    summarizer.reply = [
        "   ",
        "Keep   answers\nshort.",
        "Keep answers short.",
        "word " * 40,
        "",
        "Use the staging cluster.",
        "One note too many.",
    ]
    consolidator = Consolidator(
        store,
        summarizer,
        lookback=timedelta(days=1),
        max_episodes_per_scope=3,
        max_notes=3,
        max_note_chars=50,
    )

    report = await consolidator.consolidate(now=A_DAY_LATER)

    [batch] = summarizer.batches
    assert [episode.question for episode in batch] == ["question 4?", "question 3?", "question 2?"]
    notes = await texts(store, CHANNEL, "U1")
    assert report.notes == 3
    assert notes[0] == "Keep answers short."
    assert notes[1].endswith("…") and len(notes[1]) <= 50
    assert notes[2] == "Use the staging cluster."


async def test_notes_never_cross_scopes_or_people(
    store: MemoryStore, memory: Memory, summarizer: EchoSummarizer
) -> None:
    await memory.answered("channel question?", "a", scope=CHANNEL, vote=Vote.UP)
    await memory.answered("dm question?", "a", scope=DM, vote=Vote.DOWN)
    await memory.answered("someone else's question?", "a", scope=CHANNEL, user="U2", vote=Vote.UP)

    report = await Consolidator(store, summarizer, lookback=timedelta(days=1)).consolidate(
        now=A_DAY_LATER
    )

    assert report.scopes == 3
    assert await texts(store, CHANNEL, "U1") == ["About channel question?"]
    assert await texts(store, DM, "U1") == ["About dm question?"]
    assert await texts(store, CHANNEL, "U2") == ["About someone else's question?"]
    assert await texts(store, DM, "U2") == []


async def test_scopes_without_recent_validations_are_left_alone(
    store: MemoryStore, memory: Memory, summarizer: EchoSummarizer
) -> None:
    await memory.answered("deploy billing?", "make deploy", scope=CHANNEL, vote=Vote.UP)
    consolidator = Consolidator(store, summarizer, lookback=timedelta(days=1))
    await consolidator.consolidate(now=A_DAY_LATER)

    summarizer.reply = ["Something new."]
    report = await consolidator.consolidate(now=T0 + timedelta(days=3))

    assert (report.scopes, report.notes) == (0, 0)
    assert len(summarizer.batches) == 1
    assert await texts(store, CHANNEL, "U1") == ["About deploy billing?"]


@pytest.mark.parametrize("reply", [None, [], ["", "  \n "]])
async def test_a_failed_or_empty_summary_keeps_the_previous_notes(
    store: MemoryStore,
    memory: Memory,
    summarizer: EchoSummarizer,
    reply: list[str] | None,
) -> None:
    await memory.answered("deploy billing?", "make deploy", scope=CHANNEL, vote=Vote.UP)
    consolidator = Consolidator(store, summarizer, lookback=timedelta(days=1))
    await consolidator.consolidate(now=A_DAY_LATER)

    summarizer.failing = reply is None
    summarizer.reply = reply
    report = await consolidator.consolidate(now=A_DAY_LATER)

    assert (report.scopes, report.skipped) == (0, 1)
    assert await texts(store, CHANNEL, "U1") == ["About deploy billing?"]
