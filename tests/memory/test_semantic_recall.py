"""Semantic recall: paraphrases sharing no word are found, within the asker's partitions
only, and their vectors leave the disk with them."""

from __future__ import annotations

import re
import threading
from contextlib import closing
from datetime import timedelta
from pathlib import Path

import pytest
from memory_helpers import CHANNEL, DM, T0, FreshStore, Memory
from test_forget import disk_bytes

from memory import Episode, HybridRecall, MemoryConfig, RecallRequest, Vote, vectors
from memory.sql import recall as shared_recall
from memory.sqlite.store import connect
from memory.vectors import default_embedder, episode_text, to_bytes
from tests.support.sqlite_verbs import on_connection

DAY = timedelta(days=1)

LIBRARY = {
    "vpn": (
        "My VPN keeps disconnecting every few minutes, what can I do?",
        "Switch the VPN client to TCP mode and disable IPv6 on the adapter.",
    ),
    "backup": (
        "The nightly Postgres backup job failed with a disk full error",
        "Prune old WAL archives on the backup volume, then rerun the job.",
    ),
    "puppy": (
        "What should I feed my puppy?",
        "A high-protein kibble made for young dogs, three small meals a day.",
    ),
}

PARAPHRASES = [
    # not one word (nor stem) in common with the episode recalled
    ("my remote connection to the office network drops all the time", "vpn"),
    ("the database dump crashed because storage ran out", "backup"),
    ("what can my new pet eat", "puppy"),
]

recall = on_connection(shared_recall).recall


def _vector(episode: Episode) -> bytes:
    embedder = default_embedder()
    assert embedder is not None, "the model ships with the package"
    return to_bytes(embedder.embed(episode_text(episode)))


@pytest.mark.parametrize(("question", "topic"), PARAPHRASES)
async def test_a_paraphrase_sharing_no_word_is_recalled_first(
    memory: Memory, question: str, topic: str
) -> None:
    ids = await memory.library(LIBRARY)
    assert await memory.first_recalled(question) == ids[topic]


@pytest.mark.parametrize(("question", "topic"), PARAPHRASES)
async def test_full_text_recall_alone_misses_those_paraphrases(
    fresh_store: FreshStore, question: str, topic: str
) -> None:
    lexical = MemoryConfig(hybrid=HybridRecall(semantic=0))
    async with fresh_store(lexical) as store:
        memory = Memory(store)
        await memory.library(LIBRARY)
        assert await memory.recall(question) == [], topic


