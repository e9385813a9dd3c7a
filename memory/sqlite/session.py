"""SQLite's :class:`memory.sql.session.Session`, and :func:`run_to_end`, which runs a verb
without an event loop (memory/README.md, *One verb, two databases*)."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from sqlite_utils import Database

from memory.config import MemoryConfig
from memory.models import Episode, EpisodeStatus, RecallRequest
from memory.recall_query import question_match
from memory.rows import episode_from_row
from memory.sql.recall import matches
from memory.sql.session import Params, Session, placeholders
from memory.sqlite import fts
from memory.sqlite.codec import from_db_time, to_db_time

T = TypeVar("T")

logger = logging.getLogger(__name__)

_LESSONS = (
    "SELECT * FROM episodes INDEXED BY episodes_awaiting_lesson"
    " WHERE status = 'failure' AND lesson IS NULL"
)
AWAITING_LESSONS_SQL = f"{_LESSONS} ORDER BY validated_at, id LIMIT ?"
AWAITING_REFLECTION_SQL = (
    f"SELECT * FROM ({_LESSONS} UNION ALL SELECT episodes.* FROM score_queue CROSS JOIN episodes"
    " ON episodes.id = score_queue.episode_id"
    " WHERE episodes.status = 'success' AND episodes.importance IS NULL)"
    " ORDER BY validated_at, id LIMIT ?"
)
"""The reflection queue, unleased (one process reflects), oldest vote first: failures
awaiting a lesson, from their own partial index, and (``with_successes``) the successes in
``score_queue``, which holds them only while recall weighs importance (``CROSS JOIN`` reads
the queue first, where the planner would read every success)."""

SECRET_NAME = "digests"
_secrets: WeakKeyDictionary[Database, bytes] = WeakKeyDictionary()
"""Each connection's digest secret, read once: it never changes once created."""
_ISSUED = "episode_ids_issued"


@lru_cache(maxsize=512)
def _markers(sql: str) -> str:
    """PostgreSQL's ``%s``, ``%(name)s`` and ``%%`` as SQLite's ``?``, ``:name`` and ``%``."""
    return re.sub(r"%\((\w+)\)s", r":\1", sql.replace("%s", "?")).replace("%%", "%")


def _value(value: Any) -> Any:
    """A time as :mod:`memory.sqlite.codec` stores it, an interval in microseconds, and a
    list as JSON (read with ``json_each``)."""
    if isinstance(value, datetime):
        return to_db_time(value)
    if isinstance(value, timedelta):
        return value // timedelta(microseconds=1)
    return json.dumps(value) if isinstance(value, list) else value


def _params(params: Params) -> Any:
    if isinstance(params, Mapping):
        return {name: _value(value) for name, value in params.items()}
    return [_value(value) for value in params]


