"""The full-text index of validated episodes: the only place recall looks.

Each validated episode has one row per partition it belongs to (see
:mod:`memory.sqlite.scope_tokens`): ``rowid = id`` in its asker's partition and, a channel
success, ``rowid = -id`` in its channel's. Pending episodes have none.

With FTS5's ``secure-delete`` (:func:`create_index`), deleting a row removes its postings
from the segments that held them at once, so an erasure rewrites only those pages, never
the whole index (an ``optimize`` took 11-16 s at a million episodes). The index keeps its
own copy of the partitioned text: a contentless table with ``contentless_delete`` would
not, but it deletes by tombstone, leaving the postings on disk until a merge.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlite_utils import Database

from memory.models import Episode, EpisodeStatus
from memory.recall_query import indexed_words
from memory.sqlite.codec import episode_from_row
from memory.sqlite.scope_tokens import channel_key, personal_key
from memory.visibility import Visibility

__all__ = [
    "BM25_WEIGHTS",
    "TOKENIZE",
    "partitioned",
    "reindex_episode",
    "secure_delete",
    "unindex_episodes",
]

BM25_WEIGHTS = "2.0, 1.0, 1.0"
"""bm25() weights of question, answer and lesson: a matching question counts most."""

TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '_'"
"""Porter stemming; ``_`` joins a partition key to its word in one token."""


def partitioned(key: str, text: str) -> str:
    """``text`` as the index holds it for partition ``key``: ``<key>_<word>`` each word."""
    return " ".join(f"{key}_{word}" for word in indexed_words(text))


def unindex_episodes(db: Database, episode_ids: Iterable[int]) -> None:
    for episode_id in episode_ids:
        db.execute("DELETE FROM episodes_fts WHERE rowid IN (?, ?)", [episode_id, -episode_id])


def _partitions(episode: Episode) -> list[tuple[int, str]]:
    """(rowid, key) of each partition the validated episode is recalled from."""
    partitions = [(episode.id, personal_key(episode.scope, episode.requester_id))]
    if Visibility.shareable(episode):
        partitions.append((-episode.id, channel_key(episode.scope)))
    return partitions


def reindex_episode(db: Database, episode_id: int) -> None:
    """Make the index agree with the episode: indexed exactly while it is validated."""
    unindex_episodes(db, [episode_id])
    rows = list(db.query("SELECT * FROM episodes WHERE id = ?", [episode_id]))
    if not rows:
        return
    episode = episode_from_row(rows[0])
    if episode.status is EpisodeStatus.PENDING:
        return
    for rowid, key in _partitions(episode):
        db.execute(
            "INSERT INTO episodes_fts (rowid, question, answer, lesson) VALUES (?, ?, ?, ?)",
            [
                rowid,
                partitioned(key, episode.question),
                partitioned(key, episode.answer),
                partitioned(key, episode.lesson or ""),
            ],
        )


def secure_delete(db: Database) -> None:
    """Make the index remove a deleted row's postings in place (a persistent setting)."""
    db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('secure-delete', 1)")
