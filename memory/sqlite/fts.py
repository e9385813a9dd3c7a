"""The index of validated episodes: the full-text index and semantic recall's vectors, and
the write transactions they change in.

Each validated episode has one entry per partition it is recalled from (see
:mod:`memory.privacy`): ``rowid = id`` in its asker's and, a channel success, ``rowid =
-id`` in its channel's (:func:`partitions`). Pending episodes have none.

The index is *contentless* (``content=''``): it holds the postings and no second copy of
the partition-keyed text (that copy was two thirds of the file). Such a table forgets an
entry only when told the exact text it indexed, so an episode's entries are always a
function of its row (:func:`_entries`): every change to an indexed row takes them out with
the row's text *before* the change and files them again after (the session's
``restating`` and ``refiling``), and a change to how words are indexed (:func:`partitioned`,
the partition keys) needs a migration that rebuilds the index. With FTS5's
``secure-delete``, taking an entry out removes its postings from their segments at once:
an erasure rewrites only those pages and leaves none of the words in the file
(``contentless_delete=1`` would leave them until a merge reached them).

The vectors follow the same changes, one row per episode and partition, clustered by
partition (``WITHOUT ROWID``) so that reading one person's reads only their pages. The
partition is stored as a number (:func:`partition_number`), and the table has no other
index: rows are taken out by key, with the partitions the episode was filed in.

FTS5 writes each transaction's entries as a new segment and merges segments as they pile
up; a query, and every deleted entry, looks each of its terms up in every segment. A store
grown one vote at a time keeps about twenty; the periodic upkeep (:func:`tidy_index`)
keeps a handful.

Filing can wait (what a vote does): the episode's id goes into ``index_queue`` in the
change's own transaction, and :func:`file_waiting` files the queue in batches, one
transaction each (embedding the texts together and writing one segment). So at every
commit each episode's entries are either absent or exactly what its row says, and a
validated episode without entries is in the queue. Recall files its conversation's
waiting episodes before it searches, so the question right after a vote sees it; a row's
erasure takes its id along (``ON DELETE CASCADE``). Whatever rebuilds or realigns the
index from the episodes files the queue first (as opening the store does) or empties it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from sqlite_utils import Database

from memory.models import ConversationKind, Episode, EpisodeStatus, Scope
from memory.privacy import Visibility, channel_key, personal_key
from memory.recall_query import date_words, indexed_words
from memory.sqlite.codec import episode_from_row
from memory.vectors import episode_vectors

TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '_'"
"""Porter stemming; ``_`` joins a partition key to its word in one token."""

HITS = """hits AS MATERIALIZED (
  SELECT abs(rowid) AS id, bm25(episodes_fts, 2.0, 1.0, 1.0) AS bm25
  FROM episodes_fts WHERE episodes_fts MATCH %(match)s
)"""
"""Recall's full-text search (:func:`memory.sql.recall.matches`), a matching question
weighing twice an answer or lesson: the partition keys inside the MATCH
(:func:`memory.recall_query.fts5_match`) make the index visit only the asker's partitions."""

MERGE_PAGES = 200
"""Index pages one step of the upkeep writes at most: a few tens of milliseconds of the
database thread, which serves every other call between two steps."""
FULL_MERGE_SHARE = 16
"""The upkeep merges every segment into one once the others hold 1/16 of the largest's
pages: each page is then rewritten about 16 times more, never the whole index hourly."""
ALIGN_CHUNK = 1_000
"""Channel successes read at a time while aligning: a large store's never all in memory."""

_FILE = "INSERT INTO episodes_fts (rowid, question, answer, lesson) VALUES (?, ?, ?, ?)"
_DELETE = (
    "INSERT INTO episodes_fts (episodes_fts, rowid, question, answer, lesson)"
    " VALUES ('delete', ?, ?, ?, ?)"
)


