"""Operational counters and exactly-once claims.

A claim is kept as a keyed hash (:meth:`Session.digest`), so it holds no personal data and
outlives ``/forget``. It is one ``INSERT ... ON CONFLICT DO NOTHING`` of every key's
digest: when two processes claim the same message at once (a Slack retry reaching another
replica), the second waits for the first to commit and then inserts nothing, so exactly
one of them answers. The digests go in sorted order, so two claims of overlapping keys
wait for each other instead of deadlocking.
"""

from __future__ import annotations

from datetime import datetime

from memory.models import EpisodeStatus, StoreStats
from memory.sql.fence import workspace_subject
from memory.sql.session import Session

TOOL_ERROR_PREFIX = "tool_error:"


async def claim(db: Session, *keys: str, at: datetime, team_id: str | None = None) -> bool:
    """Claim every key at once; True when none had been claimed before. The workspace
    ``team_id`` (a keyed hash) lets its claims go when it uninstalls the app."""
    digests = sorted({db.digest(key) for key in keys})
    if not digests:
        return True
    workspace = None if not team_id else db.digest(workspace_subject(team_id))
    new = await db.execute(
        "INSERT INTO claims (digest, at, workspace) VALUES "
        + ", ".join(["(%s, %s, %s)"] * len(digests))
        + " ON CONFLICT (digest) DO NOTHING",
        [value for digest in digests for value in (digest, at, workspace)],
    )
    return new == len(digests)


async def stats(db: Session) -> StoreStats:
    by_status = {status.value: 0 for status in EpisodeStatus}
    for row in await db.rows("SELECT status, count(*) AS n FROM episodes GROUP BY status"):
        by_status[row["status"]] = row["n"]
    counters = await db.counts()
    votes = await db.row("SELECT count(*) AS n FROM votes")
    assert votes is not None
    return StoreStats(
        episodes_by_status=by_status,
        votes=votes["n"],
        recalls=counters.get("recalls", 0),
        tool_errors={
            name.removeprefix(TOOL_ERROR_PREFIX): value
            for name, value in counters.items()
            if name.startswith(TOOL_ERROR_PREFIX)
        },
    )
