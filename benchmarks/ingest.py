"""``episodes_per_second_ingest`` and ``db_mb_per_million_episodes``, for capacity planning.

Ingest is what one validated episode costs through the public verbs, as the bot pays it:
:meth:`~memory.MemoryStore.record_exchange` then :meth:`~memory.MemoryStore.apply_vote`,
one after the other, each its own transaction, into a fresh store. The size is the
recall benchmark's large store (same rows and index as the public verbs write, see
:mod:`benchmarks.stores`) in megabytes (10^6 bytes) per million episodes.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Figure
from benchmarks.recall import FULL_EPISODES, QUICK_EPISODES
from benchmarks.stores import cached_store, exchanges
from memory import MemoryConfig, open_store

__all__ = ["FIGURES", "NAME", "run"]

NAME = "ingest"
FIGURES = ("episodes_per_second_ingest", "db_mb_per_million_episodes")


async def _ingest_per_second(count: int) -> float:
    population = list(exchanges(count))
    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as directory:
        store = await open_store(str(Path(directory) / "bot.db"), MemoryConfig())
        try:
            started = time.perf_counter()
            for exchange, vote in population:
                await store.record_exchange(exchange)
                await store.apply_vote(vote)
            return count / (time.perf_counter() - started)
        finally:
            await store.close()


def run(quick: bool) -> list[Figure]:
    count = 2_000 if quick else 20_000
    per_second = asyncio.run(_ingest_per_second(count))
    total = QUICK_EPISODES if quick else FULL_EPISODES
    path, _ = cached_store(total, MemoryConfig())
    size = path.stat().st_size
    return [
        Figure(
            name="episodes_per_second_ingest",
            value=per_second,
            unit="episodes/s",
            detail=f"record_exchange + apply_vote, {count} episodes into a fresh store",
        ),
        Figure(
            name="db_mb_per_million_episodes",
            value=size / total * 1_000_000 / 1e6,
            unit="MB",
            detail=f"{size / 1e6:.0f} MB for {total} validated episodes",
        ),
    ]
