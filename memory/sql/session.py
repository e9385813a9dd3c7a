"""What a verb of :mod:`memory.sql` asks of the database it runs on: one unit of work whose
methods run SQL, hash under the database's secret, and hold the SQL that differs per database."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Concatenate, ParamSpec, TypeVar

from memory.config import MemoryConfig
from memory.models import Episode, EpisodeStatus

Params = Sequence[Any] | Mapping[str, Any]

P = ParamSpec("P")
T = TypeVar("T")


def placeholders(count: int) -> str:
    return ", ".join(["%s"] * count)


@dataclass(frozen=True)
class LedgerParts:
    """The ledger rows of an exchange: each of its messages names its episode until then."""

    channel_id: str
    message_ts: Sequence[str]
    expires_at: datetime

    async def send(self, db: Session, episode_id: int) -> None:
        if parts := list(dict.fromkeys(self.message_ts)):
            await db.send(
                "INSERT INTO ledger (channel_id, message_ts, episode_id, expires_at) VALUES "
                + ", ".join(["(%s, %s, %s, %s)"] * len(parts))
                + " ON CONFLICT (channel_id, message_ts)"
                " DO UPDATE SET episode_id = excluded.episode_id, expires_at = excluded.expires_at",
                [v for ts in parts for v in (self.channel_id, ts, episode_id, self.expires_at)],
            )


async def _done(value: T) -> T:
    return value


class Session(ABC):
    """One unit of work on one database; its defaults suit SQLite, PostgreSQL's overrides them."""

    lease_cleared = ""
    """Added to an episode's ``UPDATE ... SET`` to end its reflection lease (PostgreSQL's)."""
    locked_skipped = ""
    """Ends a ``SELECT`` of rows to lease: units of work leasing at once take different rows."""
    for_update = ""
    """Ends a ``SELECT`` of episodes to lock their rows until this work ends."""
    time_shifted: str
    """``{time} {sign} %(window)s``: a time moved by recall's window, in this database's SQL."""
    episodes_by_id: str
    """The ``episodes`` whose ids are the list ``%(ids)s``, as a ``FROM`` clause."""
    one_process = False
    """Whether one process at most uses the database (SQLite): another holder's lease is dead."""
    neighbours_with_rows = False
    """Whether recall reads every candidate's neighbours with its row, sparing a round trip
    (PostgreSQL), or only the few it weighs, after (SQLite: each costs two index searches)."""

    @abstractmethod
    async def rows(self, sql: str, params: Params = ()) -> list[dict[str, Any]]: ...

    async def row(self, sql: str, params: Params = ()) -> dict[str, Any] | None:
        found = await self.rows(sql, params)  # to the end: a RETURNING statement finishes
        return found[0] if found else None

    async def rows_together(self, *reads: tuple[str, Params]) -> list[list[dict[str, Any]]]:
        """The rows of each read, run in order as statements of their own (each sees what
        committed while the ones before it waited for locks)."""
        return [await self.rows(sql, params) for sql, params in reads]

    @abstractmethod
    async def execute(self, sql: str, params: Params = ()) -> int:
        """The number of rows the statement changed."""

    async def send(self, sql: str, params: Params = ()) -> None:
        """Run a statement whose outcome the work does not read."""
        await self.execute(sql, params)

    @abstractmethod
    def digest(self, text: str) -> str:
        """The keyed hash of ``text`` under this database's secret, in hex."""

    def read_time(self, value: Any) -> datetime:
        return value  # type: ignore[no-any-return]

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """Writes that commit together (PostgreSQL's unit of work already does)."""
        yield

    async def lock_person(self, user_id: str, team_id: str | None = None) -> None:  # noqa: B027
        """Hold off an erasure of the person (or their workspace) until this work ends."""

    async def lock_people(self, user_ids: Sequence[str]) -> None:  # noqa: B027
        """:meth:`lock_person` of each of them, at once."""

    async def lock_workspace(self, team_id: str) -> None:  # noqa: B027
        """Hold off every write about the workspace's people until this work ends."""

    @abstractmethod
    def refiling(self, episode_ids: Sequence[int]) -> AbstractAsyncContextManager[None]:
        """Re-file these episodes in the full-text index around a change of their keys."""

    @abstractmethod
    def restating(
        self, episode_id: int, was: EpisodeStatus, now: EpisodeStatus, config: MemoryConfig
    ) -> AbstractAsyncContextManager[None]:
        """Keep the episode's place in the indexes, and work queued on it, agreeing with ``now``."""

    async def unindex(self, episode_ids: Sequence[int]) -> None:  # noqa: B027
        """Unindex these episodes before their rows go (PostgreSQL's index rows go with them)."""

    async def scrub(self) -> None:  # noqa: B027
        """Leave nothing erased in what the database keeps besides its tables (SQLite's log)."""

    @abstractmethod
    def one_of(self, values: Sequence[int] | Sequence[str]) -> tuple[str, Any]:
        """The condition, following a column, that it is one of ``values``, and its parameter."""

    @abstractmethod
    async def insert_episode(
        self, values: Mapping[str, Any], where: tuple[str, Sequence[Any]]
    ) -> int | None:
        """Insert an episode, if ``where`` (condition, parameters) holds, under an id never used."""

    async def insert_exchange(
        self, values: Mapping[str, Any], where: tuple[str, Sequence[Any]], ledger: LedgerParts
    ) -> int | None:
        """:meth:`insert_episode`, then its ``ledger`` rows: the work's last statement."""
        episode_id = await self.insert_episode(values, where)
        if episode_id is not None:
            await ledger.send(self, episode_id)
        return episode_id

    @abstractmethod
    async def file_new(self, episode: Episode) -> None:
        """File a new validated episode in the full-text index and the vectors."""

    @abstractmethod
    async def awaiting_reflection(
        self, limit: int, with_successes: bool, holder: str
    ) -> list[Episode]:
        """Failures without a lesson, and successes without a score if asked, oldest vote first."""

    async def scored(self, episode_id: int) -> None:  # noqa: B027
        """Take a success just scored off the queue of those awaiting a score (SQLite's)."""

    recall_search: Callable[..., Coroutine[Any, Any, tuple[list[dict[str, Any]], list[int], bytes]]]
    """``(request, keys, params, *, lexical, semantic)``: the partitions' rows of
    :func:`memory.sql.recall.matches` (``lexical``), their vectors' ids and bytes (``semantic``)."""

    def computed(self, function: Callable[..., T], *args: Any) -> Awaitable[T]:
        """``function(*args)``, started off the event loop now, awaited later (SQLite: done now)."""
        return _done(function(*args))

    @abstractmethod
    async def increment(self, name: str, by: int = 1) -> None: ...

    @abstractmethod
    async def counts(self) -> dict[str, int]: ...


Verb = Callable[Concatenate[Session, P], Coroutine[Any, Any, T]]
"""A verb of :mod:`memory.sql`: a coroutine function of a :class:`Session` first."""