async def test_the_question_is_compared_off_the_event_loop(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = await memory.library(LIBRARY)
    threads: list[int] = []

    def compared(*args: object) -> dict[int, float]:
        threads.append(threading.get_ident())
        return vectors.nearest(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(shared_recall, "nearest", compared)
    assert await memory.first_recalled(PARAPHRASES[0][0]) == ids[PARAPHRASES[0][1]]
    assert threads and threading.get_ident() not in threads


async def test_small_talk_recalls_nothing(memory: Memory) -> None:
    await memory.library(LIBRARY)
    for question in ["how are you?", "who won the football match", "thanks!"]:
        assert await memory.recall(question) == [], question


async def test_another_persons_vectors_are_never_searched(memory: Memory) -> None:
    await memory.library(LIBRARY, user="U0ALICE")
    await memory.library(LIBRARY, user="U0ALICE", scope=CHANNEL)
    for question, _ in PARAPHRASES:
        assert await memory.recall(question, user="U0BOB") == []
        assert await memory.recall(question, user="U0BOB", scope=CHANNEL) == []


async def test_a_dms_vectors_are_never_searched_in_a_channel(memory: Memory) -> None:
    await memory.library(LIBRARY, user="U1", scope=DM)
    for question, _ in PARAPHRASES:
        assert await memory.recall(question, user="U1", scope=CHANNEL) == []


async def test_shared_channel_successes_are_searched_for_members_but_not_failures(
    fresh_store: FreshStore,
) -> None:
    async with fresh_store(MemoryConfig(share_channel_successes=True)) as store:
        memory = Memory(store)
        success = await memory.answered(*LIBRARY["vpn"], user="U0ALICE", scope=CHANNEL)
        await memory.answered(*LIBRARY["puppy"], user="U0ALICE", scope=CHANNEL, vote=Vote.DOWN)
        await memory.answered(*LIBRARY["backup"], user="U0ALICE", scope=DM)
        vpn, backup, puppy = (question for question, _ in PARAPHRASES)
        [shared] = await memory.recall(vpn, user="U0BOB", scope=CHANNEL)
        assert shared.episode.id == success.id
        assert await memory.recall(puppy, user="U0BOB", scope=CHANNEL) == []
        assert await memory.recall(backup, user="U0BOB", scope=DM) == []
        assert await memory.recall(backup, user="U0BOB", scope=CHANNEL) == []


async def test_an_episode_no_longer_validated_is_not_searched(memory: Memory) -> None:
    ids = await memory.library(LIBRARY)
    await memory.react(DM, memory.sent[ids["vpn"]][0], "U1", "+1", added=False)
    recalled = await memory.recall(PARAPHRASES[0][0])
    assert ids["vpn"] not in [item.episode.id for item in recalled]


async def test_forgetting_leaves_no_vector_bytes_on_disk(memory: Memory, db_path: Path) -> None:
    forgotten = await memory.answered(*LIBRARY["vpn"], user="U0FORGET", scope=CHANNEL)
    kept = await memory.answered(*LIBRARY["backup"], user="U0KEEP")
    await memory.recall("vpn", user="U0FORGET", scope=CHANNEL)  # files what the votes left
    await memory.recall("backup", user="U0KEEP")
    assert _vector(forgotten) in disk_bytes(db_path), "the search does see stored vectors"

    await memory.store.forget_user("U0FORGET")

    after = disk_bytes(db_path)
    assert _vector(forgotten) not in after
    assert _vector(kept) in after
    [recalled] = await memory.recall(PARAPHRASES[1][0], user="U0KEEP")
    assert recalled.episode.id == kept.id


async def test_forgetting_one_episode_leaves_no_vector_bytes_on_disk(
    memory: Memory, db_path: Path
) -> None:
    ids = await memory.library(LIBRARY)
    [episode] = [item for item in await memory.store.list_episodes("U1") if item.id == ids["puppy"]]
    assert await memory.store.forget_episode("U1", episode.id)
    assert _vector(episode) not in disk_bytes(db_path)
    assert await memory.recall(PARAPHRASES[2][0]) == []


async def test_without_the_model_recall_is_full_text_only(
    fresh_store: FreshStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "default_embedder", lambda: None)
    async with fresh_store(MemoryConfig()) as store:
        memory = Memory(store)
        ids = await memory.library(LIBRARY)
        assert await memory.recall(PARAPHRASES[0][0]) == []
        [found] = await memory.recall("the VPN disconnects again")
        assert found.episode.id == ids["vpn"]


async def test_a_question_naming_the_day_finds_that_days_episode(memory: Memory) -> None:
    may_4th = T0.replace(month=5, day=4)
    await memory.answered("Any gift idea for my friend?", "A book about painters.", at=T0)
    gift = await memory.answered("Any gift idea for my sister?", "A tea set.", at=may_4th)
    recalled = await memory.recall("What gift did you suggest on May 4th?", now=may_4th + DAY)
    assert recalled[0].episode.id == gift.id


async def test_a_recall_reads_its_candidates_by_id_never_the_whole_store(
    memory: Memory, db_path: Path
) -> None:
    topics = await memory.library(LIBRARY)
    request = RecallRequest(scope=DM, requester_id="U1", text=PARAPHRASES[0][0], now=T0 + DAY)
    with closing(connect(db_path)) as db:
        traced: list[str] = []
        db.conn.set_trace_callback(traced.append)
        [first, *_] = recall(db, request, MemoryConfig())
        db.conn.set_trace_callback(None)
        plans = [
            row[3]
            for sql in traced
            if sql.lstrip().upper().startswith("SELECT")
            for row in db.execute(f"EXPLAIN QUERY PLAN {sql}")
        ]
    assert first.episode.id == topics["vpn"]
    assert any("json_each" in sql for sql in traced), "a semantic-only candidate is read by id"
    assert not [
        plan for plan in plans if "episodes_status" in plan or re.match(r"SCAN episodes( |$)", plan)
    ], plans
