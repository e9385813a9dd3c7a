"""What only the PostgreSQL backend has to show: several processes on one database.

Each "replica" here is a store of its own (its own pool) on the test's schema, as each bot
process has. The tests every backend passes run on PostgreSQL through the ``store``
fixture; these are about sharing, migrations, erasure's rows and the URL.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from memory_helpers import CHANNEL, DM, T0, Memory, exchange, thumbs_up
from psycopg import AsyncPipeline

from memory import (
    EpisodeStatus,
    MemoryConfig,
    MemoryStore,
    RecallWeights,
    Scope,
    Vote,
    open_store,
)
from memory.models import StoreError, StoreUnavailable
from memory.postgres import PostgresMemoryStore
from memory.postgres import session as postgres_session
from memory.postgres.migrations import MIGRATIONS
from memory.postgres.session import Session
from memory.privacy import channel_key, personal_key
from memory.sql import votes
from memory.vectors import default_embedder, episode_text, to_bytes
from tests.stored import all_rows_as_text
from tests.support.postgres_scratch import end_connections, named_connections

pytestmark = pytest.mark.postgres_only

SECRET = "zanzibarite ossifrage marmalade"


@pytest.fixture
async def replicas(url: str, config: MemoryConfig) -> AsyncIterator[list[MemoryStore]]:
    """Three stores on one schema, as three bot processes would have."""
    stores = list(await asyncio.gather(*(open_store(url, config) for _ in range(3))))
    yield stores
    for store in stores:
        await store.close()


async def test_a_postgresql_url_opens_the_postgresql_backend(store: MemoryStore) -> None:
    assert isinstance(store, PostgresMemoryStore)
    await store.ping()


async def test_replicas_starting_together_migrate_once(
    replicas: list[MemoryStore], url: str
) -> None:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        cursor = await conn.execute("SELECT name FROM memory_migrations")
        assert [row[0] for row in await cursor.fetchall()] == [name for name, _ in MIGRATIONS]
        cursor = await conn.execute("SELECT count(*) FROM secrets")
        assert (await cursor.fetchone()) == (1,), "every replica hashes with the same secret"


async def test_everything_survives_a_restart(url: str, config: MemoryConfig) -> None:
    store = await open_store(url, config)
    memory = Memory(store)
    episode = await memory.answered("How do I restart the worker pool?", "Use the admin panel.")
    await store.set_importance(episode.id, 9)
    await store.claim("Ev01", at=T0)
    await store.close()

    reopened = await open_store(url, config)
    try:
        [recalled] = await Memory(reopened).recall("restarting worker pools")
        assert recalled.episode.id == episode.id
        assert recalled.episode.importance == 9
        assert not await reopened.claim("Ev01", at=T0)
    finally:
        await reopened.close()


async def test_counts_from_every_replica_add_up(replicas: list[MemoryStore]) -> None:
    await asyncio.gather(
        *(replica.count("recalls") for replica in replicas for _ in range(10)),
        replicas[0].count("tool_error:Timeout:search", by=2),
        replicas[1].count("tool_error:Timeout:search"),
    )

    for replica in replicas:
        stats = await replica.stats()
        assert stats.recalls == 30
        assert stats.tool_errors == {"Timeout:search": 3}


async def test_a_database_from_before_counter_shards_keeps_its_counts_and_old_replicas_count(
    url: str, config: MemoryConfig
) -> None:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            "CREATE TABLE memory_migrations"
            " (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for name, sql in MIGRATIONS[:3]:  # up to m003_recall_vectors
            await conn.execute(sql)
            await conn.execute("INSERT INTO memory_migrations (name) VALUES (%s)", [name])
        await conn.execute(
            "INSERT INTO counters (name, value) VALUES ('recalls', 7), ('tool_error:E:t', 2)"
        )

    store = await open_store(url, config)
    try:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as old_replica:
            await old_replica.execute(  # the previous version's count, during a rolling upgrade
                "INSERT INTO counters (name, value) VALUES ('recalls', 1)"
                " ON CONFLICT (name) DO UPDATE SET value = counters.value + excluded.value"
            )
        await store.count("recalls")
        stats = await store.stats()
    finally:
        await store.close()
    assert (stats.recalls, stats.tool_errors) == (9, {"E:t": 2})


async def test_a_database_from_before_the_recall_row_keeps_each_episodes_words_and_vector(
    url: str, config: MemoryConfig
) -> None:
    before = [name for name, _ in MIGRATIONS].index("m010_one_recall_row")
    keys = [personal_key(CHANNEL, "U1"), channel_key(CHANNEL)]
    question, answer = ["zanzibarite", "marmalade", "november"], ["stir", "ossifrage"]
    vector = bytes(range(128))
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            "CREATE TABLE memory_migrations"
            " (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for name, sql in MIGRATIONS[:before]:
            await conn.execute(sql)
            await conn.execute("INSERT INTO memory_migrations (name) VALUES (%s)", [name])
        cursor = await conn.execute(
            "INSERT INTO episodes (team_id, channel_id, kind, requester_id, question, answer,"
            " status, created_at, validated_at)"
            " VALUES ('T1', 'C100', 'channel', 'U1', %s, %s, 'success', %s, %s) RETURNING id",
            [SECRET, "Stir the ossifrage.", T0, T0],
        )
        row = await cursor.fetchone()
        assert row is not None
        for key in keys:  # as the index was written before: a row per partition, words keyed
            await conn.execute(
                "INSERT INTO episode_terms (episode_id, partition, doc) VALUES (%(id)s, %(key)s,"
                " memory_words(%(key)s, %(q)s, 'A') || memory_words(%(key)s, %(a)s, 'B')"
                " || memory_words(%(key)s, '{}', 'C'))",
                {"id": row[0], "key": key, "q": question, "a": answer},
            )
            await conn.execute(
                "INSERT INTO episode_vectors (partition, episode_id, vector) VALUES (%s, %s, %s)",
                [key, row[0], vector],
            )

    store = await open_store(url, config)
    try:
        recalled = await Memory(store).recall("marmalade", scope=CHANNEL)
    finally:
        await store.close()
    async with await psycopg.AsyncConnection.connect(url) as conn:
        cursor = await conn.execute(
            "SELECT partitions, vector, doc = (memory_doc(%s, 'A') || memory_doc(%s, 'B')"
            " || memory_doc('{}', 'C')) AS as_written_now,"
            " to_regclass('episode_terms') IS NULL AND to_regclass('episode_vectors') IS NULL"
            " FROM episode_recall",
            [question, answer],
        )
        migrated = await cursor.fetchall()
    assert [r.episode.id for r in recalled] == [row[0]]
    assert migrated == [(sorted(keys), vector, True, True)]


async def test_an_unreachable_server_raises_the_stores_own_error_at_once() -> None:
    with pytest.raises(StoreUnavailable):
        await asyncio.wait_for(
            open_store("postgresql://nobody@127.0.0.1:1/none", MemoryConfig()), timeout=5
        )


async def test_a_failing_database_raises_the_stores_own_error(store: MemoryStore, url: str) -> None:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("DROP TABLE counter_shards")
    with pytest.raises(StoreError) as raised:
        await store.count("recalls")
    assert not isinstance(raised.value, psycopg.Error)


async def test_after_the_server_ended_every_connection_nothing_fails(
    url: str, config: MemoryConfig
) -> None:
    """A restart or failover ends the pooled connections behind the pool's back: each is
    checked before use and replaced, so not one call after it fails."""
    name = f"ended-{uuid.uuid4().hex[:8]}"
    store = await open_store(named_connections(url, name), config)
    try:
        memory = Memory(store)
        await asyncio.gather(*(memory.answered(f"question {n}?", "answer") for n in range(8)))
        assert await end_connections(name) >= 2, "the pool held several connections"

        results = await asyncio.gather(
            *(store.claim(f"Ev{n}", at=T0) for n in range(10)),
            *(memory.recall("question") for _ in range(10)),
            return_exceptions=True,
        )
    finally:
        await store.close()
    assert [r for r in results if isinstance(r, BaseException)] == []
    assert results[:10] == [True] * 10


async def test_a_transaction_whose_connection_broke_before_its_commit_runs_again(url: str) -> None:
    name = f"broken-{uuid.uuid4().hex[:8]}"
    database = await PostgresMemoryStore.open(named_connections(url, name), MemoryConfig())
    runs = 0

    async def insert_once_connection_died(db: Session) -> int:
        nonlocal runs
        runs += 1
        if runs == 1:
            await end_connections(name)  # this very connection, mid-transaction
        await db.execute("INSERT INTO counter_shards (name, shard, value) VALUES ('x', 1, 1)")
        row = await db.row("SELECT count(*) AS n FROM counter_shards WHERE name = 'x'")
        return int(row["n"]) if row else 0

    try:
        rows = await database.run(insert_once_connection_died)
    finally:
        await database.close()
    assert (runs, rows) == (2, 1), "run again once, on a fresh connection, and written once"


async def test_a_message_delivered_to_every_replica_at_once_is_claimed_once(
    replicas: list[MemoryStore],
) -> None:
    claims = [
        replica.claim("Ev0RETRIED", "D100:1700000000.000100", at=T0)
        for _ in range(4)
        for replica in replicas
    ]
    assert sorted(await asyncio.gather(*claims)) == [False] * 11 + [True]


@pytest.mark.parametrize("config", [MemoryConfig(anyone_may_vote=True)])
async def test_votes_arriving_at_different_replicas_at_once_are_all_counted(
    replicas: list[MemoryStore],
) -> None:
    memory = Memory(replicas[0])
    episode = await memory.ask("How do I rotate the vault token?", scope=CHANNEL)
    ts = memory.sent[episode.id][0]
    voters = [f"U{n:02d}" for n in range(12)]
    outcomes = await asyncio.gather(
        *(
            Memory(replicas[n % 3]).react(
                CHANNEL, ts, voter, "+1" if n < 11 else "-1", at=T0 + timedelta(seconds=n)
            )
            for n, voter in enumerate(voters)
        )
    )
    assert all(outcome.applied for outcome in outcomes)
    assert (await replicas[1].stats()).votes == 12
    [stored] = await replicas[2].list_episodes("U1", scope=CHANNEL)
    assert stored.status is EpisodeStatus.FAILURE, "the latest vote wins, wherever it arrived"


async def test_votes_waiting_together_commit_in_one_transaction_each_answered_once_committed(
    store: MemoryStore, url: str
) -> None:
    """The group commit SQLite's votes take (test_vote_queue), on PostgreSQL: the 40 votes
    cast at once commit in one transaction, or two (a vote arriving while no group is
    being applied starts one at once), each answered once another connection sees it."""
    memory = Memory(store)
    askers = [f"U{n:02d}" for n in range(40)]
    asked = [
        await memory.ask(f"Question {n} about the release train?", user=user)
        for n, user in enumerate(askers)
    ]
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as reader:

        async def vote(user: str, episode_id: int) -> tuple[bool, int]:
            ts = memory.sent[episode_id][0]
            outcome = await memory.react(DM, ts, user, "+1", at=T0 + timedelta(minutes=1))
            # Another connection sees only what is committed: what a crash would keep.
            cursor = await reader.execute(
                "SELECT count(*) FROM votes WHERE episode_id = %s", [episode_id]
            )
            row = await cursor.fetchone()
            assert row is not None
            return outcome.applied, row[0]

        results = await asyncio.gather(
            *(vote(user, episode.id) for user, episode in zip(askers, asked, strict=True))
        )
        cursor = await reader.execute("SELECT count(DISTINCT xmin::text) FROM votes")
        transactions = await cursor.fetchone()

    assert results == [(True, 1)] * len(askers), "every vote counted, and committed when answered"
    assert transactions is not None and 1 <= transactions[0] <= 2, transactions


async def test_a_group_of_votes_waits_for_its_writes_once_not_once_a_vote(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reactions of a group are written in one round trip: eleven votes cast at once
    (one group, or two when the first starts alone) wait for the server's answer to a
    write once a group, where each vote waited for its own."""
    memory = Memory(store)
    asked = [
        await memory.ask(f"Question {n} about the release train?", user=f"U{n:02d}")
        for n in range(11)
    ]
    syncs = 0
    sync = AsyncPipeline.sync

    async def counted(pipeline: AsyncPipeline) -> None:
        nonlocal syncs
        syncs += 1
        await sync(pipeline)

    monkeypatch.setattr(AsyncPipeline, "sync", counted)
    outcomes = await asyncio.gather(
        *(
            memory.react(
                DM,
                memory.sent[episode.id][0],
                episode.requester_id,
                "+1",
                at=T0 + timedelta(minutes=1),
            )
            for episode in asked
        )
    )

    assert all(outcome.applied for outcome in outcomes)
    assert syncs <= 2, syncs


