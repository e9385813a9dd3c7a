"""The storage and recall figures of both backends side by side, at full size: SQLite (one
file) and PostgreSQL.

The stores hold the population of :mod:`benchmarks.stores`. SQLite's is the recall
benchmark's (:func:`benchmarks.stores.cached_store`: memory's own write path, the last
50,000 exchanges one vote at a time, with the hourly upkeep). PostgreSQL's holds the same
episodes written by the bulk import verb (:meth:`memory.MemoryStore.import_episodes`, which
writes by ``COPY``; :data:`IMPORT_BATCH` a transaction, :data:`IMPORTERS` at once), each
validated as its vote would have, so it has no vote or ledger rows; then ``VACUUM
ANALYZE``, as autovacuum would run after such a load. Both are built once and cached:
SQLite's as a file, PostgreSQL's as a database of the server of
:mod:`tests.support.postgres_scratch` (``TEST_POSTGRES_URL``), named by the population
(its layout version and size) and a digest of the schema and of the rows the import writes
(:func:`_fingerprint`), which each run copies (``CREATE DATABASE ... TEMPLATE``)
under a name of its own and drops afterwards, so runs at once do not collide.

In each copy, in this order: the size on disk per million episodes (SQLite: the file;
PostgreSQL: every table, index and TOAST relation, ``pg_total_relation_size``); the p99 of
top-5 recalls of the measured person, each asked in the large store and then at once in a
:data:`SMALL`-episode one, whose ratio is the growth (median of the rounds'); the rate of
:data:`INGESTED` new exchanges and their votes through the public verbs
(``record_exchange`` then ``apply_vote``, one transaction each, as the bot writes them),
one conversation after the other, then :data:`INGESTED` more with :data:`CONVERSATIONS`
conversations at once on one event loop, as the bot's requests arrive, and what both added
to the size, per million; and how long ``/forget`` takes (the median of :data:`FORGOTTEN`
people forgotten one after the other, the measured person first).

PostgreSQL's connections run with ``synchronous_commit`` off, as in the tests: a commit does
not wait for the disk, as SQLite's in WAL mode with ``synchronous=NORMAL`` does not either
(both lose nothing when the bot's process dies).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from urllib.parse import quote, urlsplit

import psycopg
from psycopg import sql
from pydantic import BaseModel

from benchmarks.harness import BENCH_DIR, Figure, Target, percentile
from benchmarks.recall import FULL_EPISODES, QUICK_EPISODES, measure_recall, queries
from benchmarks.stores import (
    LAYOUT_VERSION,
    cached_store,
    exchanges,
    ingest_per_second,
    user_id,
)
from memory import EpisodeStatus, ImportedEpisode, MemoryConfig, NewExchange, VoteEvent, open_store
from tests.support.postgres_scratch import admin_url, scratch_schema

__all__ = ["FIGURES", "NAME", "run"]

NAME = "backends"
BACKENDS = ("sqlite", "postgres")
FIGURES = tuple(
    f"{figure}_{backend}"
    for backend in BACKENDS
    for figure in (
        "ingest_per_second",
        "ingest_concurrent_per_second",
        "mb_per_million_episodes",
        "recall_p99_ms",
        "recall_growth",
        "forget_ms",
    )
)
SMALL = 10_000
INGESTED = 2_000
"""New exchanges grown through the public verbs one conversation after the other, and as
many again with :data:`CONVERSATIONS` at once (a tenth of them with ``--quick``)."""
CONVERSATIONS = 16
"""Conversations written at once: in production each person's exchange and vote are
requests of their own, served together on the bot's event loop."""
IMPORT_BATCH = 5_000
IMPORTERS = 2
"""Two callers of the import verb at once: one prepares its batch (words, vectors) while
the other's is written (a batch of consecutive exchanges holds the locks of most people)."""
FORGOTTEN = 5
PROBE = 1_000
"""Episodes of the population imported into a scratch schema to fingerprint what the import
writes (:func:`_fingerprint`)."""
TARGETS = {
    "ingest_concurrent_per_second_postgres": Target.at_least(500),
    "mb_per_million_episodes_postgres": Target.at_most(2000),
    "recall_p99_ms_postgres": Target.at_most(10),
    "recall_growth_postgres": Target.at_most(1.3),
    "forget_ms_postgres": Target.at_most(500),
}
"""Issue 25's goals for PostgreSQL; SQLite's figures are its baseline."""


class Sizes(BaseModel):
    """What one run measured in one backend's copy of the large store."""

    total: int
    built: bool
    size: int
    ingested: int
    grown: int
    rate: float
    concurrent_rate: float
    cpu_ms: float
    concurrent_cpu_ms: float
    recall_large: list[float]
    recall_small: list[float]
    growths: list[float]
    forgets: list[tuple[float, int]]


def _postgres_url(database: str) -> str:
    """The server's URL for ``database``, its commits not waiting for the disk."""
    parts = urlsplit(admin_url())
    options = quote("-csynchronous_commit=off")
    query = f"{parts.query}&options={options}" if parts.query else f"options={options}"
    return parts._replace(path=f"/{database}", query=query).geturl()


