"""A vote files its episode in the full-text index and the vectors later, in a batch
(SQLite): recall still sees it at once, a crash loses nothing, and ``/forget`` leaves
nothing waiting."""

from __future__ import annotations

import asyncio
from contextlib import closing
from datetime import timedelta
from pathlib import Path

import pytest
from memory_helpers import CHANNEL, DM, T0, Memory, exchange, thumbs_up
from sqlite_utils import Database
from test_forget import disk_bytes, traces

from memory import MemoryConfig, RecallRequest, Scope, VoteEvent, open_store
from memory.sql import episodes as shared_episodes
from memory.sql import erasure as shared_erasure
from memory.sql import recall as shared_recall
from memory.sql import votes
from memory.sql.vote_queue import FILING_BATCH, FILING_PAUSE_SECONDS
from memory.sqlite.fts import align_channel_partitions, file_waiting
from memory.sqlite.store import SQLiteMemoryStore, connect
from tests.support.sqlite_verbs import on_connection

episodes = on_connection(shared_episodes)
erasure = on_connection(shared_erasure)

pytestmark = pytest.mark.sqlite_only

QUESTION = "How do I recalibrate the Vorticon flux capacitor?"
ANSWER = "Loosen the Quasimodo bracket, then rerun the flux wizard."

recall = on_connection(shared_recall).recall


def _voted(db: Database, config: MemoryConfig, *, user: str, scope: Scope, index: int) -> int:
    """An exchange and its asker's 👍, committed the way the vote queue commits votes."""
    ts = f"1700000000.{index:06d}"
    episode = episodes.record_exchange(
        db,
        exchange(f"{QUESTION} ({index})", ANSWER, ts=ts, user=user, scope=scope),
        config,
    )
    assert episode is not None
    vote = thumbs_up(scope, ts, user)
    [outcome] = on_connection(votes).apply_votes(db, [vote], config)
    assert outcome.applied
    return episode.id


def _filed(db: Database) -> set[int]:
    """The episodes the index holds entries of (a channel success has two: id and -id)."""
    return {abs(row[0]) for row in db.execute("SELECT id FROM episodes_fts_docsize")}


def _waiting(db: Database) -> set[int]:
    return {row[0] for row in db.execute("SELECT episode_id FROM index_queue")}


def _recall(db: Database, config: MemoryConfig, *, user: str, scope: Scope) -> list[int]:
    request = RecallRequest(
        scope=scope, requester_id=user, text="recalibrate the flux capacitor", now=T0
    )
    return [recalled.episode.id for recalled in recall(db, request, config)]


def test_a_vote_leaves_filing_to_later_and_recall_files_its_conversation_first(
    db_path: Path,
) -> None:
    config = MemoryConfig()
    with closing(connect(db_path)) as db:
        mine = _voted(db, config, user="U1", scope=DM, index=1)
        elsewhere = _voted(db, config, user="U1", scope=CHANNEL, index=2)
        assert _waiting(db) == {mine, elsewhere}
        assert _filed(db) == set(), "the vote's transaction filed nothing"

        assert _recall(db, config, user="U1", scope=DM) == [mine]
        assert _filed(db) == {mine}
        assert _waiting(db) == {elsewhere}, "another conversation's episode still waits"

        assert file_waiting(db) == 1
        assert _filed(db) == {mine, elsewhere} and _waiting(db) == set()
        assert _recall(db, config, user="U1", scope=CHANNEL) == [elsewhere]


def test_filing_goes_in_batches_of_a_bounded_size(db_path: Path) -> None:
    config = MemoryConfig()
    with closing(connect(db_path)) as db:
        voted = {_voted(db, config, user="U1", scope=DM, index=i) for i in range(FILING_BATCH + 3)}
        assert file_waiting(db, limit=FILING_BATCH) == FILING_BATCH
        assert len(_waiting(db)) == 3
        assert file_waiting(db, limit=FILING_BATCH) == 3
        assert _filed(db) == voted and _waiting(db) == set()
        db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('integrity-check', 0)")


def test_a_vote_removed_before_filing_files_nothing(db_path: Path) -> None:
    config = MemoryConfig()
    with closing(connect(db_path)) as db:
        episode_id = _voted(db, config, user="U1", scope=DM, index=1)
        removal = VoteEvent(
            channel_id=DM.channel_id,
            message_ts="1700000000.000001",
            voter_id="U1",
            reaction="+1",
            added=False,
            at=T0 + timedelta(minutes=2),
        )
        [outcome] = on_connection(votes).apply_votes(db, [removal], config)
        assert outcome.applied
        assert _recall(db, config, user="U1", scope=DM) == []
        assert _filed(db) == set() and _waiting(db) == set()
        assert episode_id not in _filed(db)