@pytest.mark.parametrize("config", [MemoryConfig(weights=RecallWeights(importance=0.5))])
async def test_each_episode_is_reflected_on_by_one_replica(
    replicas: list[MemoryStore],
) -> None:
    memory = Memory(replicas[0])
    for n in range(6):
        await memory.answered(f"Question {n}?", vote=Vote.DOWN if n % 2 else Vote.UP)

    taken = await asyncio.gather(
        *(replica.episodes_awaiting_reflection(limit=4) for replica in replicas)
    )

    ids = [episode.id for batch in taken for episode in batch]
    assert sorted(ids) == sorted(set(ids)), "no episode is handed to two replicas"
    assert len(ids) == 6
    # a replica sees its own leased episodes again (its back-off decides when to retry)...
    first = next(batch for batch in taken if batch)
    again = await replicas[taken.index(first)].episodes_awaiting_reflection(limit=10)
    assert {episode.id for episode in first} <= {episode.id for episode in again}
    # ...and a scored episode leaves the queue for everyone
    for replica, batch in zip(replicas, taken, strict=True):
        for episode in batch:
            if episode.status is EpisodeStatus.SUCCESS:
                assert await replica.set_importance(episode.id, 5)
            else:
                assert await replica.set_lesson(episode.id, "A lesson.")
    for replica in replicas:
        assert await replica.episodes_awaiting_reflection(limit=10) == []


