"""What goes into the store comes back out, also after a restart."""

from __future__ import annotations

from datetime import timedelta, timezone
from pathlib import Path

import pytest
import sqlite_utils
from memory_helpers import CHANNEL, DM, T0, Memory, older_sqlite_store

from memory import (
    EpisodeStatus,
    ExportedVote,
    MemoryConfig,
    MemoryStore,
    RecallWeights,
    StoreClosed,
    StoreUnavailable,
    Vote,
    open_store,
)
from memory.sqlite import SQLiteMemoryStore
from memory.sqlite.migrations import migrations

HOUR = timedelta(hours=1)


async def test_record_exchange_stores_a_pending_episode(memory: Memory) -> None:
    episode = await memory.ask(
        "What is the wifi password?", "It is on the fridge.", thread_ts="9.1"
    )
    assert episode.id > 0
    assert episode.status is EpisodeStatus.PENDING
    assert (episode.scope, episode.requester_id, episode.thread_ts) == (DM, "U1", "9.1")
    assert (episode.question, episode.answer) == (
        "What is the wifi password?",
        "It is on the fridge.",
    )
    assert episode.created_at == T0
    assert (episode.lesson, episode.importance, episode.validated_at) == (None, None, None)
    export = await memory.store.export_user("U1")
    assert export.episodes == [episode]
    assert export.ledger_entries == 1


async def test_times_in_other_zones_and_naive_times_are_kept_as_utc_instants(
    memory: Memory,
) -> None:
    tokyo = timezone(timedelta(hours=9))
    episode = await memory.ask("Anything", at=T0.astimezone(tokyo))
    assert episode.created_at == T0
    naive = await memory.ask("Anything", at=T0.replace(tzinfo=None))
    assert naive.created_at == T0


async def test_list_episodes_filters_by_status_scope_and_time(memory: Memory) -> None:
    dm_success = await memory.answered("one", at=T0)
    channel_failure = await memory.answered("two", scope=CHANNEL, at=T0 + HOUR, vote=Vote.DOWN)
    pending = await memory.ask("three", at=T0 + 2 * HOUR)
    await memory.answered("someone else's", user="U2")
    store = memory.store

    assert [e.id for e in await store.list_episodes("U1")] == [channel_failure.id, dm_success.id]
    every = await store.list_episodes("U1", statuses=frozenset(EpisodeStatus))
    assert [e.id for e in every] == [pending.id, channel_failure.id, dm_success.id]
    assert [e.id for e in await store.list_episodes("U1", scope=DM)] == [dm_success.id]
    since = await store.list_episodes("U1", since=T0 + HOUR)
    assert [e.id for e in since] == [channel_failure.id]
    failures = await store.list_episodes("U1", statuses=frozenset({EpisodeStatus.FAILURE}))
    assert [e.id for e in failures] == [channel_failure.id]
    assert len(await store.list_episodes("U1", limit=1)) == 1
    assert await store.list_episodes("U1", statuses=frozenset()) == []


async def test_answered_in_thread_knows_threads_and_replies_under_bot_messages(
    memory: Memory,
) -> None:
    episode = await memory.ask("Anything", scope=CHANNEL, thread_ts="500.1")
    store = memory.store
    assert await store.answered_in_thread(CHANNEL.channel_id, "500.1")
    # a thread started under the bot's own (top-level) answer
    assert await store.answered_in_thread(CHANNEL.channel_id, memory.sent[episode.id][0])
    assert not await store.answered_in_thread(CHANNEL.channel_id, "600.1")
    assert not await store.answered_in_thread("C-other", "500.1")


