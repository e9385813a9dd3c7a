"""The storage figures on both backends side by side: SQLite (one file) and PostgreSQL.

Each store grows the way production does, through the public verbs, one exchange and one
vote per transaction (``record_exchange`` then ``apply_vote``), from the same population
(:func:`benchmarks.stores.exchanges`). Then, in each: the rate of that ingest, the size on
disk per million episodes (SQLite: the file after a checkpoint; PostgreSQL: every table,
index and TOAST relation of the store's schema, ``pg_total_relation_size``), the p99 of
recalls of the measured person, and how long ``/forget`` takes (the median of
:data:`FORGOTTEN` people forgotten one after the other, the measured person first).

Sizes are small (1,000 episodes quick, 20,000 full): these figures compare the backends
at equal size, not at a million episodes (see ``recall`` and ``ingest`` for those).
PostgreSQL is the server of :mod:`tests.support.postgres_scratch` (``TEST_POSTGRES_URL``), in a
schema of its own, dropped afterwards, with ``synchronous_commit`` off as in the tests: a
commit does not wait for the disk, as SQLite's in WAL mode with ``synchronous=NORMAL``
does not either (both lose nothing when the bot's process dies). At these sizes the
per-million figures include each backend's fixed cost of empty tables and indexes.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import psycopg

from benchmarks.harness import BENCH_DIR, Figure, percentile
from benchmarks.stores import MEASURED_USER, NOW, dm_scope, exchanges, user_id
from memory import MemoryConfig, MemoryStore, RecallRequest, open_store
from tests.support.postgres_scratch import scratch_schema

__all__ = ["FIGURES", "NAME", "run"]

NAME = "backends"
BACKENDS = ("sqlite", "postgres")
FIGURES = tuple(
    f"{figure}_{backend}"
    for backend in BACKENDS
    for figure in ("ingest_per_second", "mb_per_million_episodes", "recall_p99_ms", "forget_ms")
)
RECALLS = 200
FORGOTTEN = 5

Sized = Callable[[], int]
"""The store's size on disk in bytes, measured after the store is closed."""


@asynccontextmanager
async def _sqlite() -> AsyncIterator[tuple[str, Sized]]:
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-backends-", dir=BENCH_DIR) as directory:
        path = Path(directory) / "bot.db"
        yield str(path), lambda: path.stat().st_size


@asynccontextmanager
async def _postgres() -> AsyncIterator[tuple[str, Sized]]:
    async with scratch_schema() as url:

        def size() -> int:
            with psycopg.connect(url) as conn:
                row = conn.execute(
                    "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
                    " JOIN pg_namespace n ON n.oid = c.relnamespace"
                    " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')"
                ).fetchone()
            return int(row[0]) if row else 0

        yield url, size


_PLACES: dict[str, Callable[[], AbstractAsyncContextManager[tuple[str, Sized]]]] = {
    "sqlite": _sqlite,
    "postgres": _postgres,
}


async def _grow(store: MemoryStore, total: int) -> float:
    """Episodes per second, each exchange and its vote in transactions of their own."""
    started = time.perf_counter()
    for exchange, vote in exchanges(total):
        await store.record_exchange(exchange)
        await store.apply_vote(vote)
    return total / (time.perf_counter() - started)


async def _recall_p99_ms(store: MemoryStore) -> float:
    questions = [exchange.question for exchange, _ in exchanges(RECALLS)]
    samples = []
    for question in questions:
        request = RecallRequest(
            scope=dm_scope(MEASURED_USER), requester_id=MEASURED_USER, text=question, now=NOW
        )
        started = time.perf_counter()
        await store.recall(request)
        samples.append((time.perf_counter() - started) * 1000)
    return percentile(samples, 0.99)


async def _forget_ms(store: MemoryStore, person: str) -> tuple[float, int]:
    """Milliseconds ``/forget`` of the person took, and how many rows it erased."""
    started = time.perf_counter()
    report = await store.forget_user(person)
    return (time.perf_counter() - started) * 1000, report.total


async def _measure(backend: str, total: int) -> list[Figure]:
    async with _PLACES[backend]() as (url, size):
        store = await open_store(url, MemoryConfig())
        try:
            rate = await _grow(store, total)
        finally:
            await store.close()
        grown = await asyncio.to_thread(size)
        store = await open_store(url, MemoryConfig())
        try:
            recall_ms = await _recall_p99_ms(store)
            forgets = [await _forget_ms(store, user_id(index)) for index in range(FORGOTTEN)]
        finally:
            await store.close()
    where = f"{total} episodes grown one exchange and one vote per transaction"
    return [
        Figure(name=f"ingest_per_second_{backend}", value=rate, unit="episodes/s", detail=where),
        Figure(
            name=f"mb_per_million_episodes_{backend}",
            value=grown / total,
            unit="MB",
            detail=f"{grown / 1e6:.1f} MB for {total} episodes",
        ),
        Figure(
            name=f"recall_p99_ms_{backend}",
            value=recall_ms,
            unit="ms",
            detail=f"{RECALLS} recalls of one person's DM in the {total}-episode store",
        ),
        Figure(
            name=f"forget_ms_{backend}",
            value=statistics.median(ms for ms, _ in forgets),
            unit="ms",
            detail=f"/forget of one person in the {total}-episode store, median of {FORGOTTEN}"
            " people forgotten one after the other ("
            + ", ".join(f"{ms:.1f} ms for {rows} rows" for ms, rows in forgets)
            + ")",
        ),
    ]


def run(quick: bool) -> list[Figure]:
    total = 1_000 if quick else 20_000
    return [figure for backend in BACKENDS for figure in asyncio.run(_measure(backend, total))]
