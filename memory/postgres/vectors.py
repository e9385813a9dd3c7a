"""Semantic recall's vectors of validated episodes, one row per episode and partition.

As in the SQLite backend (:mod:`memory.sqlite.vectors`): a validated episode has a row in
each partition it is recalled from, the vector packed by :func:`memory.vectors.to_bytes`
in a ``bytea`` (pgvector is not needed: one partition is searched by brute force), keyed
``(partition, episode_id)`` so a recall reads one partition's rows from the primary key's
index. Rows go with their episode (``ON DELETE CASCADE``).
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.models import Episode
from memory.postgres.session import Session
from memory.vectors import episode_vector, nearest

__all__ = ["CREATE_VECTORS", "index_vectors", "similarities"]

CREATE_VECTORS = """
CREATE TABLE episode_vectors (
    partition text NOT NULL,
    episode_id bigint NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
    vector bytea NOT NULL,
    PRIMARY KEY (partition, episode_id)
);
CREATE INDEX episode_vectors_episode ON episode_vectors (episode_id);
"""


async def index_vectors(db: Session, episode: Episode, partitions: Sequence[str]) -> None:
    """Store the validated episode's vector in each of its partitions (nothing without a
    model: recall is then full-text only)."""
    vector = episode_vector(episode)
    if vector is None:
        return
    for key in partitions:
        await db.execute(
            "INSERT INTO episode_vectors (partition, episode_id, vector) VALUES (%s, %s, %s)"
            " ON CONFLICT (partition, episode_id) DO UPDATE SET vector = excluded.vector",
            [key, episode.id, vector],
        )


async def similarities(db: Session, text: str, partitions: Sequence[str]) -> dict[int, float]:
    """The cosine of ``text`` with every episode stored in these partitions, by id."""
    if not partitions:
        return {}
    rows = await db.rows(
        "SELECT episode_id, vector FROM episode_vectors WHERE partition = ANY(%s)",
        [list(partitions)],
    )
    return nearest(
        text, [row["episode_id"] for row in rows], [bytes(row["vector"]) for row in rows]
    )
