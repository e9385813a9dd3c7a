"""The full-text index of validated episodes: the only place full-text recall looks.

As in the SQLite backend (:mod:`memory.sqlite.fts`), a validated episode has one row per
partition it is recalled from (its asker's; a channel success, its channel's too), and
every word in it is written ``<partition>_<stem>`` (:mod:`memory.partitions`), so
a query, which names its partitions the same way, reads only the GIN index entries of the
asker's own partitions. Words are stemmed by PostgreSQL's Snowball English stemmer, in the
``memory_stem`` function of the first migration; the question's words weigh ``A``, the
answer's ``B`` and the lesson's ``C``. Pending episodes have no row.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from memory.models import Episode, EpisodeStatus
from memory.partitions import channel_key, personal_key
from memory.postgres.codec import episode_from_row
from memory.postgres.session import Session
from memory.postgres.vectors import index_vectors
from memory.privacy import Visibility
from memory.recall_query import date_words, indexed_words

__all__ = [
    "RANK_WEIGHTS",
    "folded_words",
    "index_words",
    "partitions",
    "reindex",
    "reindex_episode",
    "unindex_episodes",
]

RANK_WEIGHTS = "{0, 0.5, 0.5, 1.0}"
"""ts_rank's weights of D, C (lesson), B (answer), A (question): as the SQLite backend's
BM25 weights, a matching question counts twice a matching answer or lesson."""


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def folded_words(words: Sequence[str]) -> list[str]:
    """The words without their diacritics (*crème*: *creme*), as SQLite's
    ``remove_diacritics`` indexes them, so an accent typed or not finds the same word."""
    return [_fold(word) for word in words]


def partitions(episode: Episode) -> list[str]:
    """The key of each partition the validated episode is recalled from."""
    found = [personal_key(episode.scope, episode.requester_id)]
    if Visibility.shareable(episode):
        found.append(channel_key(episode.scope))
    return found


async def unindex_episodes(db: Session, episode_ids: Sequence[int]) -> None:
    """Take the episodes out of recall: the full-text index and the vectors."""
    await db.execute("DELETE FROM episode_terms WHERE episode_id = ANY(%s)", [list(episode_ids)])
    await db.execute("DELETE FROM episode_vectors WHERE episode_id = ANY(%s)", [list(episode_ids)])


async def index_words(db: Session, episode: Episode) -> None:
    """Add the validated episode's words to each partition it is recalled from."""
    for key in partitions(episode):
        await db.execute(
            "INSERT INTO episode_terms (episode_id, partition, doc) VALUES (%(id)s, %(key)s,"
            " memory_words(%(key)s, %(question)s, 'A') || memory_words(%(key)s, %(answer)s, 'B')"
            " || memory_words(%(key)s, %(lesson)s, 'C'))",
            {
                "id": episode.id,
                "key": key,
                "question": folded_words(
                    indexed_words(f"{episode.question} {date_words(episode.created_at)}")
                ),
                "answer": folded_words(indexed_words(episode.answer)),
                "lesson": folded_words(indexed_words(episode.lesson or "")),
            },
        )


async def reindex(db: Session, episode: Episode, *, indexed: bool = True) -> None:
    """Make the index and the vectors agree with the episode as it is now: there exactly
    while it is validated. ``indexed`` False says it was pending until now, so the index
    holds nothing of it to take out."""
    if indexed:
        await unindex_episodes(db, [episode.id])
    if episode.status is not EpisodeStatus.PENDING:
        await index_words(db, episode)
        await index_vectors(db, episode, partitions(episode))


async def reindex_episode(db: Session, episode_id: int) -> None:
    """:func:`reindex` of the episode as stored (none left when it was erased)."""
    row = await db.row("SELECT * FROM episodes WHERE id = %s", [episode_id])
    if row is None:
        await unindex_episodes(db, [episode_id])
    else:
        await reindex(db, episode_from_row(row))
