"""Background work of the running bot: the ledger purge and the index's upkeep."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlite_utils.utils import sqlite3

from bot.config import Settings
from memory import ConversationKind, EpisodeStatus, NewExchange, RecallRequest, Scope
from tests.support.answers import record_answer
from tests.support.harness import ALICE, dm_channel, start_bot

ALL_STATUSES = frozenset(EpisodeStatus)


async def test_expired_ledger_entries_and_unvoted_exchanges_are_purged_periodically(
    settings: Settings,
) -> None:
    server = await start_bot(settings, purge_interval_seconds=0.01)
    try:
        services = server.bot.services
        assert services is not None
        scope = Scope(team_id="T1", channel_id=dm_channel(ALICE), kind=ConversationKind.DM)
        await services.memory.record_exchange(
            NewExchange(
                scope=scope,
                requester_id=ALICE,
                thread_ts=None,
                question="an old question nobody rated",
                answer="an old answer",
                message_ts=["1600000000.000100"],
                created_at=datetime.now(UTC) - timedelta(days=settings.ledger_ttl_days + 1),
            )
        )

        for _ in range(500):  # the purge runs every 10 ms: within 5 s
            left = await services.memory.list_episodes(ALICE, statuses=ALL_STATUSES)
            if not left:
                break
            await asyncio.sleep(0.01)

        assert left == []
    finally:
        await server.stop()


def _waiting(settings: Settings) -> int:
    with sqlite3.connect(settings.bot_db_path) as db:
        return db.execute("SELECT count(*) FROM index_queue").fetchone()[0]


def _index_segments(settings: Settings) -> int:
    with sqlite3.connect(settings.bot_db_path) as db:
        return db.execute("SELECT count(DISTINCT segid) FROM episodes_fts_idx").fetchone()[0]


async def test_the_upkeep_merges_the_segments_each_vote_wrote(settings: Settings) -> None:
    server = await start_bot(settings, purge_interval_seconds=0.01)
    try:
        services = server.bot.services
        assert services is not None
        scope = Scope(team_id="T1", channel_id=dm_channel(ALICE), kind=ConversationKind.DM)
        now = datetime.now(UTC)
        segments = []
        for index in range(12):  # each validated in a transaction of its own
            await record_answer(
                services.memory,
                scope,
                ALICE,
                ts=f"1700000000.{index:06d}",
                question=f"how do I renew certificate {index}?",
                answer=f"run the renewal script for host {index}",
                at=now,
                reaction="+1",
            )
            # Asking again in the conversation files what its votes left waiting at once:
            # a segment per vote.
            await services.memory.recall(
                RecallRequest(scope=scope, requester_id=ALICE, text="renew", limit=5, now=now)
            )
            segments.append(_index_segments(settings))

        # Wait until nothing waits to be filed (read first: no segment comes after it), then
        # for the upkeep, which runs every 10 ms, to merge the segments: within 5 s.
        for _ in range(500):
            if _waiting(settings) == 0 and _index_segments(settings) == 1:
                break
            await asyncio.sleep(0.01)

        assert max(segments) > 1
        assert _index_segments(settings) == 1
    finally:
        await server.stop()
