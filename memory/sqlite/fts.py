"""FTS5's index of validated episodes and their vectors, and the write transactions that
change them (memory/README.md, *SQLite's full-text index* and *The index queue*)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from sqlite_utils import Database

from memory.models import ConversationKind, Episode, EpisodeStatus, Scope
from memory.privacy import Visibility, channel_key, personal_key
from memory.recall_query import date_words, indexed_words
from memory.rows import episode_from_row
from memory.sqlite.codec import from_db_time
from memory.vectors import episode_vectors

TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '_'"
"""Porter stemming; ``_`` joins a partition key to its word in one token."""

HITS = """hits AS MATERIALIZED (
  SELECT abs(rowid) AS id, bm25(episodes_fts, 2.0, 1.0, 1.0) AS bm25
  FROM episodes_fts WHERE episodes_fts MATCH %(match)s
)"""
"""Recall's full-text search (:func:`memory.sql.recall.matches`), a question weighing twice
an answer or lesson; the partition keys in the MATCH keep it to the asker's partitions."""

MERGE_PAGES = 200
"""Index pages one step of the upkeep writes at most: a few tens of milliseconds of the
database thread, which serves every other call between two steps."""
FULL_MERGE_SHARE = 16
ALIGN_CHUNK = 1_000
"""Channel successes read at a time while aligning: a large store's never all in memory."""

_FILE = "INSERT INTO episodes_fts (rowid, question, answer, lesson) VALUES (?, ?, ?, ?)"
_DELETE = (
    "INSERT INTO episodes_fts (episodes_fts, rowid, question, answer, lesson)"
    " VALUES ('delete', ?, ?, ?, ?)"
)

_Filing = list[tuple[Episode, list[tuple[int, str]]]]


@contextmanager
def transaction(db: Database) -> Iterator[None]:
    """A write transaction, or a savepoint inside the caller's; undone on error. The outermost
    begins IMMEDIATE, locking before its first read: a deferred one (sqlite-utils' ``atomic()``)
    that reads, then writes after another connection (the admin CLI) committed, fails at once
    with "database is locked". A fixed savepoint name lets a vote reuse compiled statements."""
    outer = not db.conn.in_transaction
    db.conn.execute("BEGIN IMMEDIATE" if outer else "SAVEPOINT nested")
    try:
        yield
        db.conn.execute("COMMIT" if outer else "RELEASE nested")
    except BaseException:
        if outer:
            db.conn.rollback()  # a no-op when the error already ended the transaction
        elif db.conn.in_transaction:  # some errors end the whole transaction
            db.conn.execute("ROLLBACK TO nested")
            db.conn.execute("RELEASE nested")
        raise


def partitioned(key: str, text: str) -> str:
    """``text`` as the index holds it for partition ``key``: ``<key>_<word>`` each word."""
    return " ".join(f"{key}_{word}" for word in indexed_words(text))


