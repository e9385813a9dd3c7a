"""``episodes_per_second_ingest`` and ``db_mb_per_million_episodes``, for capacity planning.

Ingest is what one validated episode costs through the public verbs, as the bot pays it:
:meth:`~memory.MemoryStore.record_exchange` then :meth:`~memory.MemoryStore.apply_vote`,
one after the other, each its own transaction, into a copy of the recall benchmark's
large store (where a busy bot's store ends up), with the rate into an empty store beside
it. The size is that large store's (same rows and index as the public verbs write, see
:mod:`benchmarks.stores`) in megabytes (10^6 bytes) per million episodes, next to the
text it holds. And how long ``forget_user`` of one person takes in that store once the
hourly upkeep has merged what the ingest wrote, with the recalls and votes running
meanwhile (:mod:`benchmarks.forget_load`): the median of :data:`FORGET_ROUNDS` people.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

from benchmarks.forget_load import forget_under_load
from benchmarks.harness import BENCH_DIR, Figure, Target
from benchmarks.recall import FULL_EPISODES, QUICK_EPISODES, index_segments
from benchmarks.stores import cached_store, ingest_per_second, scalar, user_id
from memory import MemoryConfig, open_store

__all__ = ["FIGURES", "NAME", "run"]

NAME = "ingest"
FIGURES = ("episodes_per_second_ingest", "db_mb_per_million_episodes", "forget_user_seconds")
FORGET_ROUNDS = 5
"""People forgotten one after the other; the figure is the median (one erasure on a shared
machine varies by a factor of two)."""
TEXT_BYTES_SQL = "SELECT sum(length(question) + length(answer)) FROM episodes"
"""The questions and answers the store holds: its raw material."""


async def _tidy(path: Path) -> None:
    """The index's upkeep, as the bot runs it every hour (``bot.composition``)."""
    store = await open_store(str(path), MemoryConfig())
    try:
        while await store.tidy_index():
            pass
    finally:
        await store.close()


def run(quick: bool) -> list[Figure]:
    count = 2_000 if quick else 20_000
    total = QUICK_EPISODES if quick else FULL_EPISODES
    path, _ = cached_store(total, MemoryConfig())
    size = path.stat().st_size
    text = scalar(path, TEXT_BYTES_SQL)
    with tempfile.TemporaryDirectory(prefix="bench-ingest-", dir=BENCH_DIR) as directory:
        empty = asyncio.run(
            ingest_per_second(str(Path(directory) / "empty.db"), count, first_ts=1_800_000_000)
        )
        grown = Path(directory) / "grown.db"
        shutil.copyfile(path, grown)
        into_large = asyncio.run(ingest_per_second(str(grown), count, first_ts=1_800_000_000))
        segments = (index_segments(path), index_segments(grown))
        asyncio.run(_tidy(grown))
        segments += (index_segments(grown),)
        rounds = sorted(
            (
                asyncio.run(forget_under_load(grown, user_id(person), turn=person))
                for person in range(1, FORGET_ROUNDS + 1)
            ),
            key=lambda forgetting: forgetting.forget_ms,
        )
        forgetting = rounds[len(rounds) // 2]
    return [
        Figure(
            name="episodes_per_second_ingest",
            value=into_large,
            unit="episodes/s",
            detail=f"record_exchange + apply_vote, {count} episodes into a copy of the"
            f" {total}-episode store; {empty:.0f}/s into an empty store",
        ),
        Figure(
            name="db_mb_per_million_episodes",
            value=size / total * 1_000_000 / 1e6,
            unit="MB",
            detail=f"{size / 1e6:.0f} MB for {total} validated episodes, whose question and"
            f" answer text is {text / total * 1_000_000 / 1e6:.0f} MB per million",
            target=Target.at_most(1200),
        ),
        Figure(
            name="forget_user_seconds",
            value=forgetting.forget_ms / 1000,
            unit="s",
            detail=f"/forget of one person ({forgetting.erased} rows) in a copy of the"
            f" {total}-episode store, median of {FORGET_ROUNDS} people forgotten one after"
            f" the other ({', '.join(f'{r.forget_ms / 1000:.2f}' for r in rounds)} s);"
            f" in the median one {forgetting.line('recalls')};"
            f" {forgetting.line('votes')}; index segments {segments[0]} as built,"
            f" {segments[1]} after the ingest, {segments[2]} after the upkeep that follows it",
            target=Target.at_most(0.5),
        ),
    ]
