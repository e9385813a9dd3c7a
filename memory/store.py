"""The one interface every memory backend implements.

The bot talks to memory only through :class:`MemoryStore`; :func:`memory.open_store`
chooses the backend from a URL, so nothing outside this package knows which one runs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from memory.models import (
    Episode,
    EpisodeStatus,
    ForgetReport,
    ImportedEpisode,
    NewExchange,
    RecalledEpisode,
    RecallRequest,
    Scope,
    StoreStats,
    UserExport,
    VoteEvent,
    VoteOutcome,
    WisdomNote,
)
from memory.visibility import Visibility

__all__ = ["MemoryStore"]


class MemoryStore(ABC):
    """Everything the bot keeps about people: exchanges, votes, episodes, lessons, notes."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def ping(self) -> None:
        """Read the store once, cheaply; raise if it cannot be read (for ``/readyz``)."""

    @property
    @abstractmethod
    def visibility(self) -> Visibility:
        """Who may see what in this store (see :mod:`memory.visibility`)."""

    # -- exactly-once delivery -------------------------------------------------------------
    @abstractmethod
    async def claim(self, *keys: str, at: datetime) -> bool:
        """Record that the message these keys name (an event id, ``channel:ts``) is being
        handled, in one write.

        Returns True when none of the keys was claimed before, False when any was (a
        re-delivery), across restarts and ``/forget``: a claim keeps only a keyed hash of
        its key, no personal data."""

    # -- ledger and episodes ---------------------------------------------------------------
    @abstractmethod
    async def record_exchange(self, exchange: NewExchange) -> Episode | None:
        """Store a pending episode and a ledger entry for each message part sent.

        None when the asker was forgotten after the exchange began (``created_at``): work
        that started before an erasure never writes about the person after it."""

    @abstractmethod
    async def import_episodes(self, episodes: Sequence[ImportedEpisode]) -> list[int | None]:
        """Store episodes validated elsewhere, with their own times, in one transaction,
        recallable at once; their ids, in order (None for an episode of a person forgotten
        after it was created: the erasure fence holds for imports too)."""

    @abstractmethod
    async def extend_exchange(self, episode_id: int, *, message_ts: list[str], answer: str) -> bool:
        """Record more parts of an answer as Slack shows them (each becomes votable at
        once), and its text so far; False when the exchange is gone (erased, withdrawn)."""

    @abstractmethod
    async def withdraw_exchange(self, episode_id: int) -> bool:
        """Delete an exchange that turned out to be a notice, not an answer (with its
        ledger rows and votes); False when there was none."""

    @abstractmethod
    async def answered_in_thread(self, channel_id: str, thread_ts: str) -> bool:
        """Whether the bot has answered in this thread (so follow-ups need no mention)."""

    @abstractmethod
    async def apply_vote(self, event: VoteEvent) -> VoteOutcome:
        """Turn a reaction (or button) on a ledger message into the episode's status."""

    @abstractmethod
    async def episodes_awaiting_reflection(self, *, limit: int) -> list[Episode]:
        """Failures without a lesson and successes without an importance score."""

    @abstractmethod
    async def set_lesson(self, episode_id: int, lesson: str) -> bool:
        """Attach a lesson if the episode is still a failure; False when it no longer is."""

    @abstractmethod
    async def set_importance(self, episode_id: int, importance: int) -> bool:
        """Store a 1-10 score if the episode is still a success; False when it no longer is."""

    @abstractmethod
    async def purge_expired(self, *, now: datetime) -> int:
        """Delete expired ledger entries and the pending episodes nobody can vote on now."""

    # -- recall ----------------------------------------------------------------------------
    @abstractmethod
    async def recall(self, request: RecallRequest) -> list[RecalledEpisode]:
        """The requester's validated episodes in this scope most relevant to the text."""

    # -- wisdom notes ----------------------------------------------------------------------
    @abstractmethod
    async def replace_wisdom(
        self, scope: Scope, user_id: str, notes: list[str], *, episode_count: int, at: datetime
    ) -> list[WisdomNote]:
        """Replace the person's notes in ``scope``, distilled by work that began at ``at``;
        nothing is written, and [] returned, when they were forgotten since."""

    @abstractmethod
    async def wisdom(self, scope: Scope, user_id: str) -> list[WisdomNote]: ...

    # -- what a person can see and erase ---------------------------------------------------
    @abstractmethod
    async def list_episodes(
        self,
        user_id: str,
        *,
        scope: Scope | None = None,
        statuses: frozenset[EpisodeStatus] = frozenset(
            {EpisodeStatus.SUCCESS, EpisodeStatus.FAILURE}
        ),
        since: datetime | None = None,
        limit: int = 100,
    ) -> list[Episode]: ...

    @abstractmethod
    async def list_wisdom(self, user_id: str) -> list[WisdomNote]: ...

    @abstractmethod
    async def forget_episode(self, user_id: str, episode_id: int) -> bool: ...

    @abstractmethod
    async def forget_wisdom(self, user_id: str, note_id: int) -> bool: ...

    @abstractmethod
    async def forget_user(self, user_id: str, *, at: datetime | None = None) -> ForgetReport:
        """Erase every row holding this person's data, leaving no trace on disk, and fence
        them off: nothing that started before ``at`` (default: now) writes about them after.

        The fence keeps a keyed hash of their id and the time, nothing they said."""

    @abstractmethod
    async def erase_replies(self, channel_id: str, message_ts: list[str]) -> None:
        """Record that these messages of the bot answered someone since forgotten (an answer
        in flight at ``/forget``); kept as keyed hashes, like the fence."""

    @abstractmethod
    async def erased_replies(self, channel_id: str, message_ts: Iterable[str]) -> set[str]:
        """Which of these messages of the bot answered someone since forgotten."""

    @abstractmethod
    async def forgotten_at(self, user_ids: Iterable[str]) -> dict[str, datetime]:
        """When each of these people was last forgotten (absent when never)."""

    @abstractmethod
    async def export_user(self, user_id: str) -> UserExport: ...

    # -- operations ------------------------------------------------------------------------
    @abstractmethod
    async def scopes_with_recent_episodes(self, *, since: datetime) -> list[tuple[Scope, str]]:
        """(scope, user) pairs with validated episodes since ``since``, for consolidation."""

    @abstractmethod
    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        """Whether this process runs the periodic ``job`` (run every ``every``) now.

        Every process sharing the store schedules the same jobs; True for one of them per
        interval, so background work is done once, not once per process."""

    @abstractmethod
    async def count(self, counter: str, *, by: int = 1) -> None:
        """Increment an operational counter (recalls, ``tool_error:<class>:<tool>``...)."""

    @abstractmethod
    async def stats(self) -> StoreStats: ...
