"""Applying a vote, from a reaction or a feedback button alike: the one path for both."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.observability import Observer
from memory import EpisodeStatus, VoteEvent, VoteOutcome, VoteRecorder

__all__ = ["Votes"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Votes:
    """Stores each vote; each one stored calls ``on_applied`` with its answer's status
    after it (the app wakes reflection when that gives it a lesson to draw or a score to
    give). Each vote is one ``vote`` event line for ``observer``."""

    store: VoteRecorder
    on_applied: Callable[[EpisodeStatus], None]
    observer: Observer = field(default_factory=Observer)

    async def apply(self, event: VoteEvent) -> VoteOutcome:
        async with self.observer.event(
            "vote", channel=event.channel_id, message_ts=event.message_ts, user=event.voter_id
        ) as record:
            outcome = await self.store.apply_vote(event)
            # The answer's status after the vote, or "ignored" when the vote changed nothing.
            status = outcome.status if outcome.applied else None
            record.outcome = status.value if status is not None else "ignored"
        log.debug("vote on %s: %s", event.message_ts, outcome.reason)
        if outcome.applied and outcome.status is not None:
            self.on_applied(outcome.status)
        return outcome
