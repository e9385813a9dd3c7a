"""What the listeners need from the rest of the bot, handed to them by :mod:`bot.app`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from bot.answering import AnswerService, BotIdentity, InFlight
from memory import MemoryStore

__all__ = ["Services", "Waker"]


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
