"""``reaction_added`` / ``reaction_removed``: a reaction on one of the bot's answers is a vote.

:func:`reaction_vote` reads the vote from the event (only the fields a vote needs, through
pydantic: a reaction on a file, or a malformed event, casts none), and
:func:`bot.listeners.vote_before_ack.commit_vote`, registered as this listener's middleware,
stores it before Bolt acknowledges the event (Bolt acknowledges an event before its listener
runs); :func:`reaction_callback` is left only the acknowledgement.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from bot.listeners.vote_before_ack import VoteReader
from memory import VoteEvent

__all__ = ["reaction_callback", "reaction_vote"]


class _ReactedItem(BaseModel):
    type: str
    channel: str = ""
    ts: str = ""


class _Reaction(BaseModel):
    """The ``event`` of ``reaction_added`` / ``reaction_removed``."""

    user: str = ""
    reaction: str = ""
    item: _ReactedItem


class _ReactionCallback(BaseModel):
    event: _Reaction


def reaction_vote(*, added: bool) -> VoteReader:
    """The reader for ``reaction_added`` (``added=True``) or ``reaction_removed`` events:
    a reaction on a message; reactions on files and malformed events are no votes."""

    def read(body: dict[str, Any], at: datetime) -> VoteEvent | None:
        try:
            event = _ReactionCallback.model_validate(body).event
        except ValidationError:
            return None
        item = event.item
        if item.type != "message" or not (item.channel and item.ts and event.user):
            return None
        if not event.reaction:
            return None
        return VoteEvent(
            channel_id=item.channel,
            message_ts=item.ts,
            voter_id=event.user,
            reaction=event.reaction,
            added=added,
            at=at,
        )

    return read


async def reaction_callback() -> None:
    """Bolt acknowledges the event once its middleware (the vote) is through."""
