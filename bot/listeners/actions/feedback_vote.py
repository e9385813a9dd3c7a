"""A click on an answer's feedback buttons: the same vote as a 👍/👎 reaction.

The click becomes a :class:`memory.VoteEvent` with ``reaction="button"`` and goes through
:meth:`Services.vote`, exactly like a reaction; a later click replaces the earlier one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck

from bot.listeners.services import Services
from bot.views import vote_for
from memory import VoteEvent
from memory.reactions import BUTTON

__all__ = ["feedback_vote_callback", "vote_event"]


def vote_event(body: dict[str, Any], action: dict[str, Any], at: datetime) -> VoteEvent | None:
    """The vote a ``block_actions`` payload casts at ``at``, or None when it is not a vote."""
    vote = vote_for(action.get("value"))
    container = body.get("container") or {}
    channel_id = container.get("channel_id") or (body.get("channel") or {}).get("id")
    message_ts = container.get("message_ts") or (body.get("message") or {}).get("ts")
    voter_id = (body.get("user") or {}).get("id")
    if vote is None or not (channel_id and message_ts and voter_id):
        return None
    return VoteEvent(
        channel_id=channel_id,
        message_ts=message_ts,
        voter_id=voter_id,
        reaction=BUTTON,
        vote=vote,
        added=True,
        at=at,
    )


def feedback_vote_callback(services: Services) -> Callable[..., Awaitable[None]]:
    async def on_feedback(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any]) -> None:
        await ack()
        event = vote_event(body, action, services.clock())
        if event is not None:
            services.inflight.start(services.vote(event))

    return on_feedback
