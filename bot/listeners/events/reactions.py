"""``reaction_added`` / ``reaction_removed``: votes on the bot's answers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bot.listeners.services import Services
from memory import VoteEvent

__all__ = ["reaction_callback"]


def reaction_callback(
    services: Services, *, added: bool
) -> Callable[[dict[str, Any]], Awaitable[None]]:
    """The listener for ``reaction_added`` (``added=True``) or ``reaction_removed``."""

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
        services.inflight.start(services.vote(vote_event))

    return on_reaction