def _admin(statement: sql.Composable, params: list[object] | None = None) -> list[tuple]:
    with psycopg.connect(admin_url(), autocommit=True) as conn:
        cursor = conn.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


def _imported(exchange: NewExchange, vote: VoteEvent) -> ImportedEpisode:
    """The episode the exchange becomes once its vote has validated it."""
    status = EpisodeStatus.FAILURE if vote.reaction == "-1" else EpisodeStatus.SUCCESS
    return ImportedEpisode(
        **exchange.model_dump(exclude={"message_ts"}), status=status, validated_at=vote.at
    )


async def _import(url: str, total: int) -> None:
    """The population through the import verb, by :data:`IMPORTERS` callers at once, as
    several replicas would."""
    store = await open_store(url, MemoryConfig())
    pending = (_imported(exchange, vote) for exchange, vote in exchanges(total))

    async def importer() -> None:
        while batch := list(islice(pending, IMPORT_BATCH)):
            await store.import_episodes(batch)

    try:
        await asyncio.gather(*(importer() for _ in range(IMPORTERS)))
    finally:
        await store.close()


_WRITTEN = (
    "SELECT (SELECT string_agg(name, ',' ORDER BY name) FROM memory_migrations),"
    " (SELECT string_agg(replace(indexdef, current_schema() || '.', ''), ';' ORDER BY indexdef)"
    "  FROM pg_indexes WHERE schemaname = current_schema()),"
    " (SELECT string_agg((to_jsonb(e) - 'id')::text || (to_jsonb(r) - 'episode_id')::text,"
    "  E'\\n' ORDER BY e.created_at, e.requester_id)"
    "  FROM episodes AS e JOIN episode_recall AS r ON r.episode_id = e.id)"
)
"""The schema (its migrations and indexes) and every row the import wrote but its id."""


def _fingerprint() -> str:
    """A digest of what the import verb writes now: the schema and the rows of
    :data:`PROBE` episodes of the population imported into a scratch schema. A cached
    database is reused while it is the same, whatever else changed in :mod:`memory`."""

    async def probe() -> str:
        async with scratch_schema() as url:
            await _import(url, PROBE)
            async with await psycopg.AsyncConnection.connect(url) as conn:
                cursor = await conn.execute(_WRITTEN)
                written = await cursor.fetchone()
        return hashlib.sha256(repr(written).encode()).hexdigest()[:12]

    return asyncio.run(probe())


def _own_name(prefix: str) -> str:
    """A database name no other run uses: this process's and a random suffix."""
    return f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"


def _exists(name: str) -> bool:
    return bool(_admin(sql.SQL("SELECT 1 FROM pg_database WHERE datname = %s"), [name]))


def _cached_database(total: int) -> tuple[str, bool]:
    """The name of a database holding ``total`` imported episodes (built now if not cached)
    and whether it was built now. A build is made under a name of its own and renamed when
    complete (dropped if another run finished the same build first)."""
    name = f"bench_v{LAYOUT_VERSION}_{_fingerprint()}_{total}"
    if _exists(name):
        return name, False
    building = _own_name("bench_building")
    _admin(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(building)))
    try:
        started = time.perf_counter()
        asyncio.run(_import(_postgres_url(building), total))
        with psycopg.connect(_postgres_url(building), autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        print(
            f"# built {name}: {total} episodes in {time.perf_counter() - started:.0f} s",
            file=sys.stderr,
            flush=True,
        )
        if not _exists(name):
            _admin(
                sql.SQL("ALTER DATABASE {} RENAME TO {}").format(
                    sql.Identifier(building), sql.Identifier(name)
                )
            )
    finally:
        _admin(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(building)))
    return name, True


@contextmanager
def _postgres_copy(total: int) -> Iterator[tuple[str, bool]]:
    """A copy of the cached database of ``total`` episodes under a name of this run's,
    dropped afterwards: its URL, and whether the cached one was built now."""
    name, built = _cached_database(total)
    copy = _own_name(f"bench_copy_{total}")
    _admin(
        sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(copy), sql.Identifier(name))
    )
    try:
        yield _postgres_url(copy), built
    finally:
        _admin(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(copy)))


@contextmanager
def _sqlite_copy(total: int) -> Iterator[tuple[str, bool]]:
    """A copy of the cached SQLite store of ``total`` episodes, deleted afterwards."""
    path, built = cached_store(total, MemoryConfig())
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-backends-", dir=BENCH_DIR) as directory:
        copy = Path(directory) / "bot.db"
        shutil.copyfile(path, copy)
        yield str(copy), built


def _size(backend: str, location: str) -> int:
    """The store's bytes on disk, with the store closed."""
    if backend == "sqlite":
        return Path(location).stat().st_size
    with psycopg.connect(location) as conn:
        row = conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')"
        ).fetchone()
    return int(row[0]) if row else 0


