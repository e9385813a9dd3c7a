"""Semantic recall's vectors of validated episodes, one row per episode and partition.

Like the full-text index (:mod:`memory.sqlite.fts`), a validated episode has a row in its
asker's partition and, a channel success, in its channel's; a pending one has none. The
table is clustered by partition (``WITHOUT ROWID``, keyed ``(partition, episode_id)``),
so reading one person's vectors reads only their pages. The partition is stored as a
64-bit number derived from its key (:func:`partition_number`), not as the key's 21
characters, and the table has no other index: rows are taken out by their key, with the
partitions the episode was filed in, exactly as its index entries are (see
:func:`memory.sqlite.fts.unindex_episodes`). ``secure_delete`` zeroes them as it does the
text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlite_utils import Database

from memory.models import Episode
from memory.vectors import episode_vectors

CREATE_VECTORS = """
CREATE TABLE episode_vectors (
    partition INTEGER NOT NULL,
    episode_id INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (partition, episode_id)
) WITHOUT ROWID;
"""


def partition_number(key: str) -> int:
    """The partition ``key`` as the vectors table stores it: 8 bytes of its hash, as a
    signed 64-bit integer (two keys sharing one in a store is a 1-in-10^10 chance even
    with a million partitions, and recall checks every candidate's scope anyway)."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big", signed=True)


def unindex_vectors(db: Database, episode_id: int, partitions: Sequence[str]) -> None:
    """Take the episode's vectors out of the partitions it was filed in."""
    db.conn.executemany(
        "DELETE FROM episode_vectors WHERE partition = ? AND episode_id = ?",
        [(partition_number(key), episode_id) for key in partitions],
    )


def file_vectors(db: Database, filing: Sequence[tuple[Episode, Sequence[str]]]) -> None:
    """Store each validated episode's vector in each of its partitions, the episodes
    embedded together (nothing without a model: recall is then full-text only)."""
    vectors = episode_vectors([episode for episode, _ in filing])
    db.conn.executemany(
        "INSERT OR REPLACE INTO episode_vectors (partition, episode_id, vector) VALUES (?, ?, ?)",
        [
            (partition_number(key), episode.id, vector)
            for (episode, partitions), vector in zip(filing, vectors, strict=True)
            if vector is not None
            for key in partitions
        ],
    )


def partition_vectors(db: Database, partitions: Sequence[str]) -> tuple[list[int], bytes]:
    """The episode id of every vector stored in these partitions, and the vectors."""
    marks = ", ".join("?" for _ in partitions)
    rows = db.execute(
        f"SELECT episode_id, vector FROM episode_vectors WHERE partition IN ({marks})",
        [partition_number(key) for key in partitions],
    ).fetchall()
    return [row[0] for row in rows], b"".join(row[1] for row in rows)
