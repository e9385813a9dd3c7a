"""Populated memory stores for the recall and capacity figures, built once and cached.

The population: ``episodes // EPISODES_PER_USER`` people, each with
:data:`EPISODES_PER_USER` validated episodes (three in four 👍, the rest 👎), exchanged
over half a year and interleaved in time with everyone else's. Everyone keeps half of
their exchanges in their DM with the bot and half in one of :data:`CHANNELS` channels.
The measured person (:data:`MEASURED_USER`) keeps all of theirs in their DM, with the
same text at every store size, so a size changes only how much *other* people's data
the store holds.

Building goes through memory's own SQL (:func:`memory.sql.episodes.record_exchange`
and :func:`memory.sql.votes.apply_votes`, the functions behind the public verbs, then
:func:`memory.sqlite.fts.file_waiting` as the vote queue does) on
the connection :func:`memory.sqlite.store.connect` opens. The last
:data:`GROWN_ONE_BY_ONE` exchanges (all of a smaller store) are written the way the bot
writes them, one exchange and one vote per transaction, so the full-text index has the
many segments of a store that grew one vote at a time (recall looks a term up in every
segment); the ones before them in transactions of :data:`BATCH` exchanges, several times
faster. The public verbs' own speed is the ``episodes_per_second_ingest`` figure. The
bot's hourly upkeep runs on the population's clock as it goes (:func:`upkeep`): ledger
rows older than their lifetime are purged, and the index's segments merged, so the size
and the segments are those of a store that has been running for the half year.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import islice
from pathlib import Path

from sqlite_utils import Database

import memory
from benchmarks.corpus import Corpus
from benchmarks.harness import BENCH_DIR
from memory import ConversationKind, MemoryConfig, NewExchange, Scope, VoteEvent, open_store
from memory.sql import episodes, votes
from memory.sqlite import fts
from memory.sqlite.fts import align_channel_partitions, transaction
from memory.sqlite.store import connect
from tests.support.sqlite_verbs import on_connection

__all__ = [
    "CHANNELS",
    "EPISODES_PER_USER",
    "GROWN_ONE_BY_ONE",
    "LAYOUT_VERSION",
    "MEASURED_USER",
    "NOW",
    "TEAM",
    "cached_store",
    "dm_scope",
    "exchanges",
    "ingest_per_second",
    "load",
    "newcomers",
    "scalar",
    "upkeep",
    "user_id",
]

EPISODES_PER_USER = 100
CHANNELS = 200
TEAM = "T0BENCH"
MEASURED_USER = "U0000000"
NOW = datetime(2026, 6, 30, tzinfo=UTC)
"""The benchmark's "now": every exchange happened in the half year before it."""
SPAN = timedelta(days=180)
BATCH = 5_000
GROWN_ONE_BY_ONE = 50_000
UPKEEP_EVERY = timedelta(hours=1)
"""As the bot's ledger purge and index upkeep (``bot.composition.PURGE_INTERVAL_SECONDS``)."""
LAYOUT_VERSION = 3
"""Bump when the population changes, so cached stores of the old layout are not reused."""
WRITE_PATH = (
    "embedding_model/tokens.npy",
    "privacy.py",
    "recall_query.py",
    "rows.py",
    "sql/episodes.py",
    "sql/votes.py",
    "sqlite/codec.py",
    "sqlite/fts.py",
    "sqlite/migrations/*",
    "sqlite/session.py",
    "vectors.py",
)
"""The files of :mod:`memory` that decide what a store holds (the index's words and the
migrations' SQL included), as patterns: a cached store is reused only while they are
unchanged."""

_EPISODES = on_connection(episodes)
_VOTES = on_connection(votes)
"""The verbs of :mod:`memory.sql.episodes` and :mod:`memory.sql.votes` as the database
thread runs them."""

MEASURED_SEED = 7
OTHERS_SEED = 11


def user_id(index: int) -> str:
    return f"U{index:07d}"


def dm_scope(user: str) -> Scope:
    return Scope(team_id=TEAM, channel_id=f"D{user[1:]}", kind=ConversationKind.DM)


def _channel_scope(index: int) -> Scope:
    return Scope(team_id=TEAM, channel_id=f"C{index:07d}", kind=ConversationKind.CHANNEL)


