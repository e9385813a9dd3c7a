"""Two connections to one SQLite file, the bot's and the admin CLI's (or a second
process's): writing at once, they wait for each other instead of failing with "database is
locked", and what one did while the other was about to do it is not done twice."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from memory_helpers import CHANNEL, DM, T0, Memory, exchange, thumbs_up
from sqlite_utils import Database

from memory import MemoryConfig, Scope, Vote, open_store
from memory.sql import episodes as shared_episodes
from memory.sql import erasure as shared_erasure
from memory.sql import votes
from memory.sqlite import fts
from memory.sqlite.store import connect
from tests.support.sqlite_verbs import on_connection

episodes = on_connection(shared_episodes)
erasure = on_connection(shared_erasure)

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


@pytest.fixture
def connections(db_path: Path) -> Iterator[tuple[Database, Database]]:
    """The bot's connection to the file, and the admin CLI's."""
    bot, admin = connect(db_path), connect(db_path)
    yield bot, admin
    bot.close()
    admin.close()


def _voted_exchange(db: Database, scope: Scope, config: MemoryConfig) -> None:
    """U1's question in ``scope``, and their 👍 on the answer (which leaves it waiting to be
    filed)."""
    asked = exchange(
        "Where is the quartermaster's flugelhorn?",
        "In the badger sett.",
        ts="1000.000100",
        scope=scope,
    )
    episodes.record_exchange(db, asked, config)
    on_connection(votes).apply_votes(db, [thumbs_up(scope, "1000.000100", "U1")], config)


def _meanwhile(monkeypatch: pytest.MonkeyPatch, bot: Database, other: Callable[[], None]) -> None:
    """Run ``other`` (another connection's work) when the bot is about to take the write
    lock for its next transaction in :mod:`memory.sqlite.fts`."""
    taking_the_lock = fts.transaction

    @contextmanager
    def other_first(db: Database) -> Iterator[None]:
        if db is bot:
            monkeypatch.setattr(fts, "transaction", taking_the_lock)
            other()
        with taking_the_lock(db):
            yield

    monkeypatch.setattr(fts, "transaction", other_first)


def _indexed_terms(db: Database) -> list[str]:
    db.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, episodes_fts, row)")
    return [row["term"] for row in db.query("SELECT term FROM temp.terms")]


def test_an_episode_filed_by_another_connection_meanwhile_is_filed_once(
    connections: tuple[Database, Database], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot sees an episode waiting; before it takes the write lock, the admin CLI
    (opening the same file) files it. The bot must not file it again: the second entry
    would outlive the person's erasure."""
    bot, admin = connections
    config = MemoryConfig()
    _voted_exchange(bot, DM, config)
    _meanwhile(monkeypatch, bot, lambda: fts.file_waiting(admin))

    assert fts.file_waiting(bot) == 0

    erasure.forget_user(bot, "U1", T0 + timedelta(hours=1), config)
    assert _indexed_terms(bot) == []


def test_channel_partitions_aligned_by_another_connection_meanwhile_are_aligned_once(
    connections: tuple[Database, Database], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes open the store at once after SHARE_CHANNEL_SUCCESSES was turned on:
    the channel successes get their channel's entries once, not once per process."""
    bot, admin = connections
    private, shared = MemoryConfig(), MemoryConfig(share_channel_successes=True)
    fts.align_channel_partitions(bot, share=False)
    _voted_exchange(bot, CHANNEL, private)
    fts.file_waiting(bot)
    _meanwhile(monkeypatch, bot, lambda: fts.align_channel_partitions(admin, share=True))

    assert fts.align_channel_partitions(bot, share=True) == 0

    erasure.forget_user(bot, "U1", T0 + timedelta(hours=1), shared)
    assert _indexed_terms(bot) == []
