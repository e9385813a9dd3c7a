"""The one interface every memory backend implements.

The bot talks to memory only through :class:`MemoryStore`; :func:`memory.open_store`
chooses the backend from a URL, so nothing outside this package knows which one runs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime, timedelta

from memory.callers import (
    AgentMemory,
    ConsolidationSource,
    Erasure,
    ExchangeLedger,
    Installations,
    Questions,
    Reasons,
    ReflectionQueue,
    VoteRecorder,
)
from memory.models import ImportedEpisode, StoreStats, WisdomNote

__all__ = ["MemoryStore"]


class MemoryStore(
    AgentMemory,
    ExchangeLedger,
    Questions,
    VoteRecorder,
    Reasons,
    Erasure,
    ReflectionQueue,
    ConsolidationSource,
    Installations,
    ABC,
):
    """Everything the bot keeps about people: exchanges, votes, episodes, lessons, notes.

    The verbs each caller uses are declared with its protocol in :mod:`memory.callers`;
    here are the rest: opening and closing, importing, the ledger's upkeep, the Home tab's
    list and forget buttons, and operations."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def ping(self) -> None:
        """Read the store once, cheaply; raise if it cannot be read (for ``/readyz``)."""

    @abstractmethod
    async def import_episodes(self, episodes: Sequence[ImportedEpisode]) -> list[int | None]:
        """Store episodes validated elsewhere, with their own times, in one transaction,
        recallable at once; their ids, in order (None for an episode of a person forgotten
        after it was created: the erasure fence holds for imports too)."""

    @abstractmethod
    async def answered_in_thread(self, channel_id: str, thread_ts: str) -> bool:
        """Whether the bot has answered in this thread (so follow-ups need no mention)."""

    @abstractmethod
    async def purge_expired(self, *, now: datetime) -> int:
        """Delete expired ledger entries and the pending episodes nobody can vote on now."""

    @abstractmethod
    async def tidy_index(self) -> bool:
        """One short step of the full-text index's upkeep (a few tens of milliseconds at
        most); True while there is more to do. Run by the periodic upkeep, step after step,
        so that other calls are served in between."""

    @abstractmethod
    async def list_wisdom(self, user_id: str, *, team_id: str | None = None) -> list[WisdomNote]:
        """A person's notes (in workspace ``team_id``, when given)."""

    @abstractmethod
    async def forget_episode(self, user_id: str, episode_id: int) -> bool: ...

    @abstractmethod
    async def forget_wisdom(self, user_id: str, note_id: int) -> bool: ...

    @abstractmethod
    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        """Whether this process runs the periodic ``job`` (run every ``every``) now.

        Every process sharing the store schedules the same jobs; True for one of them per
        interval, so background work is done once, not once per process."""

    @abstractmethod
    async def stats(self) -> StoreStats: ...
