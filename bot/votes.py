"""Applying a vote, from a reaction or a feedback button alike: the one path for both."""

from __future__ import annotations

import logging
from collections.abc import Callable

from memory import EpisodeStatus, MemoryStore, VoteEvent, VoteOutcome

__all__ = ["Votes"]

log = logging.getLogger(__name__)

VALIDATED = frozenset({EpisodeStatus.SUCCESS, EpisodeStatus.FAILURE})


class Votes:
    """Stores each vote; one that makes an episode a success or a failure calls
    ``on_validated`` (the app wakes reflection, which draws a lesson or scores it)."""

    def __init__(self, store: MemoryStore, on_validated: Callable[[], None]) -> None:
        self._store = store
        self._on_validated = on_validated

    async def apply(self, event: VoteEvent) -> VoteOutcome:
        outcome = await self._store.apply_vote(event)
        log.debug("vote on %s: %s", event.message_ts, outcome.reason)
        if outcome.applied and outcome.status in VALIDATED:
            self._on_validated()
        return outcome