class SQLiteSession(Session):
    one_process = True
    time_shifted = "printf('%%018d', {time} {sign} %(window)s)"
    episodes_by_id = (
        "json_each(%(ids)s) AS wanted CROSS JOIN episodes ON episodes.id = wanted.value"
    )
    """``CROSS JOIN`` keeps the ids in charge: with ``id IN (...)`` the planner read every
    validated episode of the store through the status index (100 ms at a million)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def rows(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        """On the connection itself (sqlite-utils' ``query`` wraps each statement in a savepoint,
        two statements more); a lone write (``RETURNING``) commits at once, as ``execute``'s."""
        lone = not self.db.conn.in_transaction
        try:
            cursor = self.db.conn.execute(_markers(sql), _params(params))
            columns = [column[0] for column in cursor.description or ()]
            found = [dict(zip(columns, row, strict=True)) for row in cursor]
        except BaseException:
            if lone and self.db.conn.in_transaction:
                self.db.conn.rollback()
            raise
        if lone and self.db.conn.in_transaction:
            self.db.conn.commit()
        return found

    async def execute(self, sql: str, params: Params = ()) -> int:
        return self.db.execute(_markers(sql), _params(params)).rowcount

    def digest(self, text: str) -> str:
        if (secret := _secrets.get(self.db)) is None:
            secret = _secrets[self.db] = self.db.conn.execute(
                "SELECT value FROM secrets WHERE name = ?", [SECRET_NAME]
            ).fetchone()[0]
        return hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()

    def read_time(self, value: Any) -> datetime:
        return from_db_time(value)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        with fts.transaction(self.db):
            yield

    @asynccontextmanager
    async def refiling(self, episode_ids: Sequence[int]) -> AsyncIterator[None]:
        fts.unindex_episodes(self.db, episode_ids)  # under the keys they were filed with
        yield
        fts.file_episodes(self.db, episode_ids)

    @asynccontextmanager
    async def restating(
        self, episode_id: int, was: EpisodeStatus, now: EpisodeStatus, config: MemoryConfig
    ) -> AsyncIterator[None]:
        """In the score queue exactly while a success awaits a score recall would use."""
        if was is not EpisodeStatus.PENDING:  # the index holds no pending episode
            fts.unindex_episodes(self.db, [episode_id])
        yield
        if was is EpisodeStatus.SUCCESS:
            await self.scored(episode_id)
        if now is EpisodeStatus.SUCCESS and config.weights.importance > 0:
            self.db.execute("INSERT INTO score_queue (episode_id) VALUES (?)", [episode_id])
        self.db.conn.execute(
            "INSERT OR IGNORE INTO index_queue (episode_id) VALUES (?)", [episode_id]
        )

    async def unindex(self, episode_ids: Sequence[int]) -> None:
        fts.unindex_episodes(self.db, episode_ids)

    def one_of(self, values: Sequence[int] | Sequence[str]) -> tuple[str, Any]:
        return "IN (SELECT value FROM json_each(%s))", json.dumps(list(values))

    async def insert_episode(
        self, values: Mapping[str, Any], where: tuple[str, Sequence[Any]]
    ) -> int | None:
        """Numbered from the counter of ids issued (SQLite would reuse the largest rowid
        once it is deleted), so known before the insert, which needs no ``RETURNING``:
        SQLite takes longer for an insert with one than for the insert and a read back."""
        [episode_id] = self.db.execute(
            "SELECT max(coalesce((SELECT value FROM counters WHERE name = ?), 0),"
            " coalesce((SELECT max(id) FROM episodes), 0)) + 1",
            [_ISSUED],
        ).fetchone()
        self.db.execute(
            "INSERT INTO counters (name, value) VALUES (?, ?)"
            " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            [_ISSUED, episode_id],
        )
        row = {"id": episode_id, **values}
        condition, params = where
        inserted = await self.execute(
            f"INSERT INTO episodes ({', '.join(row)}) SELECT {placeholders(len(row))}"
            f" WHERE {condition}",
            [*row.values(), *params],
        )
        return episode_id if inserted else None

    async def file_new(self, episode: Episode) -> None:
        fts.file_episodes(self.db, [episode.id])

    async def awaiting_reflection(
        self, limit: int, with_successes: bool, holder: str
    ) -> list[Episode]:
        sql = AWAITING_REFLECTION_SQL if with_successes else AWAITING_LESSONS_SQL
        return [episode_from_row(row, from_db_time) for row in self.db.query(sql, [limit])]

    async def scored(self, episode_id: int) -> None:
        self.db.execute("DELETE FROM score_queue WHERE episode_id = ?", [episode_id])

    async def recall_search(
        self,
        request: RecallRequest,
        keys: Sequence[str],
        params: Mapping[str, Any],
        *,
        lexical: bool,
        semantic: bool,
    ) -> tuple[list[dict[str, Any]], list[int], bytes]:
        """After filing the conversation's episodes that votes left waiting: the question
        right after a vote sees it."""
        fts.file_waiting(self.db, scope=request.scope)
        match = self.full_text_match(request.text, keys) if lexical else None
        sql = f"WITH {fts.HITS} {matches(self)}"
        rows = await self.rows(sql, {**params, "match": match}) if match else []
        return rows, *(fts.partition_vectors(self.db, keys) if semantic else ([], b""))

    def full_text_match(self, question: str, keys: Sequence[str]) -> str | None:
        """The FTS5 query of the question in these partitions (benchmarks try others)."""
        return question_match(question, keys)

    async def increment(self, name: str, by: int) -> None:
        self.db.execute(
            "INSERT INTO counters (name, value) VALUES (?, ?)"
            " ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
            [name, by],
        )

    async def counts(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT name, value FROM counters").fetchall())

    async def scrub(self) -> None:
        """Empty the write-ahead log into the file, whose freed pages ``secure_delete`` zeroed;
        another connection mid-read (a CLI) keeps old pages in the log until a full checkpoint."""
        busy, _, _ = self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            logger.warning("erased rows; the write-ahead log could not be emptied yet")


def run_to_end(work: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that never waits (a shared verb against SQLite)."""
    try:
        work.send(None)
    except StopIteration as done:
        return done.value
    work.close()
    raise RuntimeError("a verb waited on something other than SQLite")
