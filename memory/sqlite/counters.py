"""How SQLite keeps a counter: one row of ``counters`` per name (one process writes)."""

from __future__ import annotations

from sqlite_utils import Database

__all__ = ["counts", "increment", "next_episode_id"]


def increment(db: Database, name: str, by: int = 1) -> None:
    db.execute(
        "INSERT INTO counters (name, value) VALUES (?, ?)"
        " ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
        [name, by],
    )


def counts(db: Database) -> dict[str, int]:
    return dict(db.execute("SELECT name, value FROM counters").fetchall())


_ISSUED = "episode_ids_issued"
"""The counter of episode ids handed out: an id is never reused, even after an erasure."""


def next_episode_id(db: Database) -> int:
    """An id no episode ever had (SQLite would reuse the largest rowid once it is deleted)."""
    [episode_id] = db.execute(
        "SELECT max(coalesce((SELECT value FROM counters WHERE name = ?), 0),"
        " coalesce((SELECT max(id) FROM episodes), 0)) + 1",
        [_ISSUED],
    ).fetchone()
    db.execute(
        "INSERT INTO counters (name, value) VALUES (?, ?)"
        " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        [_ISSUED, episode_id],
    )
    return episode_id
