"""Votes committed in groups (the queue both backends use, here on a SQLite store's database
thread): one transaction for the votes waiting together, each caller answered only once its
vote is committed, a failing vote failing alone."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import closing
from datetime import timedelta
from pathlib import Path

import pytest
from memory_helpers import DM, T0, exchange

from memory import EpisodeStatus, MemoryConfig, VoteEvent, VoteOutcome
from memory.models import StoreError
from memory.sql import episodes as shared_episodes
from memory.sql import votes
from memory.sql.vote_queue import FILING_BATCH, VoteQueue
from memory.sqlite.store import SQLiteMemoryStore, engine
from tests.support.sqlite_verbs import on_connection

episodes = on_connection(shared_episodes)

VOTES = 40


def _vote(index: int, voter: str) -> VoteEvent:
    return VoteEvent(
        channel_id=DM.channel_id,
        message_ts=f"1700000000.{index:06d}",
        voter_id=voter,
        reaction="+1",
        added=True,
        at=T0 + timedelta(minutes=1),
    )


async def _exchanges(
    sqlite_store: SQLiteMemoryStore, askers: list[str], config: MemoryConfig
) -> None:
    for index, asker in enumerate(askers):
        asked = exchange(
            f"Question number {index} about the release train?",
            ts=f"1700000000.{index:06d}",
            user=asker,
        )
        await sqlite_store._call(lambda db, e=asked: episodes.record_exchange(db, e, config))


def _committed(db_path: Path, event: VoteEvent) -> bool:
    """Whether another connection sees the vote: what a crash right now would keep."""
    with closing(engine.connect(db_path)) as reader:
        [count] = reader.execute(
            "SELECT count(*) FROM votes JOIN ledger ON ledger.episode_id = votes.episode_id"
            " WHERE ledger.message_ts = ? AND votes.voter_id = ?",
            [event.message_ts, event.voter_id],
        ).fetchone()
    return bool(count)


def _queue(sqlite_store: SQLiteMemoryStore, config: MemoryConfig) -> VoteQueue:
    """A queue as the store's: each group applied in one unit of work on the database thread."""

    async def apply_votes(events: list[VoteEvent]) -> list[VoteOutcome]:
        return await sqlite_store._call(
            lambda db: on_connection(votes).apply_votes(db, events, config)
        )

    return VoteQueue(apply_votes)


@pytest.fixture
async def sqlite_store(db_path: Path) -> AsyncIterator[SQLiteMemoryStore]:
    opened = await SQLiteMemoryStore.open(db_path, MemoryConfig())
    await opened.settle()
    yield opened
    await opened.close()


async def test_votes_waiting_together_commit_in_one_transaction_each_answered_once_committed(
    sqlite_store: SQLiteMemoryStore, db_path: Path
) -> None:
    config = MemoryConfig()
    await _exchanges(sqlite_store, ["U1"] * VOTES, config)
    statements: list[str] = []
    await sqlite_store._call(lambda db: db.conn.set_trace_callback(statements.append))
    queue = _queue(sqlite_store, config)

    async def vote(event: VoteEvent) -> tuple[VoteOutcome, bool]:
        outcome = await queue.apply(event)
        return outcome, _committed(db_path, event)

    results = await asyncio.gather(*(vote(_vote(index, "U1")) for index in range(VOTES)))

    assert all(outcome.status is EpisodeStatus.SUCCESS for outcome, _ in results)
    assert all(committed for _, committed in results), "answered before its commit"
    assert 1 <= statements.count("COMMIT") <= 2, statements.count("COMMIT")


async def test_a_vote_that_fails_fails_alone(
    sqlite_store: SQLiteMemoryStore, db_path: Path
) -> None:
    config = MemoryConfig()
    await _exchanges(sqlite_store, ["U1", "UREFUSED", "U1"], config)
    await sqlite_store._call(
        lambda db: db.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON votes WHEN NEW.voter_id = 'UREFUSED'"
            " BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    )
    queue = _queue(sqlite_store, config)
    events = [_vote(0, "U1"), _vote(1, "UREFUSED"), _vote(2, "U1")]

    results = await asyncio.gather(*(queue.apply(e) for e in events), return_exceptions=True)

    assert isinstance(results[1], StoreError)
    assert [type(results[0]), type(results[2])] == [VoteOutcome, VoteOutcome]
    assert [_committed(db_path, e) for e in events] == [True, False, True]


async def test_a_steady_stream_of_votes_is_filed_as_it_goes_not_only_once_it_pauses() -> None:
    """With votes always waiting, the filing runs beside their groups once a batch's worth
    was applied: what waits to be filed (and each recall's look at it) stays short."""
    applied = filed = 0
    behind: list[int] = []

    async def apply_votes(events: list[VoteEvent]) -> list[VoteOutcome]:
        nonlocal applied
        await asyncio.sleep(0.001)
        applied += len(events)
        return [VoteOutcome(applied=True, reason="counted") for _ in events]

    async def filing(limit: int) -> int:
        nonlocal filed
        await asyncio.sleep(0.002)
        taken = min(limit, applied - filed)
        filed += taken
        return taken

    queue = VoteQueue(apply_votes, filing)
    casting = []
    for index in range(400):  # votes keep arriving while each group is applied
        casting.append(asyncio.create_task(queue.apply(_vote(index, "U1"))))
        if index % 4 == 3:
            await asyncio.sleep(0.0005)
            behind.append(applied - filed)
    await asyncio.gather(*casting)

    assert max(behind) <= 2 * FILING_BATCH + 20, behind
    await queue.settle()
    assert filed == applied == 400