async def test_a_periodic_job_runs_on_one_replica_per_interval(
    replicas: list[MemoryStore],
) -> None:
    every = timedelta(hours=1)
    first = await asyncio.gather(*(r.take_turn("consolidation", every=every) for r in replicas))
    assert sorted(first) == [False, False, True]
    again = await asyncio.gather(*(r.take_turn("consolidation", every=every) for r in replicas))
    assert again == [False, False, False], "the turn lasts most of the interval"
    other = await asyncio.gather(*(r.take_turn("ledger-purge", every=every) for r in replicas))
    assert sorted(other) == [False, False, True], "each job has its own turns"


async def test_a_short_turn_passes_to_whoever_asks_next(replicas: list[MemoryStore]) -> None:
    every = timedelta(milliseconds=100)
    assert await replicas[0].take_turn("purge", every=every)
    await asyncio.sleep(0.15)
    assert await replicas[1].take_turn("purge", every=every)


async def test_an_exchange_racing_forget_on_another_replica_never_outlives_it(
    replicas: list[MemoryStore],
) -> None:
    writer, eraser = replicas[0], replicas[1]
    for round_ in range(8):
        user = f"U0RACE{round_}"
        recorded, _ = await asyncio.gather(
            writer.record_exchange(exchange(SECRET, ts=f"{round_}.000100", user=user)),
            eraser.forget_user(user, at=T0 + timedelta(hours=1)),
        )
        export = await writer.export_user(user)
        assert export.episodes == [], f"round {round_}: recorded {recorded is not None}"