@pytest.mark.parametrize("config", [MemoryConfig(weights=RecallWeights(importance=0.5))])
async def test_reflection_queue_holds_failures_without_lessons_and_unscored_successes(
    memory: Memory,
) -> None:
    failure = await memory.answered("failed", vote=Vote.DOWN, at=T0)
    success = await memory.answered("worked", at=T0 + HOUR)
    await memory.ask("pending")
    store = memory.store
    queue = await store.episodes_awaiting_reflection(limit=10)
    assert [e.id for e in queue] == [failure.id, success.id]
    assert [e.id for e in await store.episodes_awaiting_reflection(limit=1)] == [failure.id]

    assert await store.set_lesson(failure.id, "Read the error message first.")
    assert await store.set_importance(success.id, 7)
    assert await store.episodes_awaiting_reflection(limit=10) == []
    [scored, lessoned] = await store.list_episodes("U1")
    assert (scored.importance, lessoned.lesson) == (7, "Read the error message first.")


async def test_lessons_and_scores_never_attach_to_pending_episodes(memory: Memory) -> None:
    pending = await memory.ask("pending")
    assert not await memory.store.set_lesson(pending.id, "A lesson")
    assert not await memory.store.set_importance(pending.id, 3)
    [episode] = (await memory.store.export_user("U1")).episodes
    assert (episode.lesson, episode.importance) == (None, None)
    assert not await memory.store.set_lesson(12345, "no such episode")


async def test_a_lesson_needs_a_failure_and_a_score_needs_a_success(memory: Memory) -> None:
    """A vote that flipped while the model was thinking never gets the other kind's result."""
    success = await memory.answered("worked")
    assert not await memory.store.set_lesson(success.id, "A stale lesson")
    failure = await memory.answered("did not work", vote=Vote.DOWN)
    assert not await memory.store.set_importance(failure.id, 9)
    [*episodes] = (await memory.store.export_user("U1")).episodes
    assert {(e.lesson, e.importance) for e in episodes} == {(None, None)}


async def test_importance_must_be_between_one_and_ten(memory: Memory) -> None:
    episode = await memory.answered("worked")
    with pytest.raises(ValueError, match="between 1 and 10"):
        await memory.store.set_importance(episode.id, 11)


async def test_wisdom_is_replaced_per_scope_and_person(memory: Memory) -> None:
    store = memory.store
    first = await store.replace_wisdom(DM, "U1", ["a", "b"], episode_count=4, at=T0)
    assert [(n.text, n.episode_count, n.scope, n.user_id) for n in first] == [
        ("a", 4, DM, "U1"),
        ("b", 4, DM, "U1"),
    ]
    await store.replace_wisdom(CHANNEL, "U1", ["channel note"], episode_count=1, at=T0)
    await store.replace_wisdom(DM, "U2", ["their note"], episode_count=1, at=T0)
    second = await store.replace_wisdom(DM, "U1", ["c"], episode_count=6, at=T0 + HOUR)
    assert [(n.text, n.created_at) for n in second] == [("c", T0 + HOUR)]
    assert await store.wisdom(DM, "U1") == second
    assert [n.text for n in await store.list_wisdom("U1")] == ["channel note", "c"]
    assert [n.text for n in await store.wisdom(DM, "U2")] == ["their note"]


async def test_a_claim_succeeds_once(memory: Memory) -> None:
    store = memory.store
    assert await store.claim("Ev01", at=T0)
    assert not await store.claim("Ev01", at=T0 + HOUR)
    assert await store.claim("C1:123.4", at=T0)


async def test_one_claim_covers_every_key_of_a_message(memory: Memory) -> None:
    """Slack sends a mention as a ``message`` and an ``app_mention`` (two event ids, one ts)."""
    store = memory.store
    assert await store.claim("Ev01", "C1:123.4", at=T0)
    assert not await store.claim("Ev02", "C1:123.4", at=T0)
    assert not await store.claim("Ev01", "C1:999.9", at=T0)
    assert not await store.claim("Ev02", at=T0), "claimed along the way"
    assert await store.claim("Ev03", "Ev03", at=T0)


