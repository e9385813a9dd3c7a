"""``recall_p50_ms``, ``recall_p99_ms``, ``recall_growth``: recall cost as the store grows.

One person's top-5 recall, through the public :meth:`memory.MemoryStore.recall` (the
database thread hop included), in a store of 1M episodes across 10k people (``--quick``:
100k across 1k), then in a store of 10k episodes where the same person has the same 100
episodes. Growth is the ratio of the two p99s: how much other people's data costs one
person's recall.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from benchmarks.corpus import Corpus
from benchmarks.harness import Comparison, Figure, Target, percentile
from benchmarks.stores import EPISODES_PER_USER, MEASURED_USER, NOW, cached_store, dm_scope
from memory import MemoryConfig, RecallRequest, open_store

__all__ = ["FIGURES", "NAME", "measure_recall", "run"]

NAME = "recall"
FIGURES = ("episodes", "recall_p50_ms", "recall_p99_ms", "recall_growth")

FULL_EPISODES = 1_000_000
QUICK_EPISODES = 100_000
SMALL_EPISODES = 10_000
QUERY_SEED = 13
WARM_UP = 50


def _queries(count: int) -> list[RecallRequest]:
    corpus = Corpus(QUERY_SEED)
    return [
        RecallRequest(
            scope=dm_scope(MEASURED_USER),
            requester_id=MEASURED_USER,
            text=corpus.question(),
            limit=5,
            now=NOW,
        )
        for _ in range(count)
    ]


async def measure_recall(path: Path, queries: list[RecallRequest]) -> tuple[list[float], int]:
    """Milliseconds of each recall, and how many of them found something."""
    store = await open_store(str(path), MemoryConfig())
    try:
        for request in queries[:WARM_UP]:
            await store.recall(request)
        samples: list[float] = []
        found = 0
        for request in queries:
            started = time.perf_counter()
            recalled = await store.recall(request)
            samples.append((time.perf_counter() - started) * 1000)
            found += bool(recalled)
        return samples, found
    finally:
        await store.close()


def run(quick: bool) -> list[Figure]:
    total = QUICK_EPISODES if quick else FULL_EPISODES
    config = MemoryConfig()
    big, built_big = cached_store(total, config)
    small, built_small = cached_store(SMALL_EPISODES, config)
    queries = _queries(500 if quick else 2000)
    big_samples, found = asyncio.run(measure_recall(big, queries))
    small_samples, _ = asyncio.run(measure_recall(small, queries))
    p99_big = percentile(big_samples, 0.99)
    p99_small = percentile(small_samples, 0.99)
    built = "built now" if built_big or built_small else "cached"
    people = total // EPISODES_PER_USER
    return [
        Figure(
            name="episodes",
            value=total,
            unit="episodes",
            detail=f"{people} people, {'--quick size' if quick else 'full size'}, stores {built}",
        ),
        Figure(
            name="recall_p50_ms",
            value=percentile(big_samples, 0.5),
            unit="ms",
            detail=f"{len(queries)} top-5 recalls, {found} found episodes",
        ),
        Figure(
            name="recall_p99_ms",
            value=p99_big,
            unit="ms",
            target=Target(comparison=Comparison.AT_MOST, bound=5),
        ),
        Figure(
            name="recall_growth",
            value=p99_big / p99_small,
            unit="ratio",
            detail=f"p99 {p99_big:.2f} ms at {total}, baseline {p99_small:.2f} ms at"
            f" {SMALL_EPISODES} episodes",
            target=Target(comparison=Comparison.AT_MOST, bound=1.5),
        ),
    ]