@pytest.mark.parametrize("config", [MemoryConfig(anyone_may_vote=True)])
async def test_a_vote_racing_forget_on_another_replica_never_outlives_it(
    replicas: list[MemoryStore],
) -> None:
    """Whichever commits first, nothing of the forgotten voter's vote is left, and it no
    longer sets the answer's status."""
    writer, eraser = replicas[0], replicas[1]
    memory = Memory(writer)
    for round_ in range(8):
        episode = await memory.ask(f"Question {round_}?", user="U1", scope=CHANNEL)
        voter = f"U0VOTER{round_}"
        outcome, _ = await asyncio.gather(
            memory.react(
                CHANNEL, memory.sent[episode.id][0], voter, "+1", at=T0 + timedelta(minutes=1)
            ),
            eraser.forget_user(voter, at=T0 + timedelta(hours=1)),
        )
        export = await writer.export_user(voter)
        validated = await writer.list_episodes("U1", scope=CHANNEL)
        assert export.votes == [], f"round {round_}: applied {outcome.applied}"
        assert episode.id not in {e.id for e in validated}, f"round {round_}: still validated"


async def test_forget_leaves_no_row_holding_the_person_or_their_words(
    store: MemoryStore, url: str
) -> None:
    memory = Memory(store)
    await store.claim("Ev0FORGOTTEN", at=T0)
    episode = await memory.answered(SECRET, "Stir the marmalade.", user="U0FORGOTTEN")
    await memory.answered("Kept question?", user="U0KEPT")
    await store.set_importance(episode.id, 7)
    failure = await memory.answered("Why?", "Humidity.", user="U0FORGOTTEN", vote=Vote.DOWN)
    await store.give_reason(failure.id, "U0FORGOTTEN", "the gewgaw cupboard flooded", at=T0)
    await store.replace_wisdom(DM, "U0FORGOTTEN", [SECRET], episode_count=1, at=T0)
    await store.settle()  # the votes' episodes filed in recall's index
    embedder = default_embedder()
    assert embedder is not None
    [stored] = await store.list_episodes("U0FORGOTTEN", statuses=frozenset({EpisodeStatus.SUCCESS}))
    vector = to_bytes(embedder.embed(episode_text(stored))).hex()
    before = await all_rows_as_text(url)
    assert "marmalade" in before and "gewgaw" in before
    assert vector in before, "the search does see stored vectors (bytea as hex)"

    await store.forget_user("U0FORGOTTEN")

    rows = await all_rows_as_text(url)
    traces = ["zanzibarite", "ossifrage", "marmalade", "gewgaw", "U0FORGOTTEN", "Ev0FORGOTTEN"]
    for trace in [*traces, vector]:
        assert trace not in rows
    assert "U0KEPT" in rows