async def test_stats_count_episodes_votes_recalls_and_tool_errors(memory: Memory) -> None:
    await memory.answered("worked")
    await memory.answered("failed", vote=Vote.DOWN)
    await memory.ask("pending")
    store = memory.store
    await store.count("recalls", by=3)
    await store.count("tool_error:Timeout:search")
    await store.count("tool_error:Timeout:search")
    await store.count("tool_error:ValueError:calc", by=5)
    stats = await store.stats()
    assert stats.episodes_by_status == {"pending": 1, "success": 1, "failure": 1}
    assert stats.votes == 2
    assert stats.recalls == 3
    assert stats.tool_errors == {"Timeout:search": 2, "ValueError:calc": 5}


async def test_scopes_with_recent_validated_episodes(memory: Memory) -> None:
    await memory.answered("old", at=T0 - 48 * HOUR)
    await memory.answered("recent", scope=CHANNEL, at=T0)
    await memory.answered("recent too", scope=CHANNEL, at=T0, vote=Vote.DOWN)
    await memory.answered("theirs", user="U2", at=T0)
    await memory.ask("pending", user="U3", at=T0)
    pairs = await memory.store.scopes_with_recent_episodes(since=T0 - HOUR)
    assert pairs == [(CHANNEL, "U1"), (DM, "U2")]


async def test_export_lists_votes_the_person_cast(memory: Memory) -> None:
    episode = await memory.answered("worked")
    export = await memory.store.export_user("U1")
    assert export.votes == [
        ExportedVote(
            episode_id=episode.id, reaction="+1", vote=Vote.UP, at=T0 + timedelta(minutes=1)
        )
    ]


async def test_everything_survives_a_restart(db_path: Path, config: MemoryConfig) -> None:
    store = await open_store(str(db_path), config)
    memory = Memory(store)
    episode = await memory.answered("How do I restart the worker pool?", "Use the admin panel.")
    pending = await memory.ask("Anything else?")
    await store.set_importance(episode.id, 9)
    await store.replace_wisdom(DM, "U1", ["Prefer the admin panel."], episode_count=1, at=T0)
    await store.claim("Ev01", at=T0)
    await store.count("recalls")
    await store.close()
    await store.close()  # closing twice is harmless
    with pytest.raises(StoreClosed, match="closed"):
        await store.stats()

    reopened = await open_store(f"sqlite:///{db_path}", config)
    try:
        memory = Memory(reopened, sent=memory.sent)
        [recalled] = await memory.recall("restarting worker pools")
        assert recalled.episode.id == episode.id
        assert recalled.episode.importance == 9
        assert not await reopened.claim("Ev01", at=T0)
        assert [n.text for n in await reopened.list_wisdom("U1")] == ["Prefer the admin panel."]
        outcome = await memory.react(DM, memory.sent[pending.id][0], "U1", "-1")
        assert outcome.status is EpisodeStatus.FAILURE
        assert (await reopened.stats()).recalls == 2
    finally:
        await reopened.close()


async def test_the_database_uses_wal_and_a_numbered_schema(
    store: MemoryStore, db_path: Path
) -> None:
    await store.close()
    db = sqlite_utils.Database(db_path)
    try:
        assert db.journal_mode == "wal"
        applied = [row["name"] for row in db.query("SELECT name FROM _sqlite_migrations")]
        assert applied == [migration.name for migration in migrations._migrations]
        assert {"episodes", "ledger", "votes", "claims", "wisdom", "counters"} <= set(
            db.table_names()
        )
    finally:
        db.close()


async def test_upgrading_a_first_version_database_reindexes_its_validated_episodes(
    db_path: Path, config: MemoryConfig
) -> None:
    db = older_sqlite_store(db_path, "m002_partitioned_index")
    db.execute(
        "INSERT INTO episodes (id, team_id, channel_id, kind, requester_id, question, answer,"
        " status, created_at, validated_at) VALUES (7, ?, ?, ?, 'U1', ?, 'Use make deploy.',"
        " 'success', '2026-01-05T10:00:00+00:00', '2026-01-05T10:01:00+00:00')",
        [DM.team_id, DM.channel_id, DM.kind.value, "How do I deploy billing?"],
    )
    db.conn.commit()
    db.close()

    store = await open_store(str(db_path), config)
    try:
        memory = Memory(store)
        [recalled] = await memory.recall("deploying the billing service")
        assert recalled.episode.id == 7
        assert await memory.recall("deploying the billing service", user="U2") == []
    finally:
        await store.close()


