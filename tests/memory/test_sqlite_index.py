"""The contentless full-text index: no copy of the text, entries that follow every change
to an episode, and the migration that converts a store built before it."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
import sqlite_utils
from memory_helpers import CHANNEL, DM, T0, Memory, exchange, older_sqlite_store, thumbs_up
from test_forget import disk_bytes

from memory import MemoryConfig, MemoryStore, Vote, VoteEvent, open_store
from memory.privacy import personal_key
from memory.sql import episodes as shared_episodes
from memory.sql import votes
from memory.sqlite import fts
from memory.sqlite.migrations import CREATE_VECTORS, SQL
from memory.sqlite.store import SQLiteMemoryStore
from tests.support.sqlite_verbs import on_connection

episodes = on_connection(shared_episodes)

INDEX_STATE = SQL["m015_channel_partitions_state"]
"""What today's write path reads, for the stores built as older versions did: channel
successes filed in their channel's partition, as all were then."""

OLD_QUESTION = "Which flugelhorn valve oil does the quartermaster recommend?"


def _index(db_path: Path) -> tuple[set[int], set[str]]:
    """The rowids the index holds (after FTS5's own integrity check), and the tables."""
    db = sqlite_utils.Database(db_path)
    try:
        db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('integrity-check', 0)")
        rowids = {row["id"] for row in db.query("SELECT id FROM episodes_fts_docsize")}
        return rowids, set(db.table_names())
    finally:
        db.close()


async def _filed(store: MemoryStore) -> None:
    """Wait for the votes' episodes to be filed (a vote leaves that to a batch, later)."""
    assert isinstance(store, SQLiteMemoryStore)
    await store.settle()


async def test_the_index_keeps_no_copy_of_the_text(memory: Memory, db_path: Path) -> None:
    episode = await memory.answered("How do I descale the espresso machine?")
    await _filed(memory.store)
    rowids, tables = _index(db_path)
    assert rowids == {episode.id}
    assert "episodes_fts_content" not in tables
    [recalled] = await memory.recall("descaling espresso")
    assert recalled.episode.id == episode.id


SHARING = MemoryConfig(share_channel_successes=True)


@pytest.mark.parametrize("config", [SHARING])
async def test_index_entries_follow_every_change_of_an_episode(
    memory: Memory, db_path: Path
) -> None:
    store = memory.store
    shared = await memory.answered("Where is the staging kubeconfig?", scope=CHANNEL)
    flipped = await memory.answered("Who owns the billing cron?", vote=Vote.DOWN)
    withdrawn = await memory.answered("What is the wifi password?")
    erased = await memory.answered("How do I rotate the vault token?")
    pending = await memory.ask("Is the cafeteria open?")
    await _filed(store)
    assert _index(db_path)[0] == {shared.id, -shared.id, flipped.id, withdrawn.id, erased.id}

    assert await store.set_lesson(flipped.id, "Check the billing runbook owners table.")
    later = T0 + timedelta(hours=1)
    await memory.react(DM, memory.sent[flipped.id][0], "U1", "+1", at=later)
    await memory.react(CHANNEL, memory.sent[shared.id][0], "U1", "-1", at=later)
    assert await store.extend_exchange(
        erased.id, message_ts=[memory.new_ts()], answer="Run vault token rotate, then deploy."
    )
    assert await store.withdraw_exchange(withdrawn.id)
    assert await store.forget_episode("U1", erased.id)
    await _filed(store)
    assert _index(db_path)[0] == {shared.id, flipped.id}
    assert pending.id not in _index(db_path)[0]

    assert [r.episode.id for r in await memory.recall("billing cron owner")] == [flipped.id]
    assert await memory.recall("vault token rotate") == []
    await store.forget_user("U1")
    assert _index(db_path)[0] == set()


