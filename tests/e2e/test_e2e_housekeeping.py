"""Background work of the running bot: the ledger purge."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.config import Settings
from bot.testing.harness import ALICE, dm_channel, start_bot
from memory import ConversationKind, EpisodeStatus, NewExchange, Scope

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
