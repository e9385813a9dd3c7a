"""What the listeners need from the rest of the bot, handed to them by :mod:`bot.app`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from bot.answering import AnswerService, BotIdentity, InFlight
from memory import EpisodeStatus, ForgetReport, MemoryStore, VoteEvent, VoteOutcome

__all__ = ["Services", "Waker"]

log = logging.getLogger(__name__)

VALIDATED = frozenset({EpisodeStatus.SUCCESS, EpisodeStatus.FAILURE})


class Waker(Protocol):
    """Something to nudge when a vote validated an episode (the reflection worker)."""

    def wake(self) -> None: ...


@dataclass
class Services:
    answering: AnswerService
    memory: MemoryStore
    identity: BotIdentity
    inflight: InFlight = field(default_factory=InFlight)
    reflection: Waker | None = None
    episode_validated: asyncio.Event = field(default_factory=asyncio.Event)
    """Set whenever a vote made an episode a success or a failure (reflection has work)."""
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    def validated(self) -> None:
        """A vote validated an episode: tell whoever reflects on episodes."""
        self.episode_validated.set()
        if self.reflection is not None:
            self.reflection.wake()

    async def vote(self, event: VoteEvent) -> VoteOutcome:
        """Apply a vote, from a reaction or a feedback button alike: the one path for both."""
        outcome = await self.memory.apply_vote(event)
        log.debug("vote on %s: %s", event.message_ts, outcome.reason)
        if outcome.applied and outcome.status in VALIDATED:
            self.validated()
        return outcome

    async def forget_user(self, user_id: str) -> ForgetReport:
        """Erase everything about a person: stored memory and running threads' notes."""
        report = await self.memory.forget_user(user_id)
        self.answering.working_memory.forget_user(user_id)
        return report