async def _forget_ms(location: str) -> list[tuple[float, int]]:
    """Milliseconds each ``/forget`` took, and how many rows it erased."""
    store = await open_store(location, MemoryConfig())
    try:
        forgets = []
        for index in range(FORGOTTEN):
            started = time.perf_counter()
            report = await store.forget_user(user_id(index))
            forgets.append(((time.perf_counter() - started) * 1000, report.total))
        return forgets
    finally:
        await store.close()


def _ingest(location: str, count: int, *, first_ts: int, conversations: int) -> tuple[float, float]:
    """:func:`benchmarks.stores.ingest_per_second`, and the CPU this process spent an episode
    meanwhile, in milliseconds (its worker threads' included): what bounds the rate once
    the machine's cores, not the waits for the database, are the limit."""
    started = time.process_time()
    rate = asyncio.run(
        ingest_per_second(location, count, first_ts=first_ts, conversations=conversations)
    )
    return rate, (time.process_time() - started) * 1000 / count


def _measure(backend: str, quick: bool) -> Sizes:
    total = QUICK_EPISODES if quick else FULL_EPISODES
    copy = _sqlite_copy if backend == "sqlite" else _postgres_copy
    asked = queries(200 if quick else 1000)
    ingested = INGESTED // 10 if quick else INGESTED
    with copy(total) as (large, built_large), copy(SMALL) as (small, built_small):
        size = _size(backend, large)
        rounds = [
            asyncio.run(measure_recall(large, small, asked)) for _ in range(1 if quick else 3)
        ]
        rate, cpu_ms = _ingest(large, ingested, first_ts=1_900_000_000, conversations=1)
        concurrent_rate, concurrent_cpu_ms = _ingest(
            large, ingested, first_ts=1_950_000_000, conversations=CONVERSATIONS
        )
        grown = _size(backend, large) - size
        forgets = asyncio.run(_forget_ms(large))
    return Sizes(
        total=total,
        built=built_large or built_small,
        size=size,
        ingested=ingested,
        grown=grown,
        rate=rate,
        concurrent_rate=concurrent_rate,
        cpu_ms=cpu_ms,
        concurrent_cpu_ms=concurrent_cpu_ms,
        recall_large=[ms for measured in rounds for ms in measured.large],
        recall_small=[ms for measured in rounds for ms in measured.small],
        growths=[percentile(r.large, 0.99) / percentile(r.small, 0.99) for r in rounds],
        forgets=forgets,
    )


def _figures(backend: str, measured: Sizes) -> list[Figure]:
    total = measured.total
    store = (
        "the recall benchmark's store"
        if backend == "sqlite"
        else "episodes imported, no vote or ledger rows"
    )
    built = "built now" if measured.built else "cached"
    figures = [
        Figure(
            name=f"ingest_per_second_{backend}",
            value=measured.rate,
            unit="episodes/s",
            detail=f"{measured.ingested} exchanges and their votes through the public verbs,"
            f" one transaction each, one conversation after the other, into a copy of the"
            f" {total}-episode store; the bot's process used {measured.cpu_ms:.2f} ms of CPU"
            " an episode",
        ),
        Figure(
            name=f"ingest_concurrent_per_second_{backend}",
            value=measured.concurrent_rate,
            unit="episodes/s",
            detail=f"{measured.ingested} more, {CONVERSATIONS} conversations at once on one"
            " event loop, each an exchange then its vote, as the bot's requests arrive; the"
            f" bot's process used {measured.concurrent_cpu_ms:.2f} ms of CPU an episode",
        ),
        Figure(
            name=f"mb_per_million_episodes_{backend}",
            value=measured.size / total,
            unit="MB",
            detail=f"{measured.size / 1e6:.0f} MB for {total} episodes ({store}; {built});"
            f" the {2 * measured.ingested} grown through the verbs added"
            f" {measured.grown / (2 * measured.ingested):.0f} MB per million",
        ),
        Figure(
            name=f"recall_p99_ms_{backend}",
            value=percentile(measured.recall_large, 0.99),
            unit="ms",
            detail=f"{len(measured.recall_large)} top-5 recalls of one person's DM in the"
            f" {total}-episode store, p50 {percentile(measured.recall_large, 0.5):.2f} ms;"
            f" at {SMALL} episodes p99 {percentile(measured.recall_small, 0.99):.2f} ms",
        ),
        Figure(
            name=f"recall_growth_{backend}",
            value=statistics.median(measured.growths),
            unit="x",
            detail=f"p99 at {total} over p99 at {SMALL} episodes, median of the rounds' "
            + ", ".join(f"{growth:.2f}" for growth in measured.growths),
        ),
        Figure(
            name=f"forget_ms_{backend}",
            value=statistics.median(ms for ms, _ in measured.forgets),
            unit="ms",
            detail=f"/forget in the {total}-episode store, median of {FORGOTTEN} people"
            " forgotten one after the other ("
            + ", ".join(f"{ms:.1f} ms for {rows} rows" for ms, rows in measured.forgets)
            + ")",
        ),
    ]
    for figure in figures:
        figure.target = TARGETS.get(figure.name)
    return figures


def run(quick: bool) -> list[Figure]:
    return [
        figure for backend in BACKENDS for figure in _figures(backend, _measure(backend, quick))
    ]
