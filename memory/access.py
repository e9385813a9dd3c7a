"""What each caller needs of the store, as small protocols sized to its use.

:class:`memory.MemoryStore` is what a backend implements; callers depend on one of these
instead, so each says exactly what it touches, and a test double implements only that:

- the agent's turn (its tools, the plan advisor): :class:`Recall`, and :class:`Counting`
  for tool errors, together :class:`AgentMemory`;
- answering a message: :class:`ExchangeLedger`;
- the listeners' vote path: :class:`VoteRecorder`;
- ``/forget`` and the admin commands: :class:`Erasure`;
- background learning: :class:`ReflectionQueue` and :class:`ConsolidationSource`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Protocol

from memory.models import (
    Episode,
    EpisodeStatus,
    ForgetReport,
    NewExchange,
    RecalledEpisode,
    RecallRequest,
    Scope,
    UserExport,
    VoteEvent,
    VoteOutcome,
    WisdomNote,
)
from memory.visibility import Visibility

__all__ = [
    "AgentMemory",
    "ConsolidationSource",
    "Counting",
    "Erasure",
    "ExchangeLedger",
    "Recall",
    "ReflectionQueue",
    "VoteRecorder",
]


class Recall(Protocol):
    """Reading what the asker may see: validated episodes and wisdom notes."""

    @property
    def visibility(self) -> Visibility: ...

    async def recall(self, request: RecallRequest) -> list[RecalledEpisode]: ...

    async def wisdom(self, scope: Scope, user_id: str) -> list[WisdomNote]: ...


class Counting(Protocol):
    """Operational counters (``recalls``, ``tool_error:<class>:<tool>``)."""

    async def count(self, counter: str, *, by: int = 1) -> None: ...


class AgentMemory(Recall, Counting, Protocol):
    """Everything one turn of the agent may use of memory."""


class ExchangeLedger(Protocol):
    """Answering a message: exactly once, recorded part by part, fenced by erasures."""

    async def claim(self, *keys: str, at: datetime) -> bool: ...

    async def record_exchange(self, exchange: NewExchange) -> Episode | None: ...

    async def extend_exchange(
        self, episode_id: int, *, message_ts: list[str], answer: str
    ) -> bool: ...

    async def withdraw_exchange(self, episode_id: int) -> bool: ...

    async def erase_replies(self, channel_id: str, message_ts: list[str]) -> None: ...

    async def erased_replies(self, channel_id: str, message_ts: Iterable[str]) -> set[str]: ...

    async def forgotten_at(self, user_ids: Iterable[str]) -> dict[str, datetime]: ...


class VoteRecorder(Protocol):
    """A reaction or a feedback button on a message the bot sent."""

    async def apply_vote(self, event: VoteEvent) -> VoteOutcome: ...


class Erasure(Protocol):
    """A person's right to see and erase what is kept about them."""

    async def export_user(self, user_id: str) -> UserExport: ...

    async def forget_user(self, user_id: str, *, at: datetime | None = None) -> ForgetReport: ...


class ReflectionQueue(Protocol):
    """Validated episodes awaiting a lesson (👎) or an importance score (👍)."""

    async def episodes_awaiting_reflection(self, *, limit: int) -> list[Episode]: ...

    async def set_lesson(self, episode_id: int, lesson: str) -> bool: ...

    async def set_importance(self, episode_id: int, importance: int) -> bool: ...


class ConsolidationSource(Protocol):
    """Recent validated episodes per (scope, person), and their wisdom notes."""

    async def scopes_with_recent_episodes(self, *, since: datetime) -> list[tuple[Scope, str]]: ...

    async def list_episodes(
        self,
        user_id: str,
        *,
        scope: Scope | None = None,
        statuses: frozenset[EpisodeStatus] = ...,
        since: datetime | None = None,
        limit: int = 100,
    ) -> list[Episode]: ...

    async def replace_wisdom(
        self, scope: Scope, user_id: str, notes: list[str], *, episode_count: int, at: datetime
    ) -> list[WisdomNote]: ...
