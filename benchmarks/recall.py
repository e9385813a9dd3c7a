"""``recall_p50_ms``, ``recall_p99_ms``, ``recall_growth``: recall cost as the store grows.

One person's top-5 recall, through the public :meth:`memory.MemoryStore.recall` (the
database thread hop included), in a store of 1M episodes across 10k people (``--quick``:
100k across 1k), and in a store of 10k episodes where the same person has the same 100
episodes, each question in one store right after the other. Growth is the ratio of the
two p99s: how much other people's data costs one person's recall. The whole measurement is
repeated :data:`ROUNDS` times (once with ``--quick``) and each figure is the median of the
rounds; the detail gives each store's full-text index segments (recall looks a term up in
every one of them).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path

from pydantic import BaseModel

from benchmarks.corpus import Corpus
from benchmarks.harness import Figure, Target, percentile
from benchmarks.stores import (
    EPISODES_PER_USER,
    MEASURED_USER,
    NOW,
    cached_store,
    dm_scope,
    scalar,
)
from memory import MemoryConfig, MemoryStore, RecallRequest, open_store

__all__ = ["FIGURES", "NAME", "Measured", "index_segments", "measure_recall", "queries", "run"]

NAME = "recall"
FIGURES = ("episodes", "recall_p50_ms", "recall_p99_ms", "recall_growth")

FULL_EPISODES = 1_000_000
QUICK_EPISODES = 100_000
SMALL_EPISODES = 10_000
QUERY_SEED = 13
WARM_UP = 50
ROUNDS = 5


def queries(count: int) -> list[RecallRequest]:
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


class Measured(BaseModel):
    """Milliseconds of each recall in each store, and how many found something."""

    large: list[float]
    small: list[float]
    found: int


async def _timed_recall(store: MemoryStore, request: RecallRequest) -> tuple[float, bool]:
    started = time.perf_counter()
    recalled = await store.recall(request)
    return (time.perf_counter() - started) * 1000, bool(recalled)


async def measure_recall(
    large: str | Path, small: str | Path, asked: list[RecallRequest]
) -> Measured:
    """Each question recalled in the large store, then at once in the small one, so that
    whatever else the machine is doing slows both alike."""
    stores = [await open_store(str(path), MemoryConfig()) for path in (large, small)]
    try:
        for request in asked[:WARM_UP]:
            for store in stores:
                await store.recall(request)
        measured = Measured(large=[], small=[], found=0)
        for request in asked:
            elapsed, found = await _timed_recall(stores[0], request)
            measured.large.append(elapsed)
            measured.found += found
            measured.small.append((await _timed_recall(stores[1], request))[0])
        return measured
    finally:
        for store in stores:
            await store.close()


def index_segments(path: Path) -> int:
    """How many segments the store's full-text index has now."""
    return scalar(path, "SELECT count(DISTINCT segid) FROM episodes_fts_idx")


def run(quick: bool) -> list[Figure]:
    total = QUICK_EPISODES if quick else FULL_EPISODES
    config = MemoryConfig()
    big, built_big = cached_store(total, config)
    small, built_small = cached_store(SMALL_EPISODES, config)
    asked = queries(500 if quick else 2000)
    rounds = [asyncio.run(measure_recall(big, small, asked)) for _ in range(1 if quick else ROUNDS)]
    measured = rounds[0]
    p99s = [percentile(r.large, 0.99) for r in rounds]
    p99_big = statistics.median(p99s)
    p99_small = statistics.median(percentile(r.small, 0.99) for r in rounds)
    growth = statistics.median(
        percentile(r.large, 0.99) / percentile(r.small, 0.99) for r in rounds
    )
    segments = f"index segments {index_segments(big)} and {index_segments(small)}"
    built = "built now" if built_big or built_small else "cached"
    people = total // EPISODES_PER_USER
    return [
        Figure(
            name="episodes",
            value=total,
            unit="episodes",
            detail=f"{people} people, {'--quick size' if quick else 'full size'}, stores {built};"
            f" {segments}",
        ),
        Figure(
            name="recall_p50_ms",
            value=percentile(measured.large, 0.5),
            unit="ms",
            detail=f"{len(asked)} top-5 recalls, {measured.found} found episodes;"
            f" p50 {percentile(measured.small, 0.5):.2f} ms at {SMALL_EPISODES} episodes"
            " (first round)",
        ),
        Figure(
            name="recall_p99_ms",
            value=p99_big,
            unit="ms",
            detail=f"median of {len(rounds)} rounds: " + ", ".join(f"{p:.2f}" for p in p99s),
            target=Target.at_most(5),
        ),
        Figure(
            name="recall_growth",
            value=growth,
            unit="ratio",
            detail=f"median of {len(rounds)} rounds; p99 {p99_big:.2f} ms at {total},"
            f" baseline {p99_small:.2f} ms at {SMALL_EPISODES} episodes",
            target=Target.at_most(1.3),
        ),
    ]
