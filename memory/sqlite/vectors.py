"""Semantic recall's vectors of validated episodes, one row per episode and partition.

Like the full-text index (:mod:`memory.sqlite.fts`), a validated episode has a row in its
asker's partition and, a channel success, in its channel's; a pending one has none. The
table is clustered by partition (``WITHOUT ROWID``, keyed ``(partition, episode_id)``),
so reading one person's vectors reads only their pages. Rows go with their episode
(``ON DELETE CASCADE``), and ``secure_delete`` zeroes them as it does the text.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlite_utils import Database

from memory.models import Episode
from memory.vectors import episode_vector, nearest

__all__ = ["CREATE_VECTORS", "index_vectors", "similarities", "unindex_vectors"]

CREATE_VECTORS = """
CREATE TABLE IF NOT EXISTS episode_vectors (
    partition TEXT NOT NULL,
    episode_id INTEGER NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
    vector BLOB NOT NULL,
    PRIMARY KEY (partition, episode_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS episode_vectors_episode ON episode_vectors (episode_id);
"""


def unindex_vectors(db: Database, episode_ids: Sequence[int]) -> None:
    for episode_id in episode_ids:
        db.execute("DELETE FROM episode_vectors WHERE episode_id = ?", [episode_id])


def index_vectors(db: Database, episode: Episode, partitions: Sequence[str]) -> None:
    """Store the validated episode's vector in each of its partitions (nothing without a
    model: recall is then full-text only)."""
    vector = episode_vector(episode)
    if vector is None:
        return
    for key in partitions:
        db.execute(
            "INSERT OR REPLACE INTO episode_vectors (partition, episode_id, vector)"
            " VALUES (?, ?, ?)",
            [key, episode.id, vector],
        )


def similarities(db: Database, text: str, partitions: Sequence[str]) -> dict[int, float]:
    """The cosine of ``text`` with every episode stored in these partitions, by id."""
    if not partitions:
        return {}
    marks = ", ".join("?" for _ in partitions)
    rows = db.execute(
        f"SELECT episode_id, vector FROM episode_vectors WHERE partition IN ({marks})",
        list(partitions),
    ).fetchall()
    return nearest(text, [row[0] for row in rows], [row[1] for row in rows])
