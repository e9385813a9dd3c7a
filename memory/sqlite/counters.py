"""Operational counters and exactly-once claims (kept as keyed hashes, see
:mod:`memory.sql.fence`, so they hold no personal data and outlive ``/forget``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlite_utils import Database

from memory.models import EpisodeStatus, StoreStats
from memory.sqlite.codec import to_db_time
from memory.sqlite.digests import digest
from memory.sqlite.transactions import transaction
from memory.subjects import workspace_subject

__all__ = ["TOOL_ERROR_PREFIX", "claim", "increment", "stats"]

TOOL_ERROR_PREFIX = "tool_error:"


def increment(db: Database, name: str, by: int = 1) -> None:
    db.execute(
        "INSERT INTO counters (name, value) VALUES (?, ?)"
        " ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
        [name, by],
    )


def claim(db: Database, keys: Sequence[str], at: datetime, team_id: str | None) -> bool:
    """Claim every key in one transaction; True when none had been claimed before. The
    workspace ``team_id`` (a keyed hash) lets its claims go when it uninstalls the app."""
    when = to_db_time(at)
    workspace = None if not team_id else digest(db, workspace_subject(team_id))
    with transaction(db):
        new = sum(
            db.execute(
                "INSERT OR IGNORE INTO claims (digest, at, workspace) VALUES (?, ?, ?)",
                [digest(db, key), when, workspace],
            ).rowcount
            for key in set(keys)
        )
    return new == len(set(keys))


def stats(db: Database) -> StoreStats:
    by_status = {status.value: 0 for status in EpisodeStatus}
    for row in db.query("SELECT status, count(*) AS n FROM episodes GROUP BY status"):
        by_status[row["status"]] = row["n"]
    counters = {row["name"]: row["value"] for row in db.query("SELECT * FROM counters")}
    return StoreStats(
        episodes_by_status=by_status,
        votes=next(db.query("SELECT count(*) AS n FROM votes"))["n"],
        recalls=counters.get("recalls", 0),
        tool_errors={
            name.removeprefix(TOOL_ERROR_PREFIX): value
            for name, value in counters.items()
            if name.startswith(TOOL_ERROR_PREFIX)
        },
    )