@contextmanager
def transaction(db: Database) -> Iterator[None]:
    """A write transaction, or a savepoint inside the caller's; undone on error.

    The outermost one begins IMMEDIATE, taking the write lock before its first read. A
    deferred one (sqlite-utils' ``atomic()``) that reads, then writes after another
    connection to the file committed (the admin CLI, a second process), fails at once with
    "database is locked": SQLite cannot wait for it without risking a deadlock. Savepoints
    keep a fixed name: ``atomic()`` names each anew, so SQLite compiles its statements
    each time, and a hot path (a vote) reuses them."""
    if not db.conn.in_transaction:
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            db.conn.execute("COMMIT")
        except BaseException:
            db.conn.rollback()  # a no-op when the error already ended the transaction
            raise
        return
    db.conn.execute("SAVEPOINT nested")
    try:
        yield
    except BaseException:
        if db.conn.in_transaction:  # some errors end the whole transaction
            db.conn.execute("ROLLBACK TO nested")
            db.conn.execute("RELEASE nested")
        raise
    db.conn.execute("RELEASE nested")


def partitioned(key: str, text: str) -> str:
    """``text`` as the index holds it for partition ``key``: ``<key>_<word>`` each word."""
    return " ".join(f"{key}_{word}" for word in indexed_words(text))


