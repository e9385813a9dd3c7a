"""The full-text index of validated episodes, and when their vectors are filed.

Each validated episode has one row per partition it belongs to (see
:mod:`memory.privacy`): ``rowid = id`` in its asker's partition and, a channel
success, ``rowid = -id`` in its channel's. Pending episodes have none.

The index is *contentless* (``content=''``): it holds the postings and nothing else, no
second copy of the partition-keyed text (that copy was two thirds of the file). Recall
reads only the postings, ``bm25()`` and the rowid. Such a table forgets a row only when
told the exact text it indexed, so the index's entries are always a function of the
episode's row (:func:`_entries`): every change to an indexed row goes through
:func:`reindexing`, which takes the entries out with the row's text *before* the change
and files them again after; a change to how words are indexed (:func:`partitioned`, the
partition keys) needs a migration that rebuilds the index.

With FTS5's ``secure-delete`` (:func:`secure_delete`), taking a row out removes its
postings from the segments that held them at once, so an erasure rewrites only those
pages, never the whole index, and leaves none of the words in the file. (A contentless
table with ``contentless_delete=1`` would take rows out by rowid alone, but by tombstone:
their postings stay on disk until a merge reaches them.)

Semantic recall's vectors (:mod:`memory.sqlite.vectors`) follow the same changes: taken
out with the entries, filed again with them.

FTS5 writes each transaction's entries as a new *segment* and merges segments as they
pile up; a query, and every deleted entry, looks each of its terms up in every segment,
so their number is what recall and erasure pay for. A store that grows one vote at a
time keeps about twenty. The periodic upkeep (:func:`tidy_index`, in short steps)
merges any two segments of one level, and, once the segments besides the largest add up
to a sixteenth of it, all of them into one: a store keeps a handful.

Filing can wait (``reindexing(..., later=True)``, what a vote does): the episode's id goes
into ``index_queue`` in the change's own transaction, and :func:`file_waiting` files the
queue in batches, one transaction each (a batch embeds its texts together and writes one
index segment instead of one per episode). So at every commit each episode's entries are
either absent or exactly what its row says, and an episode whose entries are absent while
it is validated is in the queue. Recall files its conversation's waiting episodes before
it searches (:meth:`memory.sqlite.session.SQLiteSession.recall_search`), so the question
right after a vote sees it; the queue holds only ids, and a row's erasure takes its id
along (``ON DELETE CASCADE``). Whatever rebuilds or realigns the index from the episodes
files the queue first (as opening the store does) or empties it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from sqlite_utils import Database

from memory.models import ConversationKind, Episode, EpisodeStatus, Scope
from memory.privacy import Visibility, channel_key, personal_key
from memory.recall_query import date_words, indexed_words
from memory.sqlite.codec import episode_from_row
from memory.sqlite.transactions import transaction
from memory.sqlite.vectors import file_vectors, unindex_vectors

BM25_WEIGHTS = "2.0, 1.0, 1.0"
"""bm25() weights of question, answer and lesson: a matching question counts most."""

TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '_'"
"""Porter stemming; ``_`` joins a partition key to its word in one token."""

HITS = f"""hits AS MATERIALIZED (
  SELECT abs(rowid) AS id, bm25(episodes_fts, {BM25_WEIGHTS}) AS bm25
  FROM episodes_fts WHERE episodes_fts MATCH %(match)s
)"""
"""Recall's full-text search (:func:`memory.sql.recall.matches`): the partition keys inside
the MATCH (:func:`memory.recall_query.fts5_match`) make the index visit only the asker's
partitions; a channel success is found as ``rowid`` ``-id`` in its channel's."""

_Entry = tuple[int, str, str, str]
"""One row of the index: rowid, then the question (with the day it was asked, see
:func:`memory.recall_query.date_words`), answer and lesson as indexed."""


CREATE_INDEX_QUEUE = """
CREATE TABLE index_queue (
    episode_id INTEGER PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE
)
"""
"""Episodes whose entries (and vectors) wait to be filed: ids only, gone with their row."""


def partitioned(key: str, text: str) -> str:
    """``text`` as the index holds it for partition ``key``: ``<key>_<word>`` each word."""
    return " ".join(f"{key}_{word}" for word in indexed_words(text))


MERGE_PAGES = 200
"""Index pages one step of the upkeep writes at most: a few tens of milliseconds of the
database thread, which serves every other call between two steps."""

FULL_MERGE_SHARE = 16
"""The upkeep merges every segment into one once the others hold 1/16 of the largest's
pages: each page is then rewritten about 16 times more, never the whole index hourly."""


def create_index(db: Database) -> None:
    """Create the (empty) contentless index, deleting in place, merged by the upkeep."""
    db.execute(
        "CREATE VIRTUAL TABLE episodes_fts USING fts5"
        f" (question, answer, lesson, content = '', tokenize = \"{TOKENIZE}\")"
    )
    secure_delete(db)
    merge_pairs(db)


def secure_delete(db: Database) -> None:
    """Make the index remove a deleted row's postings in place (a persistent setting)."""
    db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('secure-delete', 1)")


