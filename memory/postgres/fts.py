"""The recall index of validated episodes: the only place recall looks.

A validated episode has one row in ``episode_recall`` (migration 10): the keys of the
partitions it is recalled from (its asker's; a channel success, its channel's too:
:mod:`memory.privacy`), its words as a ``tsvector``, and its vector as
:func:`memory.vectors.to_bytes` packs it (null without a model). A recall reads its
partitions' rows through the GIN index of ``partitions``, matches their words and reads
their vectors (:meth:`memory.postgres.session.Session.recall_search`), so it costs what the
partitions hold, not what the store holds. Words are stemmed by PostgreSQL's Snowball
English stemmer (``memory_stem``, first migration); the question's words weigh ``A``, the
answer's ``B`` and the lesson's ``C``. Pending episodes have no row.

A vote files its episode later, as SQLite's does (:mod:`memory.sqlite.fts`): its transaction
takes the episode out of recall and puts its id in ``index_queue`` (:func:`queue_filing`),
and the store files the queue in batches, each in a transaction of its own
(:func:`file_waiting`), so the vote's transaction neither reads the episode back nor waits for
its words and vector. Recall files the waiting episodes of its conversation before it
searches (:meth:`memory.postgres.session.Session.recall_search`), so the question right after
a vote sees it, on any replica; an erasure takes a waiting id along (``ON DELETE CASCADE``).

Unlike SQLite's FTS5 index, the words carry no partition key: a GIN index of one entry per
partition and word took half the store's size, and a recall needs no index of words to
match a partition's few hundred rows.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Sequence

from memory.models import Episode, EpisodeStatus
from memory.postgres.session import Session
from memory.privacy import Visibility, channel_key, personal_key
from memory.recall_query import date_words, indexed_words
from memory.rows import episode_from_row
from memory.vectors import episode_vectors


def _fold(word: str) -> str:
    if word.isascii():  # nothing to take off: most words, at a tenth of the cost
        return word
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
    """Take the episodes out of recall."""
    await db.send("DELETE FROM episode_recall WHERE episode_id = ANY(%s)", [list(episode_ids)])


WORDS_APART = "\x1f"
"""Separates the words of a field in the one text they are sent as (the unit separator,
part of no word); the server splits them again (:data:`SPLIT`). psycopg took seven times
as long to send the three fields as lists."""
SPLIT = "string_to_array({}, chr(31))"
"""A field's words as ``memory_doc`` takes them, from the text :data:`WORDS_APART` joined."""
_INSERT = (
    "INSERT INTO episode_recall (episode_id, partitions, doc, vector) VALUES (%(id)s,"
    f" %(keys)s, memory_doc({SPLIT.format('%(question)s')}, 'A')"
    f" || memory_doc({SPLIT.format('%(answer)s')}, 'B')"
    f" || memory_doc({SPLIT.format('%(lesson)s')}, 'C'), %(vector)s)"
    " ON CONFLICT (episode_id) DO UPDATE SET partitions = excluded.partitions,"
    " doc = excluded.doc, vector = excluded.vector"
)


def _sent(text: str) -> str:
    """The text's words as the index holds them, joined by :data:`WORDS_APART`."""
    return WORDS_APART.join(folded_words(indexed_words(text)))


def recall_row(episode: Episode, vector: bytes | None) -> dict[str, object]:
    """The parameters of :data:`_INSERT`: the validated episode's recall row (its words
    still to be made a ``tsvector`` by ``memory_doc``)."""
    return {
        "id": episode.id,
        "keys": partitions(episode),
        "question": _sent(f"{episode.question} {date_words(episode.created_at)}"),
        "answer": _sent(episode.answer),
        "lesson": _sent(episode.lesson or ""),
        "vector": vector,
    }


def recall_rows(episodes: Sequence[Episode]) -> list[dict[str, object]]:
    """:func:`recall_row` of each validated episode, their vectors embedded together (one
    tokenizer call). Words and vectors are the work of a worker thread, not the event
    loop's."""
    vectors = episode_vectors(episodes)
    return [recall_row(e, v) for e, v in zip(episodes, vectors, strict=True)]


async def index_episode(db: Session, episode: Episode) -> None:
    """Write the validated episode's row: its partitions, words and vector (none without a
    model: recall is then full-text only), made on a worker thread."""
    [row] = await asyncio.to_thread(recall_rows, [episode])
    await db.send(_INSERT, row)


async def reindex_episodes(db: Session, episode_ids: Sequence[int]) -> None:
    """Make the index agree with these episodes as stored: a row exactly while each is
    validated (none left when it was erased). As one batch: their rows sent in one
    pipeline, their words and vectors made together on a worker thread (the event loop
    serves other work meanwhile)."""
    found = await db.rows(
        "SELECT * FROM episodes WHERE id = ANY(%s) ORDER BY id", [list(episode_ids)]
    )
    episodes = [episode_from_row(row, db.read_time) for row in found]
    validated = [e for e in episodes if e.status is not EpisodeStatus.PENDING]
    gone = set(episode_ids) - {episode.id for episode in validated}
    if gone:
        await unindex_episodes(db, sorted(gone))
    if validated:
        made = await asyncio.to_thread(recall_rows, validated)
        async with db.conn.cursor() as cursor:
            await cursor.executemany(_INSERT, made)


async def queue_filing(db: Session, episode_ids: Sequence[int]) -> None:
    """Take these episodes out of recall until :func:`file_waiting` files them as they are
    then. Queued first: a filing holding one of them ends before this goes on."""
    await db.send(
        "INSERT INTO index_queue (episode_id) SELECT unnest(%s::bigint[]) ON CONFLICT DO NOTHING",
        [list(episode_ids)],
    )
    await unindex_episodes(db, episode_ids)


async def file_episodes(db: Session, episode_ids: Sequence[int]) -> None:
    """Take these episodes off the queue and file them as their rows are now."""
    await db.send("DELETE FROM index_queue WHERE episode_id = ANY(%s)", [list(episode_ids)])
    await reindex_episodes(db, episode_ids)


async def file_waiting(db: Session, *, limit: int) -> int:
    """File up to ``limit`` waiting episodes, oldest first; how many were waiting. Replicas
    filing at once take different ones (``SKIP LOCKED``); one that dies before its commit
    leaves them waiting."""
    taken = await db.rows(
        "DELETE FROM index_queue WHERE episode_id IN (SELECT episode_id FROM index_queue"
        " ORDER BY episode_id LIMIT %s FOR UPDATE SKIP LOCKED) RETURNING episode_id",
        [limit],
    )
    if taken:
        await reindex_episodes(db, sorted(row["episode_id"] for row in taken))
    return len(taken)
