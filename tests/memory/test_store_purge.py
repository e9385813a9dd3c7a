"""Purging: expired ledger rows go, and with them the exchanges nobody can validate now."""

from __future__ import annotations

from datetime import timedelta

from memory_helpers import DM, T0, Memory

from memory import EpisodeStatus, MemoryConfig, Vote

DAY = timedelta(days=1)


async def test_purge_deletes_expired_ledger_rows_and_orphaned_pending_episodes(
    memory: Memory, config: MemoryConfig
) -> None:
    old_pending = await memory.ask("old pending", parts=2, at=T0)
    old_validated = await memory.answered("old validated", at=T0, vote=Vote.DOWN)
    fresh_pending = await memory.ask("fresh pending", at=T0 + 10 * DAY)
    store = memory.store

    deleted = await store.purge_expired(now=T0 + config.ledger_ttl)

    # 2 + 1 ledger rows of the old exchanges, and the old pending episode
    assert deleted == 4
    remaining = await store.list_episodes("U1", statuses=frozenset(EpisodeStatus))
    assert {e.id for e in remaining} == {old_validated.id, fresh_pending.id}
    assert old_pending.id not in {e.id for e in remaining}
    # the validated episode stays recallable; its message can no longer be voted on
    assert [r.episode.id for r in await memory.recall("old validated")] == [old_validated.id]
    ts = memory.sent[old_validated.id][0]
    assert not (await memory.react(DM, ts, "U1", "+1", at=T0 + DAY)).applied
    # the fresh exchange can still be validated
    fresh_ts = memory.sent[fresh_pending.id][0]
    assert (await memory.react(DM, fresh_ts, "U1", "+1", at=T0 + 11 * DAY)).applied
    assert (await store.export_user("U1")).ledger_entries == 1


async def test_purge_keeps_what_has_not_expired(memory: Memory, config: MemoryConfig) -> None:
    await memory.ask("pending", at=T0)
    assert await memory.store.purge_expired(now=T0 + config.ledger_ttl - DAY) == 0
    assert len(await memory.store.list_episodes("U1", statuses=frozenset(EpisodeStatus))) == 1


async def test_purge_drops_claims_older_than_the_ledger(
    memory: Memory, config: MemoryConfig
) -> None:
    store = memory.store
    await store.claim("Ev-old", at=T0)
    await store.claim("Ev-new", at=T0 + 20 * DAY)
    assert await store.purge_expired(now=T0 + config.ledger_ttl) == 1
    assert await store.claim("Ev-old", at=T0 + config.ledger_ttl)
    assert not await store.claim("Ev-new", at=T0 + config.ledger_ttl)
