"""The PostgreSQL backend of :class:`memory.MemoryStore`: a pool of connections to one
database, shared by any number of bot processes, and running transactions on it.

Every store method is one transaction (:meth:`PostgresMemoryStore.run`), in pipeline mode:
a statement whose result its work does not read (a lock, a ledger row, a status) is sent
with the next one it does read, and ``BEGIN`` and ``COMMIT`` with the first and the last, so
a transaction costs a round trip per result it waits for, not per statement (1.5 to 2.5 ms
each on a busy machine). Two transactions of processes sharing the database may deadlock
or fail to serialise; PostgreSQL then aborts one, and it runs again from the start (at most
:data:`ATTEMPTS` times).

A restart, a failover or a proxy's idle timeout ends every pooled connection without the
pool knowing. The first transaction to find its connection broken empties the pool (the
others are as dead: psycopg's own check before use would find them one by one, a second
apart) and, if it broke before reaching its commit, runs again on a new connection: the
server rolled it back. One that broke during its commit is not run again, as it may have
committed. psycopg's errors become :class:`memory.StoreError`.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from datetime import timedelta
from functools import partial
from typing import ParamSpec, TypeVar

import psycopg
from psycopg import AsyncConnection
from psycopg.pq import TransactionStatus
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool, PoolClosed, PoolTimeout

from memory import models
from memory.config import MemoryConfig
from memory.models import StoreClosed, StoreError, StoreUnavailable
from memory.postgres import imports
from memory.postgres.migrations import apply_migrations
from memory.postgres.session import Session
from memory.sql.session import Verb
from memory.store import MemoryStore

P = ParamSpec("P")
T = TypeVar("T")

ATTEMPTS = 3
"""Runs of a transaction that PostgreSQL aborted for a deadlock or a serialisation failure,
or whose connection broke before its commit."""
MAX_CONNECTIONS = 10
"""Connections one process keeps at most; a replica rarely needs more than a few at once."""
CONNECT_TIMEOUT = 10
"""Seconds to wait for the server when opening the store."""
CONNECTION_WAIT = 5
"""Seconds a transaction waits for a pooled connection before failing: while the server is
unreachable the pool has none to give, and the bot's callers retry or answer 503."""

_RETRYABLE = (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure)
_SECRET_NAME = "digests"
"""The row of ``secrets`` that holds the digest secret."""


async def _configure(conn: AsyncConnection[DictRow]) -> None:
    """Times come back in UTC, as the SQLite backend returns them."""
    await conn.execute("SET TIME ZONE 'UTC'")


def _failed(error: psycopg.Error) -> StoreError:
    # The class and SQLSTATE only: psycopg's message may quote a row, hence people's text.
    return StoreError(f"the database failed ({type(error).__name__}, SQLSTATE {error.sqlstate})")


