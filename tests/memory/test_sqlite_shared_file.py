"""Two connections to one SQLite file: the bot and the admin CLI (or a second process)
writing at once wait for each other; neither fails with "database is locked"."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from memory_helpers import CHANNEL, DM, T0, Memory, thumbs_up
from sqlite_utils import Database

from memory import MemoryConfig, NewExchange, Vote, open_store
from memory.sqlite import episodes, erasure, fts, votes
from memory.sqlite.connection import connect

ROUNDS = 40


async def test_two_stores_on_one_file_write_at_once_without_failing(db_path: Path) -> None:
    first = await open_store(str(db_path), MemoryConfig())
    second = await open_store(str(db_path), MemoryConfig())
    try:
        one = Memory(first)
        other = Memory(second, _last_ts=500_000)  # the two never send the same message ts

        async def busy(memory: Memory, user: str) -> None:
            for round_ in range(ROUNDS):
                vote = Vote.UP if round_ % 2 else Vote.DOWN
                await memory.answered(f"Question {round_} of {user}", user=user, vote=vote)
                await memory.recall(f"Question {round_}", user=user)

        await asyncio.gather(busy(one, "U1"), busy(other, "U2"))

        for store, user in ((first, "U1"), (second, "U2")):
            recalled = await Memory(store).recall("Question 3", user=user, now=T0.replace(hour=12))
            assert recalled, "every vote was stored and filed"
        assert len(await first.list_episodes("U2")) == ROUNDS
        assert len(await second.list_episodes("U1")) == ROUNDS
    finally:
        await first.close()
        await second.close()


def test_an_episode_filed_by_another_connection_meanwhile_is_filed_once(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot sees an episode waiting; before it takes the write lock, the admin CLI
    (opening the same file) files it. The bot must not file it again: the second entry
    would outlive the person's erasure."""
    config = MemoryConfig()
    bot, admin = connect(db_path), connect(db_path)
    try:
        exchange = NewExchange(
            scope=DM,
            requester_id="U1",
            thread_ts=None,
            question="Where is the quartermaster's flugelhorn?",
            answer="In the badger sett.",
            message_ts=["1000.000100"],
            created_at=T0,
        )
        episodes.record_exchange(bot, exchange, config)
        votes.apply_vote(bot, thumbs_up(DM, "1000.000100", "U1"), config)
        taking_the_lock = fts.transaction

        @contextmanager
        def admin_files_first(db: Database, name: str = "nested") -> Iterator[None]:
            if db is bot:
                assert fts.file_waiting(admin) == 1
            with taking_the_lock(db, name):
                yield

        monkeypatch.setattr(fts, "transaction", admin_files_first)
        fts.file_waiting(bot)
        monkeypatch.undo()

        erasure.forget_user(bot, "U1", T0 + timedelta(hours=1), config)
        assert _indexed_terms(bot) == []
    finally:
        bot.close()
        admin.close()


def test_channel_partitions_aligned_by_another_connection_meanwhile_are_aligned_once(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes open the store at once after SHARE_CHANNEL_SUCCESSES was turned on:
    the channel successes get their channel's entries once, not once per process."""
    private, shared = MemoryConfig(), MemoryConfig(share_channel_successes=True)
    bot, admin = connect(db_path), connect(db_path)
    try:
        fts.align_channel_partitions(bot, share=False)
        exchange = NewExchange(
            scope=CHANNEL,
            requester_id="U1",
            thread_ts=None,
            question="Where is the quartermaster's flugelhorn?",
            answer="In the badger sett.",
            message_ts=["1000.000100"],
            created_at=T0,
        )
        episodes.record_exchange(bot, exchange, private)
        votes.apply_vote(bot, thumbs_up(CHANNEL, "1000.000100", "U1"), private)
        fts.file_waiting(bot)
        taking_the_lock = fts.transaction

        @contextmanager
        def admin_aligns_first(db: Database, name: str = "nested") -> Iterator[None]:
            if db is bot:
                assert fts.align_channel_partitions(admin, share=True) == 1
            with taking_the_lock(db, name):
                yield

        monkeypatch.setattr(fts, "transaction", admin_aligns_first)
        assert fts.align_channel_partitions(bot, share=True) == 0
        monkeypatch.undo()

        erasure.forget_user(bot, "U1", T0 + timedelta(hours=1), shared)
        assert _indexed_terms(bot) == []
    finally:
        bot.close()
        admin.close()


def _indexed_terms(db: Database) -> list[str]:
    db.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, episodes_fts, row)")
    return [row["term"] for row in db.query("SELECT term FROM temp.terms")]
