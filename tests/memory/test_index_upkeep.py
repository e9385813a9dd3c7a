"""The full-text index's upkeep: merging its segments changes nothing recall or erasure
see, and leaves a store that grew one vote at a time with one segment, not one per vote."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from memory_helpers import DM, T0, Memory
from sqlite_utils.utils import sqlite3

from memory import EpisodeStatus, ImportedEpisode, MemoryStore

WORDS = ["deploy", "backup", "invoice", "rollback", "holiday", "printer", "laptop", "badge"]


def segments(db_path: Path) -> int:
    with sqlite3.connect(db_path) as db:
        return db.execute("SELECT count(DISTINCT segid) FROM episodes_fts_idx").fetchone()[0]


async def _grown_one_vote_at_a_time(memory: Memory, count: int) -> None:
    """Each vote filed before the next, as votes that come apart are (a recall in the
    conversation files what waits at once)."""
    for index in range(count):
        word = WORDS[index % len(WORDS)]
        await memory.answered(
            f"How do I fix the {word} problem number {index}?",
            f"Restart the {word} service, then check entry {index}.",
            at=T0 + timedelta(minutes=index),
        )
        await memory.recall(word)


async def _tidy(store: MemoryStore) -> int:
    steps = 1
    while await store.tidy_index():
        steps += 1
        assert steps < 1000, "the upkeep never finishes"
    return steps


async def _recalled(memory: Memory) -> dict[str, list[int]]:
    return {word: [r.episode.id for r in await memory.recall(word, limit=40)] for word in WORDS}


async def test_tidying_merges_the_segments_and_recall_sees_the_same(
    memory: Memory, db_path: Path
) -> None:
    await _grown_one_vote_at_a_time(memory, 40)
    before = await _recalled(memory)
    assert all(len(ids) >= 5 for ids in before.values())
    assert segments(db_path) > 4

    await _tidy(memory.store)

    assert segments(db_path) == 1
    assert await _recalled(memory) == before
    assert not await memory.store.tidy_index()  # nothing left to do


async def test_upkeep_finishes_on_every_backend_and_changes_no_answer(memory: Memory) -> None:
    await _grown_one_vote_at_a_time(memory, 12)
    before = await _recalled(memory)

    await _tidy(memory.store)

    assert await _recalled(memory) == before


async def test_a_forget_after_tidying_and_during_a_merge_leaves_the_others(
    memory: Memory, db_path: Path
) -> None:
    await _grown_one_vote_at_a_time(memory, 24)
    for index in range(24):
        await memory.answered(
            f"Where is the {WORDS[index % len(WORDS)]} form {index}?",
            "In the wiki.",
            user="U2",
            at=T0 + timedelta(minutes=index),
        )
    # a merge under way: one step of it, as the periodic upkeep leaves it between two
    assert await memory.store.tidy_index()
    await memory.store.forget_user("U2")
    await _tidy(memory.store)

    assert all(len(ids) >= 3 for ids in (await _recalled(memory)).values())
    assert await memory.recall("form", user="U2") == []
    with sqlite3.connect(db_path) as db:
        db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('integrity-check', 0)")


async def test_a_few_new_entries_do_not_get_the_large_segment_rewritten(
    memory: Memory, db_path: Path
) -> None:
    """The upkeep merges everything into one segment only once the rest is worth it."""
    for half in range(2):  # two large segments, merged into one by the upkeep
        await memory.store.import_episodes(
            [
                ImportedEpisode(
                    scope=DM,
                    requester_id="U1",
                    question=f"What is the {WORDS[index % len(WORDS)]} code {index}?",
                    answer=f"It is code {index} in the {index % 97} handbook, page {index % 13}.",
                    status=EpisodeStatus.SUCCESS,
                    created_at=T0,
                    validated_at=T0,
                )
                for index in range(half * 2000, half * 2000 + 2000)
            ]
        )
    await _tidy(memory.store)
    assert segments(db_path) == 1

    await _grown_one_vote_at_a_time(memory, 1)
    await _tidy(memory.store)
    assert segments(db_path) == 2

    for index in range(40):  # votes on long answers: enough new entries to merge them all
        await memory.answered(
            f"Which serial numbers are on shelf {index}?",
            " ".join(f"serial{index}x{item}" for item in range(60)),
            at=T0 + timedelta(minutes=index),
        )
        await memory.recall("serial numbers")  # filed vote by vote, as votes apart are
    await _tidy(memory.store)
    assert segments(db_path) == 1