async def test_what_waits_when_the_bot_stops_is_filed_when_it_opens_again(
    db_path: Path,
) -> None:
    config = MemoryConfig()
    with closing(connect(db_path)) as db:
        voted = {_voted(db, config, user="U1", scope=DM, index=i) for i in range(3)}
    store = await open_store(str(db_path), config)
    try:
        assert isinstance(store, SQLiteMemoryStore)
        await store.settle()
        with closing(connect(db_path)) as db:
            assert _filed(db) == voted and _waiting(db) == set()
    finally:
        await store.close()


def test_nothing_waiting_outlives_forget(db_path: Path) -> None:
    config = MemoryConfig()
    with closing(connect(db_path)) as db:
        _voted(db, config, user="UFORGET", scope=DM, index=1)
        kept = _voted(db, config, user="UKEEP", scope=DM, index=2)
        assert len(_waiting(db)) == 2
        assert traces(disk_bytes(db_path), ["Vorticon", "Quasimodo"]) == ["Vorticon", "Quasimodo"]

        erasure.forget_user(db, "UFORGET", T0 + timedelta(hours=1), config)
        assert _waiting(db) == {kept}, "the erased episode's id left the queue with it"
        assert file_waiting(db) == 1
        assert _filed(db) == {kept}

        erasure.forget_user(db, "UKEEP", T0 + timedelta(hours=1), config)
        assert _waiting(db) == set() and _filed(db) == set()
    assert traces(disk_bytes(db_path), ["Vorticon", "Quasimodo", "UFORGET", "UKEEP"]) == []


async def test_a_burst_of_votes_is_filed_together_once_the_votes_pause(
    memory: Memory, db_path: Path
) -> None:
    """Filed one by one, each vote would leave a full-text segment of its own behind."""
    asked = [await memory.ask(f"{QUESTION} ({index})", ANSWER) for index in range(8)]
    most_waiting = 0
    with closing(connect(db_path)) as db:
        for episode in asked:  # one vote after another, as fast as they come
            await memory.react(DM, memory.sent[episode.id][0], "U1", "+1", at=T0)
            most_waiting = max(most_waiting, len(_waiting(db)))
        assert most_waiting > 1, "each vote's episode was filed before the next vote"
        for _ in range(200):  # no recall, no settle: the pause alone files them, within 10 s
            if not _waiting(db):
                break
            await asyncio.sleep(FILING_PAUSE_SECONDS)
        assert _filed(db) == {episode.id for episode in asked}


async def test_forget_right_after_votes_leaves_nothing_to_file(memory: Memory) -> None:
    store = memory.store
    assert isinstance(store, SQLiteMemoryStore)
    for index in range(2 * FILING_BATCH):
        await memory.answered(f"{QUESTION} ({index})", ANSWER, user="UFORGET")
    kept = await memory.answered("Where is the Vorticon manual?", ANSWER, user="UKEEP")
    await store.forget_user("UFORGET")
    await store.settle()
    assert [r.episode.id for r in await memory.recall("Vorticon manual", user="UKEEP")] == [kept.id]
    assert await memory.recall("recalibrate the flux capacitor", user="UFORGET") == []


@pytest.mark.parametrize("share", [True, False])
def test_a_change_of_sharing_files_what_waits_before_it_realigns_the_index(
    db_path: Path, share: bool
) -> None:
    config = MemoryConfig()
    with closing(connect(db_path)) as db:
        align_channel_partitions(db, share=not share)
        episode_id = _voted(db, config, user="U1", scope=CHANNEL, index=1)
        assert _waiting(db) == {episode_id}
        align_channel_partitions(db, share=share)
        assert _waiting(db) == set()
        rowids = {row[0] for row in db.execute("SELECT id FROM episodes_fts_docsize")}
        assert rowids == ({episode_id, -episode_id} if share else {episode_id})
        db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('integrity-check', 0)")


def test_recall_finds_its_conversations_waiting_episodes_without_reading_every_episode(
    db_path: Path,
) -> None:
    config = MemoryConfig()
    with closing(connect(db_path)) as db:
        for index in range(3):
            _voted(db, config, user="U1", scope=DM, index=index)
        traced: list[str] = []
        db.conn.set_trace_callback(traced.append)
        assert _recall(db, config, user="U1", scope=DM)
        db.conn.set_trace_callback(None)
        plans = [
            row[3]
            for sql in traced
            if "index_queue" in sql and sql.lstrip().upper().startswith("SELECT")
            for row in db.execute(f"EXPLAIN QUERY PLAN {sql}")
        ]
    assert plans
    assert not any(plan.startswith("SCAN episodes") for plan in plans)
