"""``reaction_added`` / ``reaction_removed``: votes on the bot's answers."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot.listeners.services import Services
from memory import EpisodeStatus, VoteEvent

__all__ = ["reaction_callback"]

log = logging.getLogger(__name__)

VALIDATED = frozenset({EpisodeStatus.SUCCESS, EpisodeStatus.FAILURE})


def reaction_callback(
    services: Services, *, added: bool
) -> Callable[[dict[str, Any]], Awaitable[None]]:
    """The listener for ``reaction_added`` (``added=True``) or ``reaction_removed``."""

    async def vote(event: VoteEvent) -> None:
        outcome = await services.memory.apply_vote(event)
        log.debug("vote on %s: %s", event.message_ts, outcome.reason)
        if outcome.applied and outcome.status in VALIDATED:
            services.validated()

    async def on_reaction(event: dict[str, Any]) -> None:
        item = event.get("item") or {}
        if item.get("type") != "message" or not item.get("channel") or not item.get("ts"):
            return
        if not event.get("user") or not event.get("reaction"):
            return
        vote_event = VoteEvent(
            channel_id=item["channel"],
            message_ts=item["ts"],
            voter_id=event["user"],
            reaction=event["reaction"],
            added=added,
            at=services.clock(),
        )
        services.inflight.start(vote(vote_event))

    return on_reaction
