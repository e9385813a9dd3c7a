"""Times in the SQLite store: 18 digits that sort as the instants do, and the migration
that converts the ISO-8601 text earlier versions wrote."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlite_utils
from hypothesis import given
from hypothesis import strategies as st
from memory_helpers import DM, T0, older_sqlite_store

from memory import MemoryConfig, open_store
from memory.sqlite.codec import from_db_time, to_db_time

moments = st.datetimes(timezones=st.just(UTC))


@given(first=moments, second=moments)
def test_stored_times_sort_as_the_instants_and_read_back_exactly(
    first: datetime, second: datetime
) -> None:
    stored = to_db_time(first), to_db_time(second)
    assert all(len(text) == 18 and text.isdigit() for text in stored)
    assert (stored[0] < stored[1]) == (first < second)
    assert from_db_time(stored[0]) == first


def test_a_naive_time_is_taken_as_utc() -> None:
    assert to_db_time(datetime(2026, 3, 2, 9)) == to_db_time(T0)


async def test_iso_times_of_an_older_store_are_converted(db_path: Path) -> None:
    db = older_sqlite_store(db_path, "m014_compact_times")
    asked, voted = "2026-01-05T10:00:00+00:00", "2026-01-05T10:01:00.250000+00:00"
    db.execute(
        "INSERT INTO episodes (id, team_id, channel_id, kind, requester_id, question, answer,"
        " status, created_at, validated_at) VALUES (7, ?, ?, ?, 'U1', 'Deploy billing?',"
        " 'Use make deploy.', 'success', ?, ?)",
        [DM.team_id, DM.channel_id, DM.kind.value, asked, voted],
    )
    db.execute(
        "INSERT INTO votes (episode_id, voter_id, reaction, vote, at)"
        " VALUES (7, 'U1', '+1', 'up', ?)",
        [voted],
    )
    db.conn.commit()
    db.close()

    store = await open_store(str(db_path), MemoryConfig())
    try:
        [episode] = await store.list_episodes("U1")
        assert episode.created_at == datetime(2026, 1, 5, 10, tzinfo=UTC)
        assert episode.validated_at == episode.created_at + timedelta(minutes=1, seconds=0.25)
        assert [e.id for e in await store.list_episodes("U1", since=episode.created_at)] == [7]
    finally:
        await store.close()
    db = sqlite_utils.Database(db_path)
    try:
        [row] = db.query("SELECT created_at, validated_at FROM episodes")
        [vote] = db.query("SELECT at FROM votes")
    finally:
        db.close()
    assert (row["created_at"], row["validated_at"], vote["at"]) == (
        to_db_time(datetime.fromisoformat(asked)),
        to_db_time(datetime.fromisoformat(voted)),
        to_db_time(datetime.fromisoformat(voted)),
    )