def partition_number(key: str) -> int:
    """The partition ``key`` as the vectors table stores it: 8 bytes of its hash (a 1-in-10^10
    chance of a clash with a million partitions, and recall checks every scope anyway)."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big", signed=True)


def _merge(db: Database, pages: int) -> bool:
    """FTS5's 'merge' of about ``abs(pages)`` pages (negative: start merging every segment
    into one); whether it did any work, which FTS5 tells by changing two rows or more."""
    before = db.conn.total_changes
    with transaction(db):
        db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('merge', ?)", [pages])
    return db.conn.total_changes - before >= 2


def tidy_index(db: Database, pages: int = MERGE_PAGES) -> bool:
    """One step of the index's upkeep, writing about ``pages`` pages; True while there is more
    to do. Each transaction writes a segment, and a query or delete looks each term up in every
    segment: a step goes on with a merge under way, else merges two segments of one level, else
    starts merging all into one once those besides the largest hold 1/:data:`FULL_MERGE_SHARE`
    of its pages (a page rewritten about that many times more, never the whole index hourly)."""
    if _merge(db, pages):
        return True
    sql = "SELECT count(*) FROM episodes_fts_idx GROUP BY segid"
    sizes = sorted((size for (size,) in db.execute(sql)), reverse=True)
    return len(sizes) > 1 and sum(sizes[1:]) * FULL_MERGE_SHARE >= sizes[0] and _merge(db, -pages)


def _channel_partitions_filed(db: Database) -> bool:
    row = db.execute("SELECT value FROM index_state WHERE name = 'channel_partitions'").fetchone()
    return bool(row[0])


def align_channel_partitions(db: Database, *, share: bool) -> int:
    """File channel successes in their channel's partition exactly while they are shared
    (else each is indexed twice for nothing): if ``share`` changed since the store was last
    opened, file or take out those entries now. How many episodes it changed."""
    if _channel_partitions_filed(db) == share:
        return 0
    file_waiting(db)  # what waits is filed as the store filed until now, then realigned
    changed = last = 0
    with transaction(db):
        if _channel_partitions_filed(db) == share:  # another connection aligned it meanwhile
            return 0
        sql = "SELECT * FROM episodes WHERE id > ? AND kind = ? AND status = ? ORDER BY id LIMIT ?"
        kind, status = ConversationKind.CHANNEL.value, EpisodeStatus.SUCCESS.value
        while rows := list(db.query(sql, [last, kind, status, ALIGN_CHUNK])):
            last = rows[-1]["id"]
            successes = [episode_from_row(row, from_db_time) for row in rows]
            filing = [(e, [(-e.id, channel_key(e.scope))]) for e in successes]
            if share:
                _file(db, filing)
            else:
                _unfile_vectors(db, [(e.id, channel_key(e.scope)) for e in successes])
                db.conn.executemany(_DELETE, [_entry(*part, e) for e, [part] in filing])
            changed += len(successes)
        db.execute(
            "UPDATE index_state SET value = ? WHERE name = 'channel_partitions'", [int(share)]
        )
    return changed


def _entry(rowid: int, key: str, episode: Episode) -> tuple[int, str, str, str]:
    """The episode's index row in partition ``key``, its question with the day asked."""
    return (
        rowid,
        partitioned(key, f"{episode.question} {date_words(episode.created_at)}"),
        partitioned(key, episode.answer),
        partitioned(key, episode.lesson or ""),
    )


def _file(db: Database, filing: _Filing, *, vectors: bool = True) -> None:
    """File the validated episodes' entries in the (rowid, key) partitions each is given, and
    (embedded together, and only with a model: else recall is full-text only) their vectors."""
    db.conn.executemany(_FILE, [_entry(*part, e) for e, parts in filing for part in parts])
    if not vectors:
        return
    embedded = episode_vectors([episode for episode, _ in filing])
    db.conn.executemany(
        "INSERT OR REPLACE INTO episode_vectors (partition, episode_id, vector) VALUES (?, ?, ?)",
        [
            (partition_number(key), episode.id, vector)
            for (episode, parts), vector in zip(filing, embedded, strict=True)
            if vector is not None
            for _, key in parts
        ],
    )


def _unfile_vectors(db: Database, filed: Sequence[tuple[int, str]]) -> None:
    db.conn.executemany(
        "DELETE FROM episode_vectors WHERE partition = ? AND episode_id = ?",
        [(partition_number(key), episode_id) for episode_id, key in filed],
    )


def _validated(db: Database, episode_ids: Sequence[int], *, channel: bool) -> _Filing:
    """The episodes of these ids that exist and are not pending (those the index may hold),
    each with the (rowid, key) of each partition it is recalled from: its asker's (``id``),
    and a channel success's channel's (``-id``) while the store files those."""
    rows = db.conn.execute(
        "SELECT * FROM episodes WHERE id IN (SELECT value FROM json_each(?))"
        " AND status != 'pending'",
        [json.dumps(list(episode_ids))],
    )
    columns = [column[0] for column in rows.description]
    filing: _Filing = []
    for row in rows:
        episode = episode_from_row(dict(zip(columns, row, strict=True)), from_db_time)
        parts = [(episode.id, personal_key(episode.scope, episode.requester_id))]
        if channel and Visibility.shareable(episode):
            parts.append((-episode.id, channel_key(episode.scope)))
        filing.append((episode, parts))
    return filing


