"""Round trips to PostgreSQL an ingested episode and a recall take: the load-independent
half of the backends benchmark's ingest and recall times.

On a busy machine each round trip to the server took 1.5 to 2.5 ms however little it
carried (the wait for a core at both ends), so the number of them is what the bot's own
code decides. The population's first half is written through the public verbs
(:meth:`memory.MemoryStore.record_exchange`, then :meth:`memory.MemoryStore.apply_vote`,
as the ingest figure does), then the second half counted; then the recall benchmark's
questions are recalled from the measured person's DM.

A round trip is a wait of the client for the server, counted in psycopg: a statement
outside pipeline mode, and in pipeline mode each sync, each read of results that have not
come yet, and the end of the pipeline (which carries a unit of work's ``COMMIT``).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from typing import Any

from psycopg import AsyncCursor
from psycopg._connection_base import BaseConnection
from psycopg._pipeline_base import BasePipeline

from benchmarks.harness import Figure
from benchmarks.recall import queries
from benchmarks.stores import exchanges
from memory import MemoryConfig, open_store
from tests.support.postgres_scratch import scratch_schema

__all__ = ["FIGURES", "NAME", "run"]

NAME = "round_trips"
FIGURES = (
    "round_trips_per_episode_postgres",
    "round_trips_per_recall_postgres",
    "statements_per_episode_postgres",
)

POPULATION = 1_000
"""Exchanges written: 10 people of 100 (the measured person's DM holds 100 of them)."""
RECALLS = 100


@contextmanager
def _counting() -> Iterator[Counter[str]]:
    """Counts of ``statements`` sent and ``trips`` waited for, while the ``with`` lasts."""
    count: Counter[str] = Counter()
    execute, executemany = AsyncCursor.execute, AsyncCursor.executemany
    fetch, command = AsyncCursor._fetch_pipeline, BaseConnection._exec_command
    sync, end = BasePipeline._sync_gen, BasePipeline._exit_gen

    async def counted_execute(self: AsyncCursor[Any], query: Any, *args: Any, **kw: Any) -> Any:
        count["statements"] += 1
        count["trips"] += not self._conn._pipeline
        return await execute(self, query, *args, **kw)

    async def counted_executemany(self: AsyncCursor[Any], query: Any, rows: Any, **kw: Any) -> Any:
        rows = list(rows)
        count["statements"] += len(rows)
        return await executemany(self, query, rows, **kw)

    async def counted_fetch(self: AsyncCursor[Any]) -> None:
        waits = self._execmany_returning is not False and not self.pgresult
        count["trips"] += bool(waits and self._conn._pipeline)
        await fetch(self)

    def counted_command(self: BaseConnection[Any], *args: Any, **kw: Any) -> Generator[Any]:
        count["statements"] += 1
        count["trips"] += not self._pipeline
        return (yield from command(self, *args, **kw))

    def counted_sync(self: BasePipeline) -> Generator[Any]:
        count["trips"] += 1
        return (yield from sync(self))

    def counted_end(self: BasePipeline) -> Generator[Any]:
        count["trips"] += 1
        return (yield from end(self))

    patches = {
        (AsyncCursor, "execute"): counted_execute,
        (AsyncCursor, "executemany"): counted_executemany,
        (AsyncCursor, "_fetch_pipeline"): counted_fetch,
        (BaseConnection, "_exec_command"): counted_command,
        (BasePipeline, "_sync_gen"): counted_sync,
        (BasePipeline, "_exit_gen"): counted_end,
    }
    originals = {key: getattr(*key) for key in patches}
    for (owner, name), patch in patches.items():
        setattr(owner, name, patch)
    try:
        yield count
    finally:
        for (owner, name), original in originals.items():
            setattr(owner, name, original)


async def _measure() -> tuple[Counter[str], Counter[str], int]:
    """What the second half of the population's exchanges and votes cost, what the
    recalls cost, and how many exchanges were counted."""
    population = list(exchanges(POPULATION))
    counted = population[POPULATION // 2 :]
    async with scratch_schema() as url:
        store = await open_store(url, MemoryConfig())
        try:
            for exchange, vote in population[: POPULATION // 2]:
                await store.record_exchange(exchange)
                await store.apply_vote(vote)
            with _counting() as ingest:
                for exchange, vote in counted:
                    await store.record_exchange(exchange)
                    await store.apply_vote(vote)
            with _counting() as recall:
                for request in queries(RECALLS):
                    await store.recall(request)
        finally:
            await store.close()
    return ingest, recall, len(counted)


def run(quick: bool) -> list[Figure]:
    ingest, recall, episodes = asyncio.run(_measure())
    written = f"{episodes} exchanges and their votes through the public verbs"
    return [
        Figure(
            name="round_trips_per_episode_postgres",
            value=ingest["trips"] / episodes,
            unit="round trips",
            detail=written,
        ),
        Figure(
            name="statements_per_episode_postgres",
            value=ingest["statements"] / episodes,
            unit="statements",
            detail=f"{written}, BEGIN and COMMIT included",
        ),
        Figure(
            name="round_trips_per_recall_postgres",
            value=recall["trips"] / RECALLS,
            unit="round trips",
            detail=f"{RECALLS} top-5 recalls of one person's DM of 100 episodes,"
            f" {recall['statements'] / RECALLS:.2f} statements each",
        ),
    ]