async def test_reopening_applies_no_migration_twice(db_path: Path, config: MemoryConfig) -> None:
    for _ in range(2):
        store = await open_store(str(db_path), config)
        await store.close()
    db = sqlite_utils.Database(db_path)
    try:
        applied = db.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0]
        assert applied == len(migrations._migrations)
    finally:
        db.close()


async def test_open_store_accepts_sqlite_urls_and_paths(tmp_path: Path) -> None:
    nested = tmp_path / "data" / "nested" / "bot.db"
    store = await open_store(f"sqlite:///{nested}", MemoryConfig())
    assert isinstance(store, SQLiteMemoryStore)
    await store.close()
    assert nested.exists()


@pytest.mark.parametrize("url", ["mysql://db/bot", "sqlite:///", ""])
async def test_open_store_rejects_what_it_cannot_open(url: str) -> None:
    with pytest.raises(ValueError):
        await open_store(url, MemoryConfig())


async def test_upgrading_keeps_claims_as_keyed_hashes_only(
    db_path: Path, config: MemoryConfig
) -> None:
    db = older_sqlite_store(db_path, "m004_erasure_fence")
    db.execute(
        "INSERT INTO claims (key, user_id, at) VALUES ('Ev0UPGRADED', 'U0CLAIMER', ?)",
        ["2026-01-05T10:00:00.000000+00:00"],
    )
    db.conn.commit()
    db.close()

    store = await open_store(str(db_path), config)
    try:
        assert not await store.claim("Ev0UPGRADED", at=T0), "the old claim still dedupes"
    finally:
        await store.close()
    on_disk = b"".join(p.read_bytes() for p in db_path.parent.iterdir() if p.is_file())
    assert b"Ev0UPGRADED" not in on_disk and b"U0CLAIMER" not in on_disk


async def test_a_database_that_cannot_be_opened_raises_the_stores_own_error(
    tmp_path: Path,
) -> None:
    (tmp_path / "bot.db").mkdir()
    with pytest.raises(StoreUnavailable):
        await open_store(str(tmp_path / "bot.db"), MemoryConfig())


async def test_parts_recorded_as_shown_are_votable_and_a_withdrawn_exchange_is_gone(
    memory: Memory,
) -> None:
    store = memory.store
    episode = await memory.ask("How do the kestrels migrate?", "Part one…")
    [first] = memory.sent[episode.id]
    await memory.react(DM, first, "U1", "+1", at=T0 + HOUR)

    assert [found.episode.id for found in await memory.recall("kestrels migrate")] == [episode.id]
    extended = "Part one, then over the Bosporus."
    assert await store.extend_exchange(episode.id, message_ts=["2001.1"], answer=extended)
    [found] = await memory.recall("Bosporus")
    assert found.episode.id == episode.id, "an answer extended after its vote is filed anew"
    outcome = await memory.react(DM, "2001.1", "U1", "-1", at=T0 + 2 * HOUR)
    assert (outcome.applied, outcome.status) == (True, EpisodeStatus.FAILURE)
    [stored] = await store.list_episodes("U1")
    assert stored.answer == extended

    assert await store.withdraw_exchange(episode.id)
    assert await store.list_episodes("U1", statuses=frozenset(EpisodeStatus)) == []
    assert not (await memory.react(DM, first, "U1", "+1", at=T0 + 3 * HOUR)).applied
    assert not await store.extend_exchange(episode.id, message_ts=["2002.1"], answer="late")
    assert await memory.recall("kestrels migrate") == []
