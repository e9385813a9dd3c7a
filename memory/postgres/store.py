"""The PostgreSQL store: a pool of connections, each method one transaction in pipeline
mode, run again after a conflict or a connection broken before its commit (why, and how:
memory/README.md's *PostgreSQL's transactions*)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from datetime import timedelta
from typing import ParamSpec, TypeVar

import psycopg
from psycopg import AsyncConnection
from psycopg.pq import TransactionStatus
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool, PoolClosed, PoolTimeout

from memory import models, rows
from memory.config import MemoryConfig
from memory.models import StoreClosed, StoreError, StoreUnavailable
from memory.postgres.migrations import apply_migrations
from memory.postgres.session import DOC, Session, recall_rows
from memory.sql.episodes import imported
from memory.sql.fence import forgotten_at
from memory.sql.session import Verb
from memory.store import MemoryStore

P = ParamSpec("P")
T = TypeVar("T")

ATTEMPTS = 3  # runs of a transaction aborted by a conflict, or broken before its commit
MAX_CONNECTIONS = 10  # per process: a replica rarely needs more than a few at once
CONNECT_TIMEOUT = 10  # seconds to wait for the server when opening the store
CONNECTION_WAIT = 5  # seconds to wait for a pooled connection; then callers retry or answer 503
TURN_SHARE = 0.9  # of its interval a job's turn lasts: one run per interval, not per process
_RETRYABLE = (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure)
_Pool = AsyncConnectionPool[AsyncConnection[DictRow]]


_SIGNS = (  # (problem, its SQLSTATE, words of libpq's or the server's that tell it)
    ("database", "3D000", ('database "', '" does not exist')),  # invalid_catalog_name
    ("password", "28P01", ("password authentication failed",)),  # invalid_password
    ("no_password", None, ("no password supplied",)),
    ("hba", None, ("no pg_hba.conf entry",)),
    ("role", "28000", ('role "', '" does not exist')),  # invalid_authorization_specification
    ("privilege", "42501", None),  # insufficient_privilege
    ("refused", None, ("Connection refused",)),
    ("host", None, ("failed to resolve host",)),
    ("host", None, ("could not translate host name",)),
    ("timeout", None, ("timeout expired",)),
    ("crowded", "53300", ("too many clients",)),  # too_many_connections
    ("starting", "57P03", ("the database system is starting up",)),  # cannot_connect_now
)
_PROBLEMS = {
    "refused": (
        "the PostgreSQL server refused the connection: is it running, and listening at "
        "the URL's host and port?"
    ),
    "host": "the PostgreSQL URL's host name does not resolve: check the host",
    "timeout": (
        "the PostgreSQL server did not answer in time: check the URL's host and port, and firewalls"
    ),
    "database": (
        "the PostgreSQL server has no such database: create it (createdb NAME), or fix "
        "the database name in the URL"
    ),
    "role": (
        "the PostgreSQL server has no such role: create it (createuser NAME), or fix the URL's user"
    ),
    "password": (
        "the PostgreSQL server refused the role's password: check it (PGPASSWORD, or the "
        "URL's, percent-encoded)"
    ),
    "no_password": (
        "the PostgreSQL server wants a password and none was given: set PGPASSWORD (or "
        "put it, percent-encoded, in the URL)"
    ),
    "hba": (
        "the PostgreSQL server's pg_hba.conf does not let this role connect from this "
        "host to this database: add an entry for it"
    ),
    "privilege": (
        "the PostgreSQL role may not create or use the bot's tables: grant it CREATE on "
        "the schema, or connect as the database's owner"
    ),
    "crowded": (
        "the PostgreSQL server has no connection left (too many clients): raise its max_connections"
    ),
    "starting": "the PostgreSQL server is starting up or shutting down: try again shortly",
}


def connect_problem(error: psycopg.Error) -> str:
    """Why PostgreSQL could not be used, as what to fix, in one clause, told apart by libpq's
    and the server's words (psycopg gives a failed connection no SQLSTATE), which are only
    matched, never repeated: they name hosts, databases and roles, and may quote a row."""
    text = str(error)
    kind = next((found for found, state, _ in _SIGNS if state and state == error.sqlstate), None)
    if kind is None or kind == "role":  # 28000 is a missing role and pg_hba.conf alike
        told = (found for found, _, words in _SIGNS if words and all(w in text for w in words))
        kind = next(told, kind)
    if kind is None:
        state = f", SQLSTATE {error.sqlstate}" if error.sqlstate else ""
        return f"the PostgreSQL database failed ({type(error).__name__}{state})"
    return _PROBLEMS[kind]


@asynccontextmanager
async def _transaction(
    conn: AsyncConnection[DictRow], secret: bytes, pipelined: bool
) -> AsyncIterator[Session]:
    """``pipelined`` unless it copies (``COPY`` cannot run in pipeline mode; psycopg's own
    ``transaction()`` would wait for the ``BEGIN`` and the ``COMMIT``); rolled back when its
    work fails, as a failed statement leaves the rest of the pipeline undone."""
    try:
        async with AsyncExitStack() as ending:
            pipeline = await ending.enter_async_context(conn.pipeline()) if pipelined else None
            sender = conn.cursor()
            await sender.execute("BEGIN")
            session = Session(conn, secret, pipeline, sender, ending)
            yield session
            await session.commit()
    except BaseException:
        if not conn.broken and conn.info.transaction_status is not TransactionStatus.IDLE:
            with suppress(psycopg.Error):  # the work's own error is the one to raise
                await conn.rollback()
        raise


async def _copied(db: Session, episodes: Sequence[models.ImportedEpisode]) -> list[int | None]:
    """:func:`memory.sql.episodes.import_episodes` in a few statements a batch, not two an
    episode: the rows, then their recall rows (made before any lock is taken), by ``COPY``,
    outside pipeline mode but for the askers' locks and the fence's reads, sent together,
    in order, so the reads see an erasure that committed while a lock was awaited."""
    if not episodes:
        return []
    drafts = [imported(item) for item in episodes]
    made = await asyncio.to_thread(recall_rows, drafts)
    teams: dict[str, set[str]] = {}
    for item in episodes:
        teams.setdefault(item.scope.team_id, set()).add(item.requester_id)
    async with db.conn.pipeline():
        for person, team in sorted({(item.requester_id, item.scope.team_id) for item in episodes}):
            await db.lock_person(person, team)
        erased = {
            team: await forgotten_at(db, people, team) for team, people in sorted(teams.items())
        }
    fenced = [
        (at := erased[item.scope.team_id].get(item.requester_id)) is not None
        and at >= rows.utc(item.created_at)
        for item in episodes
    ]
    kept = [(draft, row) for draft, row, out in zip(drafts, made, fenced, strict=True) if not out]
    if not kept:
        return [None] * len(episodes)
    numbered = await db.rows(
        "SELECT nextval(pg_get_serial_sequence('episodes', 'id')) AS id"
        " FROM generate_series(1, %s) ORDER BY 1",
        [len(kept)],
    )
    ids = [row["id"] for row in numbered]
    async with db.conn.cursor() as cursor:
        async with cursor.copy(
            "COPY episodes (id, enterprise_id, team_id, channel_id, kind, requester_id, thread_ts,"
            " question, answer, status, lesson, created_at, validated_at) FROM STDIN"
        ) as copy:
            for episode_id, (episode, _) in zip(ids, kept, strict=True):
                scope = episode.scope
                await copy.write_row(
                    (
                        episode_id,
                        scope.enterprise_id,
                        scope.team_id,
                        scope.channel_id,
                        scope.kind.value,
                        episode.requester_id,
                        episode.thread_ts,
                        episode.question,
                        episode.answer,
                        episode.status.value,
                        episode.lesson,
                        episode.created_at,
                        episode.validated_at,
                    )
                )
        await cursor.execute(
            "CREATE TEMPORARY TABLE imported_recall (episode_id bigint, partitions text[],"
            " question text, answer text, lesson text, vector bytea) ON COMMIT DROP"
        )
        async with cursor.copy("COPY imported_recall FROM STDIN") as copy:
            for episode_id, (_, row) in zip(ids, kept, strict=True):
                fields = [row[name] for name in ("keys", "question", "answer", "lesson", "vector")]
                await copy.write_row((episode_id, *fields))
        await cursor.execute(
            "INSERT INTO episode_recall (episode_id, partitions, doc, vector)"
            f" SELECT episode_id, partitions, {DOC.format('question', 'answer', 'lesson')}, vector"
            " FROM imported_recall"
        )
    numbers = iter(ids)
    return [None if out else next(numbers) for out in fenced]


class PostgresMemoryStore(MemoryStore):
    def __init__(self, pool: _Pool, secret: bytes, config: MemoryConfig) -> None:
        super().__init__(config, filing=lambda limit: self.run(lambda db: db.file_waiting(limit)))
        self._pool = pool
        self._secret = secret
        self._closed = False

    @classmethod
    async def open(cls, url: str, config: MemoryConfig) -> PostgresMemoryStore:
        """Migrate the database at ``url`` (a libpq URL), read its digest secret (the first
        process to need one makes it), open the pool; :class:`StoreUnavailable` at once when
        the server cannot be reached or refuses us (asked directly: the pool would retry)."""
        try:
            async with await AsyncConnection.connect(
                url, autocommit=True, row_factory=dict_row, connect_timeout=CONNECT_TIMEOUT
            ) as conn:
                await apply_migrations(conn)
                async with conn.transaction():
                    await conn.execute(
                        "INSERT INTO secrets (name, value) VALUES (%s, %s)"
                        " ON CONFLICT (name) DO NOTHING",
                        ["digests", secrets.token_bytes(32)],
                    )
                    cursor = await conn.execute(
                        "SELECT value FROM secrets WHERE name = %s", ["digests"]
                    )
                    row = await cursor.fetchone()
                    assert row is not None
                    secret = bytes(row["value"])
        except psycopg.Error as error:
            raise StoreUnavailable(connect_problem(error)) from error
        pool: _Pool = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=MAX_CONNECTIONS,
            kwargs={"row_factory": dict_row, "autocommit": True},
            configure=lambda conn: conn.execute("SET TIME ZONE 'UTC'"),  # as SQLite's times are
            timeout=CONNECTION_WAIT,
            open=False,
            name="memory",
        )
        try:
            await pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        except PoolTimeout as error:
            await pool.close()
            raise StoreUnavailable("cannot connect to the PostgreSQL database") from error
        store = cls(pool, secret, config)
        store._votes.file_soon()  # what a process that stopped left waiting
        return store

    async def _run(self, verb: Verb[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.run(lambda session: verb(session, *args, **kwargs))

    async def run(self, work: Callable[[Session], Awaitable[T]], *, pipelined: bool = True) -> T:
        """Run ``work`` in one transaction, again as the module says (at most :data:`ATTEMPTS`
        times); psycopg's errors become :class:`memory.StoreError`."""
        if self._closed:
            raise StoreClosed("the memory store is closed")
        attempt = 1
        while True:
            used: AsyncConnection[DictRow] | None = None
            session: Session | None = None
            try:
                async with self._pool.connection() as conn:
                    used = conn
                    async with _transaction(conn, self._secret, pipelined) as session:
                        return await work(session)
            except PoolClosed as error:
                raise StoreClosed("the memory store is closed") from error
            except PoolTimeout as error:
                raise StoreError("no database connection became free in time") from error
            except psycopg.Error as error:
                if broken := used is not None and used.broken:
                    await self._pool.drain()
                uncommitted = broken and not (session is not None and session.committed)
                if attempt >= ATTEMPTS or not (uncommitted or isinstance(error, _RETRYABLE)):
                    raise StoreError(  # not psycopg's message: it may quote a row, people's text
                        f"the database failed ({type(error).__name__}, SQLSTATE {error.sqlstate})"
                    ) from error
                attempt += 1

    async def import_episodes(self, episodes: Sequence[models.ImportedEpisode]) -> list[int | None]:
        return await self.run(lambda db: _copied(db, episodes), pipelined=False)

    async def close(self) -> None:
        """Settle the votes, then close every connection. Safe to call twice."""
        await self.settle()
        if not self._closed:
            self._closed = True
            await self._pool.close()

    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        turn = (  # one statement decides it, so two processes asking at once cannot both win
            "INSERT INTO job_turns (name, until) VALUES (%(job)s, now() + %(turn)s)"
            " ON CONFLICT (name) DO UPDATE SET until = excluded.until"
            " WHERE job_turns.until <= now()"
            " RETURNING name"
        )
        row = await self.run(lambda db: db.row(turn, {"job": job, "turn": every * TURN_SHARE}))
        return row is not None