def _build_before_contentless_index(path: Path, config: MemoryConfig) -> None:
    """A store as the bot left it before migration 7: the index with its own copy."""
    db = older_sqlite_store(path, "m007_contentless_index")
    db.executescript(CREATE_VECTORS)  # today's write path below also files vectors
    db.executescript(INDEX_STATE)
    db.execute(SQL["m012_index_queue"])  # ... and queues a voted episode for filing
    db.execute("ALTER TABLE episodes ADD COLUMN enterprise_id TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE episodes ADD COLUMN reason TEXT")
    for index, (user, scope) in enumerate([("UOLD", DM), ("UOLD", CHANNEL), ("UKEEP", DM)]):
        ts = f"1700000000.00010{index}"
        episodes.record_exchange(
            db,
            exchange(
                OLD_QUESTION if user == "UOLD" else "Where do the spare badges live?",
                "The quartermaster keeps it." if user == "UOLD" else "In the lobby.",
                ts=ts,
                user=user,
                scope=scope,
            ),
            config,
        )
        event = thumbs_up(scope, ts, user)
        [outcome] = on_connection(votes).apply_votes(db, [event], config)
        assert outcome.applied
    db.execute("DROP TABLE episode_vectors")  # not there yet: migration 8 creates it
    db.execute("DROP TABLE index_state")
    db.execute("DROP TABLE index_queue")  # nor this: migration 12
    db.execute("ALTER TABLE episodes DROP COLUMN enterprise_id")  # migration 19
    db.execute("ALTER TABLE episodes DROP COLUMN reason")  # migration 17
    db.close()


async def test_a_store_built_before_the_contentless_index_is_converted(db_path: Path) -> None:
    config = MemoryConfig(share_channel_successes=True)
    _build_before_contentless_index(db_path, config)
    assert "episodes_fts_content" in _index(db_path)[1]

    store: MemoryStore = await open_store(f"sqlite:///{db_path}", config)
    try:
        rowids, tables = _index(db_path)
        assert rowids == {1, 2, -2, 3}
        assert "episodes_fts_content" not in tables
        memory = Memory(store)
        [recalled] = await memory.recall("flugelhorn valve oil", user="UOLD")
        assert recalled.episode.question == OLD_QUESTION
        assert [r.episode.id for r in await memory.recall("spare badges", user="UKEEP")] == [3]

        await store.forget_user("UOLD")
    finally:
        await store.close()
    data = disk_bytes(db_path)
    assert b"flugel" not in data and b"quarte" not in data, "the old copy's pages are zeroed"
    assert b"badges" in data


def _build_with_every_word_indexed(path: Path, config: MemoryConfig) -> None:
    """A store as the bot left it before migration 10: every word in the index, stopwords
    and single characters included, and vectors keyed by the partition's text."""
    db = older_sqlite_store(path, "m010_lean_index")
    db.executescript(INDEX_STATE)
    db.execute(SQL["m012_index_queue"])  # today's write path below queues a voted episode
    db.execute("ALTER TABLE episodes ADD COLUMN enterprise_id TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE episodes ADD COLUMN reason TEXT")
    for index, user in enumerate(["UOLD", "UKEEP"]):
        ts = f"1700000000.00020{index}"
        question = OLD_QUESTION if user == "UOLD" else "Where do the spare badges live?"
        episodes.record_exchange(
            db,
            exchange(question, "Ask the quartermaster, he has it.", ts=ts, user=user),
            config,
        )
        event = VoteEvent(
            channel_id=DM.channel_id, message_ts=ts, voter_id=user, reaction="+1", added=True, at=T0
        )
        [outcome] = on_connection(votes).apply_votes(db, [event], config)
        assert outcome.applied
    # Refile the index the old way: every word, as it was written before migration 10.
    db.execute("INSERT INTO episodes_fts (episodes_fts) VALUES ('delete-all')")
    for row in list(db.query("SELECT * FROM episodes")):
        key = personal_key(DM, row["requester_id"])
        every_word = [
            " ".join(f"{key}_{word.lower()}" for word in re.findall(r"[^\W_]+", text))
            for text in (row["question"], row["answer"], "")
        ]
        db.execute(
            "INSERT INTO episodes_fts (rowid, question, answer, lesson) VALUES (?, ?, ?, ?)",
            [row["id"], *every_word],
        )
    db.execute("DROP TABLE index_state")
    db.execute("DROP TABLE index_queue")  # not there yet: migration 12
    db.execute("ALTER TABLE episodes DROP COLUMN enterprise_id")  # migration 19
    db.execute("ALTER TABLE episodes DROP COLUMN reason")  # migration 17
    db.close()


