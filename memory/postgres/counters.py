"""Operational counters and exactly-once claims (keyed hashes, see :mod:`.fence`).

A counter (recalls, tool errors) is kept in :data:`SHARDS` rows of ``counter_shards``, each
connection adding to the row of its server process, and read as their sum with what
``counters`` holds from before migration 4: with one row, every recall of every replica
waited for the one before it to commit. Its transaction commits without waiting for the
disk (``synchronous_commit`` off): a crash may lose the last few counts, never anything
else, since a counter is its transaction's only write.

A claim is one ``INSERT ... ON CONFLICT DO NOTHING`` of every key's digest: when two
processes claim the same message at once (a Slack retry reaching another replica), the
second waits for the first to commit and then inserts nothing, so exactly one of them
answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memory.models import EpisodeStatus, StoreStats
from memory.postgres.session import Session
from memory.subjects import workspace_subject

__all__ = ["SHARDS", "TOOL_ERROR_PREFIX", "claim", "increment", "stats"]

TOOL_ERROR_PREFIX = "tool_error:"
SHARDS = 16


async def increment(db: Session, name: str, by: int = 1) -> None:
    """Add ``by`` to the counter: the last write of its transaction, and the only one."""
    await db.execute(
        "INSERT INTO counter_shards (name, shard, value)"
        " SELECT %s, pg_backend_pid() %% %s, %s"
        " FROM (SELECT set_config('synchronous_commit', 'off', true)) AS this_transaction"
        " ON CONFLICT (name, shard) DO UPDATE SET value = counter_shards.value + excluded.value",
        [name, SHARDS, by],
    )


async def claim(db: Session, keys: Sequence[str], at: datetime, team_id: str | None) -> bool:
    """Claim every key in one statement; True when none had been claimed before. The
    workspace ``team_id`` (a keyed hash) lets its claims go when it uninstalls the app.

    The digests are inserted in sorted order, so two claims of overlapping keys wait for
    each other instead of deadlocking."""
    digests = sorted({db.digest(key) for key in keys})
    workspace = None if not team_id else db.digest(workspace_subject(team_id))
    new = await db.execute(
        "INSERT INTO claims (digest, at, workspace) SELECT d, %s, %s FROM unnest(%s::text[]) AS d"
        " ON CONFLICT (digest) DO NOTHING",
        [at, workspace, digests],
    )
    return new == len(digests)


async def stats(db: Session) -> StoreStats:
    by_status = {status.value: 0 for status in EpisodeStatus}
    for row in await db.rows("SELECT status, count(*) AS n FROM episodes GROUP BY status"):
        by_status[row["status"]] = row["n"]
    summed = (
        "SELECT name, sum(value)::bigint AS value FROM"
        " (SELECT name, value FROM counters UNION ALL SELECT name, value FROM counter_shards)"
        " AS every_count GROUP BY name"
    )
    counters = {row["name"]: row["value"] for row in await db.rows(summed)}
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
