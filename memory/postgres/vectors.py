"""Semantic recall's search: the vectors of one partition, compared by brute force.

Each validated episode's vector is stored with its words, in its row of ``episode_recall``
(:mod:`memory.postgres.fts`), packed by :func:`memory.vectors.to_bytes` in a ``bytea``; a
recall reads its partitions' rows through the GIN index of their keys, so the nearest
neighbours are exact and cost what the partition holds.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.postgres.session import Session
from memory.vectors import nearest

__all__ = ["similarities"]


async def similarities(db: Session, text: str, partitions: Sequence[str]) -> dict[int, float]:
    """The cosine of ``text`` with every episode stored in these partitions, by id."""
    if not partitions:
        return {}
    rows = await db.rows(
        "SELECT episode_id, vector FROM episode_recall"
        " WHERE partitions && %s::text[] AND vector IS NOT NULL",
        [list(partitions)],
    )
    return nearest(
        text, [row["episode_id"] for row in rows], [bytes(row["vector"]) for row in rows]
    )