def partition_number(key: str) -> int:
    """The partition ``key`` as the vectors table stores it: 8 bytes of its hash, as a
    signed 64-bit integer (two keys sharing one in a store is a 1-in-10^10 chance even
    with a million partitions, and recall checks every candidate's scope anyway)."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big", signed=True)


def create_index(db: Database) -> None:
    """Create the (empty) contentless index, deleting in place, its upkeep's merges taking
    two segments of one level (FTS5's default is four)."""
    db.execute(
        "CREATE VIRTUAL TABLE episodes_fts USING fts5"
        f" (question, answer, lesson, content = '', tokenize = \"{TOKENIZE}\")"
    )
    configure(db, "secure-delete", 1)
    configure(db, "usermerge", 2)


def configure(db: Database, option: str, value: int) -> None:
    """Set one of the index's persistent options."""
    db.execute(f"INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('{option}', {value})")


def _merge(db: Database, pages: int) -> bool:
    """FTS5's 'merge' of about ``abs(pages)`` pages (negative: start merging every
    segment into one); whether it did any work, which FTS5 tells by changing two rows or
    more."""
    before = db.conn.total_changes
    with transaction(db):
        db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('merge', ?)", [pages])
    return db.conn.total_changes - before >= 2


def tidy_index(db: Database, pages: int = MERGE_PAGES) -> bool:
    """One step of the index's upkeep, writing at most about ``pages`` pages; True while
    there is more to do. It goes on with a merge under way, else merges two segments of
    one level, else starts merging all of them into one when the segments besides the
    largest hold :data:`FULL_MERGE_SHARE`-th of its pages."""
    if _merge(db, pages):
        return True
    sizes = sorted(
        (row[0] for row in db.execute("SELECT count(*) FROM episodes_fts_idx GROUP BY segid")),
        reverse=True,
    )
    if len(sizes) > 1 and sum(sizes[1:]) * FULL_MERGE_SHARE >= sizes[0]:
        return _merge(db, -pages)
    return False


def partitions(episode: Episode, *, channel: bool) -> list[tuple[int, str]]:
    """(rowid, key) of each partition the episode is recalled from while validated: its
    asker's, and a channel success its channel's too while the store files channel
    partitions (``channel``, see :func:`align_channel_partitions`)."""
    keys = [(episode.id, personal_key(episode.scope, episode.requester_id))]
    if channel and Visibility.shareable(episode):
        keys.append((-episode.id, channel_key(episode.scope)))
    return keys


def _channel_partitions_filed(db: Database) -> bool:
    row = db.execute("SELECT value FROM index_state WHERE name = 'channel_partitions'").fetchone()
    return bool(row[0])


def align_channel_partitions(db: Database, *, share: bool) -> int:
    """File channel successes in their channel's partition exactly while channel
    successes are shared (``share``): when the setting changed since the store was last
    opened, file or take out those entries now. Returns how many episodes it changed.

    Those entries serve only recall across a channel's members; kept when nobody shares
    (the default), a channel success would be indexed twice for nothing."""
    if _channel_partitions_filed(db) == share:
        return 0
    file_waiting(db)  # what waits is filed as the store filed until now, then realigned
    changed = 0
    with transaction(db):
        if _channel_partitions_filed(db) == share:  # another connection aligned it meanwhile
            return 0
        for successes in _channel_successes(db):
            entries = [_entry(-e.id, channel_key(e.scope), e) for e in successes]
            if share:
                db.conn.executemany(_FILE, entries)
                file_vectors(db, [(e, [channel_key(e.scope)]) for e in successes])
            else:
                _unfile_vectors(db, [(e.id, channel_key(e.scope)) for e in successes])
                db.conn.executemany(_DELETE, entries)
            changed += len(successes)
        db.execute(
            "UPDATE index_state SET value = ? WHERE name = 'channel_partitions'", [int(share)]
        )
    return changed


def _channel_successes(db: Database) -> Iterator[list[Episode]]:
    """The store's channel successes, :data:`ALIGN_CHUNK` at a time, by id."""
    last = 0
    while rows := list(
        db.query(
            "SELECT * FROM episodes WHERE id > ? AND kind = ? AND status = ? ORDER BY id LIMIT ?",
            [last, ConversationKind.CHANNEL.value, EpisodeStatus.SUCCESS.value, ALIGN_CHUNK],
        )
    ):
        last = rows[-1]["id"]
        yield [episode_from_row(row) for row in rows]


def _entry(rowid: int, key: str, episode: Episode) -> tuple[int, str, str, str]:
    """One row of the index: the question (with the day it was asked, see
    :func:`memory.recall_query.date_words`), answer and lesson as filed under ``key``."""
    return (
        rowid,
        partitioned(key, f"{episode.question} {date_words(episode.created_at)}"),
        partitioned(key, episode.answer),
        partitioned(key, episode.lesson or ""),
    )


def _entries(episode: Episode, *, channel: bool) -> list[tuple[int, str, str, str]]:
    """The index rows of the episode as it is now: one per partition it is recalled from
    while validated, none while pending."""
    if episode.status is EpisodeStatus.PENDING:
        return []
    return [_entry(rowid, key, episode) for rowid, key in partitions(episode, channel=channel)]


def index_validated(db: Database, *, vectors: bool) -> None:
    """File every validated episode, in every partition, in a new and empty index (and
    ``vectors``): the migrations that rebuild it. The bot files with :func:`file_episodes`."""
    validated = db.query("SELECT id FROM episodes WHERE status IN ('success', 'failure')")
    for row in list(validated):
        for episode in _validated(db, [row["id"]]):
            db.conn.executemany(_FILE, _entries(episode, channel=True))
            if vectors:
                file_vectors(db, [(episode, [key for _, key in partitions(episode, channel=True)])])


def unindex_episodes(db: Database, episode_ids: Iterable[int]) -> None:
    """Take the episodes' entries out, with the text their rows hold now (call it before
    the rows change or go). Only rows the index holds are named: a 'delete' of a row it
    does not hold would corrupt it. Their vectors go too, from every partition the
    episode could have been filed in."""
    deleted = False
    for episode in _validated(db, list(episode_ids)):  # gone or pending: no entries
        keys = [personal_key(episode.scope, episode.requester_id)]
        if episode.scope.kind is ConversationKind.CHANNEL:
            keys.append(channel_key(episode.scope))
        _unfile_vectors(db, [(episode.id, key) for key in keys])
        held = {
            row[0]
            for row in db.execute(
                "SELECT rowid FROM episodes_fts WHERE rowid IN (?, ?)", [episode.id, -episode.id]
            )
        }
        entries = [entry for entry in _entries(episode, channel=True) if entry[0] in held]
        db.conn.executemany(_DELETE, entries)
        deleted = deleted or bool(entries)
    if deleted:
        _flush(db)


def _validated(db: Database, episode_ids: Sequence[int]) -> list[Episode]:
    """The episodes of these ids that exist and are not pending: those the index may hold."""
    rows = db.conn.execute(
        "SELECT * FROM episodes WHERE id IN (SELECT value FROM json_each(?))"
        " AND status != 'pending'",
        [json.dumps(list(episode_ids))],
    )
    columns = [column[0] for column in rows.description]
    return [episode_from_row(dict(zip(columns, row, strict=True))) for row in rows]


def _flush(db: Database) -> None:
    """Write FTS5's pending changes to the index now (a savepoint makes it flush).

    With ``secure-delete``, a 'delete' and a new entry of the same rowid flushed together
    leave the old entry's longer position lists behind (SQLite 3.51: a term repeated a few
    hundred times stays, on disk and in the index, after every later delete); flushed
    one after the other, the delete removes them all."""
    db.conn.execute("SAVEPOINT fts_flush")
    db.conn.execute("RELEASE fts_flush")


def file_episodes(db: Database, episode_ids: Sequence[int]) -> int:
    """File the entries and vectors of these episodes (none may have any yet) as their rows
    are now, all at once, and take them off the queue; how many were filed. A pending or
    erased one is taken off the queue and filed nowhere."""
    episodes = _validated(db, episode_ids)
    channel = _channel_partitions_filed(db)
    db.conn.executemany(
        _FILE, [entry for episode in episodes for entry in _entries(episode, channel=channel)]
    )
    keys = [[key for _, key in partitions(episode, channel=channel)] for episode in episodes]
    file_vectors(db, list(zip(episodes, keys, strict=True)))
    db.conn.executemany(
        "DELETE FROM index_queue WHERE episode_id = ?", [(id_,) for id_ in episode_ids]
    )
    return len(episodes)


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


def _unfile_vectors(db: Database, filed: Sequence[tuple[int, str]]) -> None:
    """Take out the vectors of these (episode id, partition key)."""
    db.conn.executemany(
        "DELETE FROM episode_vectors WHERE partition = ? AND episode_id = ?",
        [(partition_number(key), episode_id) for episode_id, key in filed],
    )


def partition_vectors(db: Database, partitions: Sequence[str]) -> tuple[list[int], bytes]:
    """The episode id of every vector stored in these partitions, and the vectors."""
    marks = ", ".join("?" for _ in partitions)
    rows = db.execute(
        f"SELECT episode_id, vector FROM episode_vectors WHERE partition IN ({marks})",
        [partition_number(key) for key in partitions],
    ).fetchall()
    return [row[0] for row in rows], b"".join(row[1] for row in rows)


def _waiting(db: Database, scope: Scope | None, limit: int) -> list[int]:
    where = "" if scope is None else " WHERE team_id = ? AND channel_id = ?"
    return [
        row[0]
        for row in db.execute(
            "SELECT episode_id FROM index_queue"
            # CROSS JOIN: the (short) queue drives the loop; with a plain JOIN SQLite scans
            # every episode of the store at each recall.
            + ("" if scope is None else " CROSS JOIN episodes ON episodes.id = episode_id")
            + f"{where} ORDER BY episode_id LIMIT ?",
            [*([] if scope is None else [scope.team_id, scope.channel_id]), limit],
        )
    ]


def file_waiting(db: Database, *, scope: Scope | None = None, limit: int = -1) -> int:
    """File up to ``limit`` waiting episodes (all by default), oldest first, in one
    transaction; only those of ``scope``'s conversation, given one. How many were waiting.

    The queue is read again once the transaction holds the write lock: another connection
    to the file (the admin CLI opening it files what waits) may have filed them meanwhile,
    and an entry filed twice would outlive its episode's erasure. The first read, without
    the lock, spares a recall the lock when nothing waits."""
    if not _waiting(db, scope, limit):
        return 0
    with transaction(db):
        waiting = _waiting(db, scope, limit)
        file_episodes(db, waiting)
    return len(waiting)
