"""``episodes_per_second_ingest`` and ``db_mb_per_million_episodes``, for capacity planning.

Ingest is what one validated episode costs through the public verbs, as the bot pays it:
:meth:`~memory.MemoryStore.record_exchange` then :meth:`~memory.MemoryStore.apply_vote`,
one after the other, each its own transaction, into a copy of the recall benchmark's
large store (where a busy bot's store ends up), with the rate into an empty store beside
it. The size is that large store's (same rows and index as the public verbs write, see
:mod:`benchmarks.stores`) in megabytes (10^6 bytes) per million episodes. And since
forgetting rewrites the full-text index (so no old segment keeps deleted text), how long
``forget_user`` of one person takes in that store.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks.harness import BENCH_DIR, Figure
from benchmarks.recall import FULL_EPISODES, QUICK_EPISODES
from benchmarks.stores import cached_store, exchanges, user_id
from memory import MemoryConfig, NewExchange, VoteEvent, open_store

__all__ = ["FIGURES", "NAME", "run"]

NAME = "ingest"
FIGURES = ("episodes_per_second_ingest", "db_mb_per_million_episodes", "forget_user_seconds")


def _newcomers(count: int) -> list[tuple[NewExchange, VoteEvent]]:
    """Exchanges like the population's, on messages no store of theirs has seen yet."""
    pairs = []
    for index, (exchange, vote) in enumerate(exchanges(count)):
        ts = f"{1_800_000_000 + index}.000300"
        pairs.append(
            (
                exchange.model_copy(update={"message_ts": [ts]}),
                vote.model_copy(update={"message_ts": ts}),
            )
        )
    return pairs


async def _ingest_per_second(path: Path, count: int) -> float:
    population = _newcomers(count)
    store = await open_store(str(path), MemoryConfig())
    try:
        started = time.perf_counter()
        for exchange, vote in population:
            await store.record_exchange(exchange)
            await store.apply_vote(vote)
        return count / (time.perf_counter() - started)
    finally:
        await store.close()


async def _forget_seconds(path: Path, user: str) -> tuple[float, int]:
    """How long ``/forget`` of one person takes in the store at ``path``, and how many
    rows it erased."""
    store = await open_store(str(path), MemoryConfig())
    try:
        started = time.perf_counter()
        report = await store.forget_user(user)
        return time.perf_counter() - started, report.total
    finally:
        await store.close()


def run(quick: bool) -> list[Figure]:
    count = 2_000 if quick else 20_000
    total = QUICK_EPISODES if quick else FULL_EPISODES
    path, _ = cached_store(total, MemoryConfig())
    size = path.stat().st_size
    with tempfile.TemporaryDirectory(prefix="bench-ingest-", dir=BENCH_DIR) as directory:
        empty = asyncio.run(_ingest_per_second(Path(directory) / "empty.db", count))
        grown = Path(directory) / "grown.db"
        shutil.copyfile(path, grown)
        into_large = asyncio.run(_ingest_per_second(grown, count))
        forget_seconds, erased = asyncio.run(_forget_seconds(grown, user_id(1)))
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
            detail=f"{size / 1e6:.0f} MB for {total} validated episodes",
        ),
        Figure(
            name="forget_user_seconds",
            value=forget_seconds,
            unit="s",
            detail=f"/forget of one person ({erased} rows) in the {total}-episode store;"
            " the database thread is busy, so memory waits, meanwhile",
        ),
    ]