async def _voted_unfiled(
    memory: Memory, question: str, *, scope: Scope, user: str = "U1", reaction: str = "+1"
) -> int:
    """An exchange and its asker's 👍, committed as the vote queue commits votes, by a
    process that stopped before filing it."""
    episode = await memory.ask(question, "Loosen the Quasimodo bracket.", user=user, scope=scope)
    vote = thumbs_up(scope, memory.sent[episode.id][0], user).model_copy(
        update={"reaction": reaction}
    )
    [outcome] = await memory.store._run(votes.apply_votes, [vote], MemoryConfig())
    assert outcome.applied
    return episode.id


async def _rows(url: str, sql: str) -> set[int]:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        cursor = await conn.execute(sql)
        return {row[0] for row in await cursor.fetchall()}


def _waiting(url: str) -> Awaitable[set[int]]:
    return _rows(url, "SELECT episode_id FROM index_queue")


def _filed(url: str) -> Awaitable[set[int]]:
    return _rows(url, "SELECT episode_id FROM episode_recall")


async def test_a_vote_leaves_filing_to_later_and_any_replica_recalls_it_at_once(
    replicas: list[MemoryStore], url: str
) -> None:
    """The vote's transaction only queues its episode; a recall on another replica files
    its own conversation's waiting episodes, and no other's, before it searches."""
    await asyncio.gather(*(replica.settle() for replica in replicas))  # done filing at open
    memory = Memory(replicas[0])
    mine = await _voted_unfiled(
        memory, "How do I recalibrate the flux capacitor?", user="U1", scope=DM
    )
    other = await _voted_unfiled(
        memory, "How do I recalibrate the flux gauge?", user="U1", scope=CHANNEL
    )
    assert await _waiting(url) == {mine, other}
    assert await _filed(url) == set(), "the votes' transactions filed nothing"

    recalled = await Memory(replicas[1]).recall("recalibrate the flux capacitor", scope=DM)

    assert [r.episode.id for r in recalled] == [mine]
    assert await _waiting(url) == {other}
    assert await _filed(url) == {mine}


async def test_what_a_stopped_process_left_waiting_is_filed_when_a_store_opens(
    store: MemoryStore, url: str, config: MemoryConfig
) -> None:
    left = await _voted_unfiled(Memory(store), "How do I drain the queue?", user="U1", scope=DM)
    reopened = await open_store(url, config)
    try:
        await reopened.settle()
        assert await _waiting(url) == set()
        assert await _filed(url) == {left}
    finally:
        await reopened.close()


async def test_forget_takes_a_waiting_episode_off_the_queue(store: MemoryStore, url: str) -> None:
    await _voted_unfiled(Memory(store), "How do I drain the queue?", user="U0GONE", scope=DM)
    await store.forget_user("U0GONE")
    await store.settle()
    assert await _waiting(url) == set()
    assert await _filed(url) == set()