_BY_SQLSTATE = {
    "3D000": "database",  # invalid_catalog_name
    "28P01": "password",  # invalid_password
    "28000": "role",  # invalid_authorization_specification
    "42501": "privilege",  # insufficient_privilege
    "53300": "crowded",  # too_many_connections
    "57P03": "starting",  # cannot_connect_now
}
_BY_TEXT = (
    ("database", ('database "', '" does not exist')),
    ("password", ("password authentication failed",)),
    ("no_password", ("no password supplied",)),
    ("hba", ("no pg_hba.conf entry",)),
    ("role", ('role "', '" does not exist')),
    ("refused", ("Connection refused",)),
    ("host", ("failed to resolve host",)),
    ("host", ("could not translate host name",)),
    ("timeout", ("timeout expired",)),
    ("crowded", ("too many clients",)),
    ("starting", ("the database system is starting up",)),
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
    """Why PostgreSQL could not be used, said as what to fix (the server, the database or
    the role), in one clause. A connection that fails carries no SQLSTATE in psycopg (libpq
    reports it as text only), so the common cases are told apart by libpq's and the
    server's words; an error raised once connected (creating the tables, say) carries its
    SQLSTATE, which is looked at first. The error's text is only matched, never repeated:
    it names hosts, databases and roles, and may quote a row."""
    kind = _BY_SQLSTATE.get(error.sqlstate or "")
    if kind is None or kind == "role":  # 28000 is a missing role and pg_hba.conf alike
        text = str(error)
        kind = next(
            (found for found, words in _BY_TEXT if all(word in text for word in words)), kind
        )
    if kind is None:
        state = f", SQLSTATE {error.sqlstate}" if error.sqlstate else ""
        return f"the PostgreSQL database failed ({type(error).__name__}{state})"
    return _PROBLEMS[kind]


async def _load_secret(conn: AsyncConnection[DictRow]) -> bytes:
    """This database's digest secret (:meth:`Session.digest`), created by the first process
    that needs it."""
    await conn.execute(
        "INSERT INTO secrets (name, value) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING",
        [_SECRET_NAME, secrets.token_bytes(32)],
    )
    cursor = await conn.execute("SELECT value FROM secrets WHERE name = %s", [_SECRET_NAME])
    row = await cursor.fetchone()
    assert row is not None
    return bytes(row["value"])


@asynccontextmanager
async def _transaction(
    conn: AsyncConnection[DictRow], secret: bytes, pipelined: bool
) -> AsyncIterator[Session]:
    """A transaction in pipeline mode: its ``BEGIN`` goes with its first statement, its
    ``COMMIT`` with its last (psycopg's own ``transaction()`` waits for each). When its work
    fails, it is rolled back: a failed statement leaves the rest of the pipeline undone.
    Not ``pipelined``, psycopg's own transaction, for work that copies (``COPY`` cannot
    run in pipeline mode). ``BEGIN``, ``COMMIT`` and the statements whose results the work
    does not read go through one cursor (:attr:`Session.sender`): a cursor each cost as much
    as sending the statement."""
    if not pipelined:
        async with conn.transaction():
            session = Session(conn, secret, None, conn.cursor(), AsyncExitStack())
            yield session
            await session.commit()
        return
    try:
        async with AsyncExitStack() as ending:
            pipeline = await ending.enter_async_context(conn.pipeline())
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


TURN_SHARE = 0.9
"""A turn at a periodic job lasts this share of its interval, so the process whose timer
fires next after it, whichever it is, takes the next turn: about one run per interval,
never one per process."""


async def _take_turn(db: Session, job: str, every: timedelta) -> bool:
    """One statement decides it, so two processes asking at once cannot both win."""
    row = await db.row(
        "INSERT INTO job_turns (name, until) VALUES (%(job)s, now() + %(turn)s)"
        " ON CONFLICT (name) DO UPDATE SET until = excluded.until"
        " WHERE job_turns.until <= now()"
        " RETURNING name",
        {"job": job, "turn": every * TURN_SHARE},
    )
    return row is not None


class PostgresMemoryStore(MemoryStore):
    """Memory in a PostgreSQL database: the pool, and this database's digest secret."""

    def __init__(
        self,
        pool: AsyncConnectionPool[AsyncConnection[DictRow]],
        secret: bytes,
        config: MemoryConfig,
    ) -> None:
        super().__init__(config, filing=self._file_waiting)
        self._pool = pool
        self._secret = secret
        self._closed = False

    @classmethod
    async def open(
        cls, url: str, config: MemoryConfig, *, max_size: int = MAX_CONNECTIONS
    ) -> PostgresMemoryStore:
        """Connect to the database at ``url`` (a libpq URL), migrate it to the current
        schema, read the digest secret, open the pool. :class:`StoreUnavailable` at once
        when the server cannot be reached or refuses us (the first connection is made
        directly, so its error is not retried for a while as the pool would)."""
        try:
            async with await AsyncConnection.connect(
                url, autocommit=True, row_factory=dict_row, connect_timeout=CONNECT_TIMEOUT
            ) as conn:
                await apply_migrations(conn)
                async with conn.transaction():
                    secret = await _load_secret(conn)
        except psycopg.Error as error:
            raise StoreUnavailable(connect_problem(error)) from error
        pool: AsyncConnectionPool[AsyncConnection[DictRow]] = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            kwargs={"row_factory": dict_row, "autocommit": True},
            configure=_configure,
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
        """Run ``work`` in one transaction, again if PostgreSQL aborted it for a conflict;
        in pipeline mode unless not ``pipelined`` (work that copies)."""
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
                        result = await work(session)
                return result
            except _RETRYABLE as error:
                if attempt >= ATTEMPTS:
                    raise _failed(error) from error
                attempt += 1
            except PoolClosed as error:
                raise StoreClosed("the memory store is closed") from error
            except PoolTimeout as error:
                raise StoreError("no database connection became free in time") from error
            except psycopg.Error as error:
                if used is None or not used.broken:
                    raise _failed(error) from error
                await self._pool.drain()
                if (session is not None and session.committed) or attempt >= ATTEMPTS:
                    raise _failed(error) from error
                attempt += 1

    async def import_episodes(self, episodes: Sequence[models.ImportedEpisode]) -> list[int | None]:
        """By ``COPY``, in one transaction (:mod:`memory.postgres.imports`)."""
        return await self.run(partial(imports.import_episodes, episodes=episodes), pipelined=False)

    async def _file_waiting(self, limit: int) -> int:
        return await self.run(lambda session: session.file_waiting(limit))

    async def close(self) -> None:
        """Settle the votes, then close every connection. Safe to call twice."""
        await self.settle()
        if not self._closed:
            self._closed = True
            await self._pool.close()

    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        return await self.run(partial(_take_turn, job=job, every=every))
