"""How PostgreSQL keeps a counter (recalls, tool errors), written by every replica at once.

A counter is kept in :data:`SHARDS` rows of ``counter_shards``, each connection adding to
the row of its server process, and read as their sum with what ``counters`` holds from
before migration 4: with one row, every recall of every replica waited for the one before
it to commit. Its transaction commits without waiting for the disk (``synchronous_commit``
off): a crash may lose the last few counts, never anything else, since a counter is its
transaction's only write.
"""

from __future__ import annotations

from memory.postgres.session import Session

__all__ = ["SHARDS", "counts", "increment"]

SHARDS = 16


async def increment(db: Session, name: str, by: int = 1) -> None:
    """Add ``by`` to the counter: the last write of its transaction, and the only one."""
    await db.send(
        "INSERT INTO counter_shards (name, shard, value)"
        " SELECT %s, pg_backend_pid() %% %s, %s"
        " FROM (SELECT set_config('synchronous_commit', 'off', true)) AS this_transaction"
        " ON CONFLICT (name, shard) DO UPDATE SET value = counter_shards.value + excluded.value",
        [name, SHARDS, by],
    )


async def counts(db: Session) -> dict[str, int]:
    summed = await db.rows(
        "SELECT name, sum(value)::bigint AS value FROM"
        " (SELECT name, value FROM counters UNION ALL SELECT name, value FROM counter_shards)"
        " AS every_count GROUP BY name"
    )
    return {row["name"]: row["value"] for row in summed}
