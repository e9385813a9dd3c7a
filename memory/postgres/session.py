"""PostgreSQL's :class:`memory.sql.session.Session`: one transaction on one pooled
connection, taking advisory locks and leases, and filing an episode in ``episode_recall``
after the transaction that changed it (memory/README.md's *PostgreSQL's transactions* and
*The index queue*)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, TypeVar

from psycopg import AsyncConnection, AsyncCursor, AsyncPipeline
from psycopg.rows import DictRow

from memory.config import MemoryConfig
from memory.models import Episode, EpisodeStatus, RecallRequest
from memory.privacy import Visibility, channel_key, personal_key
from memory.recall_query import date_words, indexed_words, is_prefix, search_terms
from memory.sql import session as sql
from memory.sql.episodes import read_episodes
from memory.sql.fence import workspace_subject
from memory.sql.recall import matches
from memory.sql.session import Params, placeholders
from memory.vectors import episode_vectors

T = TypeVar("T")

_PERSON_LOCKS = 0x6D656D6F  # the first key of a person's advisory lock ("memo")
_WORKSPACE_LOCKS = 0x7465616D  # and of a workspace's ("team")
REFLECTION_LEASE = timedelta(minutes=10)  # then another process may take the episode over
SHARDS = 16  # rows of counter_shards a counter is spread over (Session.increment)


_SEARCH = """
WITH q AS (
  SELECT string_agg(
    quote_literal(memory_stem(w)) || CASE WHEN p THEN ':*' ELSE '' END, ' | '
  )::tsquery AS query
  FROM unnest(%(words)s::text[], %(prefix)s::bool[]) AS t (w, p)
), partition_rows AS MATERIALIZED (
  SELECT episode_id, CASE WHEN %(semantic)s THEN vector END AS vector,
    CASE WHEN doc @@ query THEN ts_rank('{{0, 0.5, 0.5, 1.0}}'::float4[], doc, query) END AS rank
  FROM episode_recall, q
  WHERE partitions && %(keys)s::text[]
), hits AS (
  SELECT episode_id AS id, -rank AS bm25 FROM partition_rows WHERE rank IS NOT NULL
), lexical AS ({matches}
), vectors AS (
  SELECT (SELECT id FROM lexical ORDER BY bm25, validated_at DESC, id DESC LIMIT 1) AS best,
    array_agg(episode_id) AS vector_ids, string_agg(vector, '') AS vectors
  FROM partition_rows WHERE vector IS NOT NULL
), waiting AS (
  SELECT array_agg(index_queue.episode_id) AS waiting_ids
  FROM index_queue JOIN episodes ON episodes.id = index_queue.episode_id
  WHERE episodes.team_id = %(team_id)s AND episodes.channel_id = %(channel_id)s
)
SELECT * FROM lexical FULL JOIN vectors ON lexical.id = vectors.best CROSS JOIN waiting
ORDER BY lexical.bm25, lexical.validated_at DESC, lexical.id DESC
"""
"""Recall's two searches, and the conversation's episodes waiting to be filed, in one read.
``-ts_rank`` stands in for BM25, weighing a question (``A``) twice an answer (``B``) or a
lesson (``C``), as SQLite's weights do. The vectors come in one value, with the best match:
a row each cost more to receive than the rest of the recall."""

DOC = (
    "memory_doc(string_to_array({}, chr(31)), 'A')"
    " || memory_doc(string_to_array({}, chr(31)), 'B')"
    " || memory_doc(string_to_array({}, chr(31)), 'C')"
)
"""A recall row's ``tsvector``, of its question's, answer's and lesson's words, each field's
sent as one text, joined by the unit separator (``chr(31)``, part of no word): psycopg took
seven times as long to send them as lists."""
_INSERT = (
    "INSERT INTO episode_recall (episode_id, partitions, doc, vector) VALUES (%(id)s, %(keys)s,"
    f" {DOC.format('%(question)s', '%(answer)s', '%(lesson)s')}, %(vector)s)"
    " ON CONFLICT (episode_id) DO UPDATE SET partitions = excluded.partitions,"
    " doc = excluded.doc, vector = excluded.vector"
)


def folded_words(words: Sequence[str]) -> list[str]:
    """The words without their diacritics (*crème*: *creme*), as SQLite's
    ``remove_diacritics`` indexes them, so an accent typed or not finds the same word."""
    return [
        word
        if word.isascii()  # nothing to take off: most words, at a tenth of the cost
        else "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
        for word in words
    ]


def _sent(text: str) -> str:
    return "\x1f".join(folded_words(indexed_words(text)))  # chr(31), as DOC splits them


def recall_rows(episodes: Sequence[Episode]) -> list[dict[str, object]]:
    """The parameters of :data:`_INSERT` for each validated episode, the vectors embedded
    together (one tokenizer call); for a worker thread, not the event loop."""
    return [
        {
            "id": episode.id,
            "keys": [personal_key(episode.scope, episode.requester_id)]
            + ([channel_key(episode.scope)] if Visibility.shareable(episode) else []),
            "question": _sent(f"{episode.question} {date_words(episode.created_at)}"),
            "answer": _sent(episode.answer),
            "lesson": _sent(episode.lesson or ""),
            "vector": vector,
        }
        for episode, vector in zip(episodes, episode_vectors(episodes), strict=True)
    ]


@dataclass(eq=False)
class Session(sql.Session):
    conn: AsyncConnection[DictRow]
    secret: bytes
    pipeline: AsyncPipeline | None  # None in a transaction that copies
    sender: AsyncCursor[DictRow]  # sends for send(): a cursor each cost as much as the statement
    ending: AsyncExitStack  # ends pipeline mode, awaiting every statement's answer at once
    restated: set[int] = field(default_factory=set)  # episodes to queue for filing at the end
    committed: bool = False  # the COMMIT was sent: a connection broken since may have committed
    lease_cleared = ", reflection_holder = NULL, reflection_until = NULL"
    locked_skipped = " FOR UPDATE SKIP LOCKED"
    for_update = " FOR UPDATE OF episodes"
    time_shifted = "{time} {sign} %(window)s"
    episodes_by_id = "(SELECT * FROM episodes WHERE id = ANY(%(ids)s)) AS episodes"
    neighbours_with_rows = True

    async def rows(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        cursor = await self.conn.execute(sql, params)
        return await cursor.fetchall()

    async def rows_together(self, *reads: tuple[str, Params]) -> list[list[dict[str, Any]]]:
        """Sent together: the others' rows arrive with the first's."""
        cursors = [await self.conn.execute(sql, params) for sql, params in reads]
        return [await cursor.fetchall() for cursor in cursors]

    async def execute(self, sql: str, params: Params = ()) -> int:
        cursor = await self.conn.execute(sql, params)
        if self.pipeline is not None:
            await self.pipeline.sync()
        return cursor.rowcount

    async def send(self, sql: str, params: Params = ()) -> None:
        """Queued till the next statement whose result is read, where its error is raised."""
        await self.sender.execute(sql, params)

    async def commit(self) -> None:
        """Queue what the work restated for :meth:`file_waiting` (first, so that a filing
        holding one of them ends before this goes on), take it out of recall, commit."""
        if self.committed:
            return
        if self.restated:
            restated = sorted(self.restated)
            await self.send(
                "INSERT INTO index_queue (episode_id) SELECT id FROM episodes"
                " WHERE id = ANY(%s) ON CONFLICT DO NOTHING",
                [restated],
            )
            await self.send("DELETE FROM episode_recall WHERE episode_id = ANY(%s)", [restated])
        self.committed = True
        await self.sender.execute("COMMIT")
        await self.ending.aclose()

    def digest(self, text: str) -> str:
        return hmac.new(self.secret, text.encode(), hashlib.sha256).hexdigest()

    def _lock_key(self, subject: str) -> int:
        return int.from_bytes(bytes.fromhex(self.digest(subject))[:4], "big", signed=True)

    async def lock_person(self, user_id: str, team_id: str | None = None) -> None:
        """The person's advisory lock and, shared, their workspace's (``team_id``)."""
        locks = "SELECT pg_advisory_xact_lock(%s, %s)"
        keys = [_PERSON_LOCKS, self._lock_key(user_id)]
        if team_id:
            locks += ", pg_advisory_xact_lock_shared(%s, %s)"
            keys += [_WORKSPACE_LOCKS, self._lock_key(workspace_subject(team_id))]
        await self.send(locks, keys)

    async def lock_people(self, user_ids: Sequence[str]) -> None:
        """In one statement, in the order of their keys: two units of work locking some of
        the same people wait for each other rather than deadlock."""
        keys = sorted({self._lock_key(user_id) for user_id in user_ids})
        if keys:
            await self.send(
                "SELECT count(pg_advisory_xact_lock(%s, key)) FROM unnest(%s::int[]) AS key",
                [_PERSON_LOCKS, keys],
            )

    async def lock_workspace(self, team_id: str) -> None:
        """Alone: every write about its people begun before has committed, none begins after."""
        key = self._lock_key(workspace_subject(team_id))
        await self.send("SELECT pg_advisory_xact_lock(%s, %s)", [_WORKSPACE_LOCKS, key])

    @asynccontextmanager
    async def refiling(self, episode_ids: Sequence[int]) -> AsyncIterator[None]:
        """Queued for filing when the work ends (why: memory/README.md's *The index queue*)."""
        yield
        self.restated.update(episode_ids)

    def restating(
        self, episode_id: int, was: EpisodeStatus, now: EpisodeStatus, config: MemoryConfig
    ) -> AbstractAsyncContextManager[None]:
        return self.refiling([episode_id])

    def one_of(self, values: Sequence[int] | Sequence[str]) -> tuple[str, Any]:
        return "= ANY(%s)", list(values)

    async def insert_episode(
        self, values: Mapping[str, Any], where: tuple[str, Sequence[Any]]
    ) -> int | None:
        condition, params = where
        row = await self.row(
            f"INSERT INTO episodes ({', '.join(values)}) SELECT {placeholders(len(values))}"
            f" WHERE {condition} RETURNING id",
            [*values.values(), *params],
        )
        return None if row is None else int(row["id"])

    async def insert_exchange(
        self, values: Mapping[str, Any], where: tuple[str, Sequence[Any]], ledger: sql.LedgerParts
    ) -> int | None:
        """One statement, sent with the ``COMMIT``, read once the server answered both."""
        condition, params = where
        parts = list(dict.fromkeys(ledger.message_ts))
        cursor = await self.conn.execute(
            f"WITH episode AS (INSERT INTO episodes ({', '.join(values)})"
            f" SELECT {placeholders(len(values))} WHERE {condition} RETURNING id),"
            " ledger AS (INSERT INTO ledger (channel_id, message_ts, episode_id, expires_at)"
            " SELECT %s, ts, episode.id, %s FROM episode, unnest(%s::text[]) AS ts"
            " ON CONFLICT (channel_id, message_ts)"
            " DO UPDATE SET episode_id = excluded.episode_id, expires_at = excluded.expires_at)"
            " SELECT id FROM episode",
            [*values.values(), *params, ledger.channel_id, ledger.expires_at, parts],
        )
        await self.commit()
        row = await cursor.fetchone()
        return None if row is None else int(row["id"])

    async def file_new(self, episode: Episode) -> None:
        [row] = await asyncio.to_thread(recall_rows, [episode])
        await self.send(_INSERT, row)

    async def _reindex(self, episode_ids: Sequence[int]) -> None:
        """Make the index agree with these episodes: a row while each is validated, else none."""
        episodes = await read_episodes(
            self, "SELECT * FROM episodes WHERE id = ANY(%s) ORDER BY id", [list(episode_ids)]
        )
        validated = [e for e in episodes if e.status is not EpisodeStatus.PENDING]
        if gone := set(episode_ids) - {episode.id for episode in validated}:
            await self.send("DELETE FROM episode_recall WHERE episode_id = ANY(%s)", [sorted(gone)])
        if validated:
            async with self.conn.cursor() as cursor:
                await cursor.executemany(_INSERT, await asyncio.to_thread(recall_rows, validated))

    async def file_waiting(self, limit: int) -> int:
        """File up to ``limit`` waiting episodes, oldest first; how many. Replicas filing at
        once take different ones (``SKIP LOCKED``); one that dies leaves them waiting."""
        taken = await self.rows(
            "DELETE FROM index_queue WHERE episode_id IN (SELECT episode_id FROM index_queue"
            " ORDER BY episode_id LIMIT %s FOR UPDATE SKIP LOCKED) RETURNING episode_id",
            [limit],
        )
        if taken:
            await self._reindex(sorted(row["episode_id"] for row in taken))
        return len(taken)

    async def awaiting_reflection(
        self, limit: int, with_successes: bool, holder: str
    ) -> list[Episode]:
        """Leased to ``holder``, whose own leased episodes come back to it (for its back-off:
        :class:`memory.ReflectionWorker`), locked as the ``UPDATE`` locks (``NO KEY``) so that
        a vote only referring to the row (its foreign key) does not hide it from ``SKIP LOCKED``."""
        episodes = await read_episodes(
            self,
            "UPDATE episodes SET reflection_holder = %(holder)s,"
            " reflection_until = now() + %(lease)s"
            " WHERE id IN ("
            "   SELECT id FROM episodes"
            "   WHERE ((status = 'failure' AND lesson IS NULL)"
            "     OR (%(with_successes)s AND status = 'success' AND importance IS NULL))"
            "   AND (reflection_until IS NULL OR reflection_until < now()"
            "     OR reflection_holder = %(holder)s)"
            "   ORDER BY validated_at, id LIMIT %(limit)s FOR NO KEY UPDATE SKIP LOCKED"
            " ) RETURNING *",
            dict(holder=holder, lease=REFLECTION_LEASE, limit=limit, with_successes=with_successes),
        )
        return sorted(episodes, key=lambda episode: (episode.validated_at, episode.id))

    async def recall_search(
        self,
        request: RecallRequest,
        keys: Sequence[str],
        params: Mapping[str, Any],
        *,
        lexical: bool,
        semantic: bool,
    ) -> tuple[list[dict[str, Any]], list[int], bytes]:
        words = folded_words(search_terms(request.text)) if lexical else []
        prefix = [is_prefix(word) for word in words]
        search = (
            _SEARCH.format(matches=matches(self)),
            dict(params, keys=list(keys), words=words, prefix=prefix, semantic=semantic),
        )
        rows = await self.rows(*search)
        if waiting := sorted(rows[0]["waiting_ids"] or []):  # validated since the last filing
            await self.send("DELETE FROM index_queue WHERE episode_id = ANY(%s)", [waiting])
            await self._reindex(waiting)
            rows = await self.rows(*search)
        matched = [row for row in rows if row["id"] is not None]
        return matched, rows[0]["vector_ids"] or [], bytes(rows[0]["vectors"] or b"")

    def computed(self, function: Callable[..., T], *args: Any) -> Awaitable[T]:
        return asyncio.get_running_loop().run_in_executor(None, function, *args)

    async def increment(self, name: str, by: int = 1) -> None:
        """Added to the server process's shard, committed without waiting for the disk: a crash
        may lose the last few counts only, a counter being its transaction's last write."""
        await self.send(
            "INSERT INTO counter_shards (name, shard, value)"
            " SELECT %s, pg_backend_pid() %% %s, %s"
            " FROM (SELECT set_config('synchronous_commit', 'off', true)) AS this_transaction"
            " ON CONFLICT (name, shard)"
            " DO UPDATE SET value = counter_shards.value + excluded.value",
            [name, SHARDS, by],
        )

    async def counts(self) -> dict[str, int]:
        """The shards summed with what ``counters`` holds from before migration 4."""
        summed = await self.rows(
            "SELECT name, sum(value)::bigint AS value FROM"
            " (SELECT name, value FROM counters UNION ALL SELECT name, value FROM counter_shards)"
            " AS every_count GROUP BY name"
        )
        return {row["name"]: row["value"] for row in summed}