def _indexed_words(db_path: Path) -> set[str]:
    db = sqlite_utils.Database(db_path)
    try:
        db.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, episodes_fts, row)")
        return {row["term"].split("_", 1)[1] for row in db.query("SELECT term FROM temp.terms")}
    finally:
        db.close()


async def test_a_store_indexed_with_every_word_is_rebuilt_with_content_words(
    db_path: Path,
) -> None:
    config = MemoryConfig()
    _build_with_every_word_indexed(db_path, config)
    assert {"the", "he", "it"} <= _indexed_words(db_path)

    store: MemoryStore = await open_store(f"sqlite:///{db_path}", config)
    try:
        assert _index(db_path)[0] == {1, 2}
        words = _indexed_words(db_path)
        assert not words & {"the", "he", "it", "has"}
        assert {"quartermast", "flugelhorn", "badg"} <= words
        memory = Memory(store)
        [recalled] = await memory.recall("flugelhorn valve oil", user="UOLD")
        assert recalled.episode.question == OLD_QUESTION
        assert [r.episode.id for r in await memory.recall("spare badges", user="UKEEP")] == [2]
        await store.forget_user("UOLD")
        assert [r.episode.id for r in await memory.recall("spare badges", user="UKEEP")] == [2]
    finally:
        await store.close()
    data = disk_bytes(db_path)
    assert b"flugel" not in data, "the old index's pages and the person's rows are zeroed"
    assert b"badges" in data


async def test_channel_successes_are_filed_for_the_channel_only_while_it_shares(
    db_path: Path,
) -> None:
    async def reopened(config: MemoryConfig) -> Memory:
        return Memory(await open_store(f"sqlite:///{db_path}", config))

    memory = await reopened(MemoryConfig())
    shared = await memory.answered("Where is the staging kubeconfig?", "In vault.", scope=CHANNEL)
    mine = await memory.answered("Who owns billing?", "Team Ledger.")
    await _filed(memory.store)
    assert _index(db_path)[0] == {shared.id, mine.id}, "nobody shares: filed once"
    assert [r.episode.id for r in await memory.recall("staging kubeconfig", scope=CHANNEL)] == [
        shared.id
    ]
    await memory.store.close()

    memory = await reopened(SHARING)
    assert _index(db_path)[0] == {shared.id, -shared.id, mine.id}
    [found] = await memory.recall("staging kubeconfig", scope=CHANNEL, user="U2")
    assert found.episode.id == shared.id
    await memory.store.close()

    memory = await reopened(MemoryConfig())
    assert _index(db_path)[0] == {shared.id, mine.id}
    assert await memory.recall("staging kubeconfig", scope=CHANNEL, user="U2") == []
    await memory.store.close()

    memory = await reopened(SHARING)
    await memory.store.forget_user("U1")
    assert _index(db_path)[0] == set()
    await memory.store.close()
    data = disk_bytes(db_path)
    assert b"kubeconf" not in data and b"staging" not in data


async def test_aligning_reads_the_channel_successes_a_few_at_a_time(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts, "ALIGN_CHUNK", 2)
    memory = Memory(await open_store(f"sqlite:///{db_path}", MemoryConfig()))
    shared = [
        (await memory.answered(f"Where is runbook {n}?", f"Wiki page {n}.", scope=CHANNEL)).id
        for n in range(5)
    ]
    failed = await memory.answered("Who owns billing?", scope=CHANNEL, vote=Vote.DOWN)
    await memory.store.close()

    store = await open_store(f"sqlite:///{db_path}", SHARING)
    await store.close()
    assert _index(db_path)[0] == {*shared, *(-id_ for id_ in shared), failed.id}
    store = await open_store(f"sqlite:///{db_path}", MemoryConfig())
    await store.close()
    assert _index(db_path)[0] == {*shared, failed.id}