def exchanges(total: int) -> Iterator[tuple[NewExchange, VoteEvent]]:
    """Each exchange of a store of ``total`` episodes, with the vote that validates it."""
    users = max(1, total // EPISODES_PER_USER)
    measured = Corpus(MEASURED_SEED)
    others = Corpus(OTHERS_SEED)
    step = SPAN / total
    for index in range(total):
        person = index % users
        user = user_id(person)
        corpus = measured if person == 0 else others
        turn = index // users
        if person == 0 or turn % 2 == 0:
            scope = dm_scope(user)
        else:
            scope = _channel_scope((person + turn) % CHANNELS)
        created_at = NOW - SPAN + step * index
        message_ts = f"{1_700_000_000 + index}.{index % 1_000_000:06d}"
        exchange = NewExchange(
            scope=scope,
            requester_id=user,
            thread_ts=None if scope.kind is ConversationKind.DM else message_ts,
            question=corpus.question(),
            answer=corpus.answer(),
            message_ts=[message_ts],
            created_at=created_at,
        )
        vote = VoteEvent(
            channel_id=scope.channel_id,
            message_ts=message_ts,
            voter_id=user,
            reaction="-1" if index % 4 == 3 else "+1",
            added=True,
            at=created_at + timedelta(minutes=1),
        )
        yield exchange, vote


def newcomers(count: int, *, first_ts: int) -> list[tuple[NewExchange, VoteEvent]]:
    """Exchanges like the population's, on messages (from ``first_ts`` on) that no store
    of theirs has seen yet."""
    pairs = []
    for index, (exchange, vote) in enumerate(exchanges(count)):
        ts = f"{first_ts + index}.000300"
        pairs.append(
            (
                exchange.model_copy(update={"message_ts": [ts]}),
                vote.model_copy(update={"message_ts": ts}),
            )
        )
    return pairs


async def ingest_per_second(
    location: str, count: int, *, first_ts: int, conversations: int = 1
) -> float:
    """Episodes a second the store at ``location`` takes through the public verbs, each of
    ``count`` :func:`newcomers` (from ``first_ts`` on) and its vote in transactions of their
    own: ``conversations`` at once on one event loop, as the bot serves its requests, each
    an exchange then its vote, then the next exchange not yet taken."""
    population = iter(newcomers(count, first_ts=first_ts))
    store = await open_store(location, MemoryConfig())

    async def conversation() -> None:
        for exchange, vote in population:
            await store.record_exchange(exchange)
            await store.apply_vote(vote)

    try:
        started = time.perf_counter()
        await asyncio.gather(*(conversation() for _ in range(conversations)))
        return count / (time.perf_counter() - started)
    finally:
        await store.close()


def scalar(path: Path, sql: str) -> int:
    """The one number ``sql`` reads from the store at ``path``."""
    store = Database(path)
    try:
        return int(store.execute(sql).fetchone()[0])
    finally:
        store.close()


def upkeep(db: Database, now: datetime, config: MemoryConfig) -> None:
    """What the bot's hourly upkeep does (``bot.composition``): purge the expired ledger,
    then tidy the full-text index step by step."""
    _EPISODES.purge_expired(db, now, config)
    while fts.tidy_index(db):
        pass


def load(path: Path, total: int, config: MemoryConfig) -> None:
    """Write the population of ``total`` episodes into a new store at ``path``, with the
    bot's upkeep run on the population's clock: every :data:`UPKEEP_EVERY` of it, or
    after each batch of the bulk (a batch spans more)."""
    db = connect(path)
    try:
        align_channel_partitions(db, share=config.share_channel_successes)  # as opening does
        pending = exchanges(total)
        bulk = max(0, total - GROWN_ONE_BY_ONE)
        for start in range(0, bulk, BATCH):
            with transaction(db):
                for exchange, vote in islice(pending, min(BATCH, bulk - start)):
                    _EPISODES.record_exchange(db, exchange, config)
                    _VOTES.apply_votes(db, [vote], config)
                fts.file_waiting(db)
            upkeep(db, exchange.created_at, config)
        next_upkeep: datetime | None = None
        for exchange, vote in pending:  # each call its own transaction, as the bot's verbs
            if next_upkeep is None:
                next_upkeep = exchange.created_at + UPKEEP_EVERY
            elif exchange.created_at >= next_upkeep:
                upkeep(db, exchange.created_at, config)
                next_upkeep += UPKEEP_EVERY
            _EPISODES.record_exchange(db, exchange, config)
            _VOTES.apply_votes(db, [vote], config)
            fts.file_waiting(db)  # as the vote queue does once no other vote waits
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()


def _write_path_digest(package: Path = Path(memory.__file__).parent) -> str:
    digest = hashlib.sha256()
    for path in sorted(path for pattern in WRITE_PATH for path in package.glob(pattern)):
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def cached_store(total: int, config: MemoryConfig) -> tuple[Path, bool]:
    """The path of a store of ``total`` episodes (built now if not cached) and whether it
    was built now. A build is written under a temporary name and renamed when complete;
    the name carries the layout version and a digest of memory's write path."""
    path = BENCH_DIR / f"store-v{LAYOUT_VERSION}-{_write_path_digest()}-{total}.db"
    if path.exists():
        return path, False
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    building = path.with_suffix(".building")
    for leftover in BENCH_DIR.glob(f"{building.name}*"):
        leftover.unlink()
    load(building, total, config)
    os.replace(building, path)
    return path, True