def merge_pairs(db: Database) -> None:
    """Let the upkeep's merges take two segments of one level, not FTS5's default four
    (a persistent setting)."""
    db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('usermerge', 2)")


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


def channel_partitions_filed(db: Database) -> bool:
    """Whether the store files channel successes in their channel's partition too."""
    row = db.execute("SELECT value FROM index_state WHERE name = 'channel_partitions'").fetchone()
    return bool(row[0])


def align_channel_partitions(db: Database, *, share: bool) -> int:
    """File channel successes in their channel's partition exactly while channel
    successes are shared (``share``): when the setting changed since the store was last
    opened, file or take out those entries now. Returns how many episodes it changed.

    Those entries serve only recall across a channel's members; kept when nobody shares
    (the default), a channel success would be indexed twice for nothing."""
    if channel_partitions_filed(db) == share:
        return 0
    file_waiting(db)  # what waits is filed as the store filed until now, then realigned
    changed = 0
    with transaction(db):
        if channel_partitions_filed(db) == share:  # another connection aligned it meanwhile
            return 0
        for successes in _channel_successes(db):
            entries = [_entry(-e.id, channel_key(e.scope), e) for e in successes]
            if share:
                db.conn.executemany(_FILE, entries)
                file_vectors(db, [(e, [channel_key(e.scope)]) for e in successes])
            else:
                for episode in successes:
                    unindex_vectors(db, episode.id, [channel_key(episode.scope)])
                db.conn.executemany(_DELETE, entries)
            changed += len(successes)
        db.execute(
            "UPDATE index_state SET value = ? WHERE name = 'channel_partitions'", [int(share)]
        )
    return changed


ALIGN_CHUNK = 1_000
"""Channel successes read at a time while aligning: a large store's never all in memory."""


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


def _possible_keys(episode: Episode) -> list[str]:
    """Every partition the episode may be filed in, whatever its status."""
    keys = [personal_key(episode.scope, episode.requester_id)]
    if episode.scope.kind is ConversationKind.CHANNEL:
        keys.append(channel_key(episode.scope))
    return keys


def _entry(rowid: int, key: str, episode: Episode) -> _Entry:
    return (
        rowid,
        partitioned(key, f"{episode.question} {date_words(episode.created_at)}"),
        partitioned(key, episode.answer),
        partitioned(key, episode.lesson or ""),
    )


def _entries(episode: Episode, *, channel: bool) -> list[_Entry]:
    """The index rows of the episode as it is now: one per partition it is recalled from
    while validated (see :func:`partitions`), none while pending."""
    if episode.status is EpisodeStatus.PENDING:
        return []
    return [_entry(rowid, key, episode) for rowid, key in partitions(episode, channel=channel)]


_FILE = "INSERT INTO episodes_fts (rowid, question, answer, lesson) VALUES (?, ?, ?, ?)"
_DELETE = (
    "INSERT INTO episodes_fts (episodes_fts, rowid, question, answer, lesson)"
    " VALUES ('delete', ?, ?, ?, ?)"
)


def index_episode(db: Database, episode_id: int, *, channel: bool) -> None:
    """File the episode's entries (it must have none yet), in its channel's partition too
    when ``channel``. (The migrations that rebuild the index; the bot files through
    :func:`file_episodes`.)"""
    for episode in _validated(db, [episode_id]):
        db.conn.executemany(_FILE, _entries(episode, channel=channel))


def unindex_episodes(db: Database, episode_ids: Iterable[int]) -> None:
    """Take the episodes' entries out, with the text their rows hold now (call it before
    the rows change or go). Only rows the index holds are named: a 'delete' of a row it
    does not hold would corrupt it. Their vectors go too, from every partition the
    episode could have been filed in."""
    deleted = False
    for episode in _validated(db, list(episode_ids)):  # gone or pending: no entries
        unindex_vectors(db, episode.id, _possible_keys(episode))
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
    channel = channel_partitions_filed(db)
    db.conn.executemany(
        _FILE, [entry for episode in episodes for entry in _entries(episode, channel=channel)]
    )
    keys = [[key for _, key in partitions(episode, channel=channel)] for episode in episodes]
    file_vectors(db, list(zip(episodes, keys, strict=True)))
    db.conn.executemany(
        "DELETE FROM index_queue WHERE episode_id = ?", [(id_,) for id_ in episode_ids]
    )
    return len(episodes)


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


@contextmanager
def reindexing(
    db: Database, episode_id: int, *, later: bool = False, indexed: bool = True
) -> Iterator[None]:
    """Keep the index agreeing with the episode across a change to its row, made inside
    the ``with``: indexed exactly while it is validated, with its text as it is then (and
    its vector). ``later`` queues the filing for :func:`file_waiting` instead. ``indexed``
    False says the episode is pending, which the index never holds: nothing to take out."""
    if indexed:
        unindex_episodes(db, [episode_id])
    yield
    if later:
        db.conn.execute("INSERT OR IGNORE INTO index_queue (episode_id) VALUES (?)", [episode_id])
    else:
        file_episodes(db, [episode_id])