def index_validated(db: Database, *, vectors: bool) -> None:
    """File every validated episode in every partition of a new, empty index (and
    ``vectors``), for the migrations that rebuild it."""
    for row in list(db.query("SELECT id FROM episodes WHERE status IN ('success', 'failure')")):
        _file(db, _validated(db, [row["id"]], channel=True), vectors=vectors)


def file_episodes(db: Database, episode_ids: Sequence[int]) -> int:
    """File these episodes (none may have entries yet) as their rows are now, and take them
    off the queue; how many were filed (a pending or erased one is not)."""
    filing = _validated(db, episode_ids, channel=_channel_partitions_filed(db))
    _file(db, filing)
    db.conn.executemany(
        "DELETE FROM index_queue WHERE episode_id = ?", [(id_,) for id_ in episode_ids]
    )
    return len(filing)


def unindex_episodes(db: Database, episode_ids: Iterable[int]) -> None:
    """Take the episodes' entries out with the text their rows hold now (before the rows
    change or go), and their vectors from every partition they may be filed in. Only
    entries the index holds are named: a 'delete' of one it does not hold corrupts it."""
    deleted = False
    for episode, parts in _validated(db, list(episode_ids), channel=True):
        keys = [personal_key(episode.scope, episode.requester_id)]
        if episode.scope.kind is ConversationKind.CHANNEL:
            keys.append(channel_key(episode.scope))
        _unfile_vectors(db, [(episode.id, key) for key in keys])
        sql = "SELECT rowid FROM episodes_fts WHERE rowid IN (?, ?)"
        held = {rowid for (rowid,) in db.execute(sql, [episode.id, -episode.id])}
        parts = [part for part in parts if part[0] in held]
        db.conn.executemany(_DELETE, [_entry(*part, episode) for part in parts])
        deleted = deleted or bool(parts)
    # Write FTS5's pending changes now (a savepoint flushes them): with secure-delete, a
    # 'delete' flushed with a new entry of the same rowid leaves the old entry's longer
    # position lists behind (SQLite 3.51: a term repeated a few hundred times stays).
    if deleted:
        db.conn.execute("SAVEPOINT fts_flush")
        db.conn.execute("RELEASE fts_flush")


def partition_vectors(db: Database, partitions: Sequence[str]) -> tuple[list[int], bytes]:
    """The episode id of every vector stored in these partitions, and the vectors."""
    marks = ", ".join("?" for _ in partitions)
    rows = db.execute(
        f"SELECT episode_id, vector FROM episode_vectors WHERE partition IN ({marks})",
        [partition_number(key) for key in partitions],
    ).fetchall()
    return [row[0] for row in rows], b"".join(row[1] for row in rows)


def file_waiting(db: Database, *, scope: Scope | None = None, limit: int = -1) -> int:
    """File up to ``limit`` waiting episodes (all by default; only ``scope``'s conversation's,
    given one), oldest first, in one transaction; how many were waiting. The queue is read
    again under the write lock: another connection (the admin CLI) may have filed them
    meanwhile, and an entry filed twice would outlive its episode's erasure."""
    sql, params = "SELECT episode_id FROM index_queue", []
    if scope is not None:  # CROSS JOIN: the short queue drives the join, not the episodes
        sql += " CROSS JOIN episodes ON episodes.id = episode_id"
        sql += " WHERE team_id = ? AND channel_id = ?"
        params = [scope.team_id, scope.channel_id]
    sql, params = f"{sql} ORDER BY episode_id LIMIT ?", [*params, limit]
    if not db.execute(sql, params).fetchall():
        return 0
    with transaction(db):
        waiting = [episode_id for (episode_id,) in db.execute(sql, params)]
        file_episodes(db, waiting)
    return len(waiting)