async def test_votes_on_every_replica_at_once_leave_each_validated_episode_filed_once(
    replicas: list[MemoryStore], url: str
) -> None:
    """Replicas filing at once take different waiting episodes (and a 👍 then 👎 refiles
    its episode), so every validated episode ends with exactly its recall row."""
    memory = Memory(replicas[0])
    asked = [
        await memory.ask(f"Question {n} about the release train?", user=f"U{n:02d}", scope=CHANNEL)
        for n in range(30)
    ]

    async def vote(n: int, episode_id: int) -> None:
        voter = Memory(replicas[n % 3])
        ts = memory.sent[episode_id][0]
        await voter.react(CHANNEL, ts, f"U{n:02d}", "+1", at=T0 + timedelta(minutes=1))
        if n % 5 == 0:
            await voter.react(CHANNEL, ts, f"U{n:02d}", "-1", at=T0 + timedelta(minutes=2))

    await asyncio.gather(*(vote(n, episode.id) for n, episode in enumerate(asked)))
    await asyncio.gather(*(replica.settle() for replica in replicas))

    assert await _waiting(url) == set()
    assert await _filed(url) == {episode.id for episode in asked}
    shared = await _rows(
        url, "SELECT episode_id FROM episode_recall WHERE cardinality(partitions) = 2"
    )
    assert shared == {episode.id for n, episode in enumerate(asked) if n % 5}, (
        "a channel success is filed in its channel's partition too, a failure is not"
    )


async def test_a_transaction_referring_to_an_episode_does_not_hide_it_from_reflection(
    store: MemoryStore, url: str
) -> None:
    """A vote or a filing in flight holds the episode's row by its foreign key only: the
    reflection queue still hands it out (hidden, its back-off would be dropped as done)."""
    failed = await Memory(store).answered("Why does the build hang?", vote=Vote.DOWN)
    await store.settle()
    async with await psycopg.AsyncConnection.connect(url) as conn:
        await conn.execute("SELECT 1 FROM episodes WHERE id = %s FOR KEY SHARE", [failed.id])
        awaiting = await store.episodes_awaiting_reflection(limit=5)
        await conn.rollback()
    assert [episode.id for episode in awaiting] == [failed.id]


async def _filing_held_after_its_read(
    store: PostgresMemoryStore, release: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> asyncio.Task[int]:
    """A filing of the index queue, under way: it has read its episodes and waits, before
    it writes their recall rows, until ``release`` is set (later filings are not held)."""
    read = threading.Event()
    made_from_rows = postgres_session.recall_rows

    def held(episodes: list[Any]) -> list[dict[str, object]]:
        monkeypatch.setattr(postgres_session, "recall_rows", made_from_rows)
        made = made_from_rows(episodes)
        read.set()
        release.wait(10)
        return made

    monkeypatch.setattr(postgres_session, "recall_rows", held)
    filing = asyncio.create_task(store.run(lambda session: session.file_waiting(64)))
    assert await asyncio.to_thread(read.wait, 10), "the filing read its episodes"
    return filing


async def test_a_change_made_while_a_filing_is_under_way_is_filed_after_it(
    store: MemoryStore, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A filing that read an episode before its lesson was set cannot leave what it read
    filed: the lesson's change is queued behind it and filed after."""
    assert isinstance(store, PostgresMemoryStore)
    failed = await _voted_unfiled(
        Memory(store), "How do I open the walrus vault?", scope=DM, reaction="-1"
    )
    release = threading.Event()
    filing = await _filing_held_after_its_read(store, release, monkeypatch)
    lesson = asyncio.create_task(store.set_lesson(failed, "Ask the zanzibarite keeper."))
    await asyncio.sleep(0.2)  # the lesson is set (and waits on the filing's queue row)
    release.set()
    assert await filing == 1 and await lesson
    await store.run(lambda session: session.file_waiting(64))  # what waits, if anything
    [doc] = await _rows(url, "SELECT doc::text FROM episode_recall")
    assert "zanzibarit" in doc, "the lesson's words are filed"


async def test_forget_racing_a_filing_under_way_leaves_nothing_and_the_filing_succeeds(
    store: MemoryStore, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The erasure waits for the filing (it would take along the queue row the filing took),
    then takes the recall row the filing wrote along too."""
    assert isinstance(store, PostgresMemoryStore)
    await _voted_unfiled(Memory(store), "How do I open the walrus vault?", scope=DM, user="U0GONE")
    release = threading.Event()
    filing = await _filing_held_after_its_read(store, release, monkeypatch)
    forgetting = asyncio.create_task(store.forget_user("U0GONE"))
    await asyncio.sleep(0.2)
    release.set()
    assert await filing == 1
    assert (await forgetting).counts["episodes"] == 1
    assert await _waiting(url) == set()
    assert await _filed(url) == set()
