"""``reaction_added`` / ``reaction_removed``: a reaction on one of the bot's answers is a vote.

:func:`reaction_vote` reads the vote from the event (only the fields a vote needs, through
pydantic: a reaction on a file, or a malformed event, casts none), and the listener,
:func:`reaction_callback`, stores it with :func:`bot.listeners.vote_before_ack.commit_vote`
before it returns, so before Bolt acknowledges the event; a 503 when it is not stored.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ValidationError
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.services import Services
from bot.listeners.vote_before_ack import VoteReader, commit_vote
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


def reaction_callback(
    services: Services, *, added: bool
) -> Callable[[dict[str, Any], AsyncWebClient], Awaitable[BoltResponse | None]]:
    """The listener of ``reaction_added`` (``added=True``) or ``reaction_removed`` events."""
    read = reaction_vote(added=added)

    async def on_reaction(body: dict[str, Any], client: AsyncWebClient) -> BoltResponse | None:
        """Store the reaction's vote: Bolt acknowledges the event once this returns, or
        answers with the 503 it returns when the vote is not stored."""
        return await commit_vote(services, client, read(body, datetime.now(UTC)))

    return on_reaction
