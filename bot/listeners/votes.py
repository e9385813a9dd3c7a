"""Votes are committed before Slack hears back: a 200 (or a Socket Mode ack) for a vote
means the vote is in the database.

Bolt acknowledges an Events API request before its listener runs, and a block action as
soon as the listener calls ``ack()``, so a vote applied in a listener (or in a task it
starts) is lost if the process dies right after Slack got its 200. The vote is therefore
applied by *listener middleware*, which Bolt runs to the end before the listener and
before acknowledging; the listeners themselves only acknowledge. When the store fails, or
has not committed within :data:`COMMIT_WITHIN_SECONDS` (Slack waits 3 s), the request gets
a 503 and no acknowledgement, so Slack delivers the event again; applying a vote a second
time changes nothing.

The payloads are read through pydantic models of only the fields a vote needs: anything
malformed is not a vote, and is acknowledged without touching the store (one ``vote``
event line, outcome ``ignored``; a vote's own line is logged by :class:`bot.votes.Votes`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ValidationError
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.reason_prompt import ask_why_soon
from bot.listeners.services import Services
from bot.views import vote_for
from memory import VoteEvent
from memory.reactions import BUTTON

__all__ = ["COMMIT_WITHIN_SECONDS", "VoteReader", "button_vote", "commit_vote", "reaction_vote"]

log = logging.getLogger(__name__)

COMMIT_WITHIN_SECONDS = 2.0
"""How long a vote may take to commit before the request is refused (503) rather than
acknowledged late: well inside the 3 s Slack waits, leaving time for Bolt and the network."""

VoteReader = Callable[[dict[str, Any], datetime], VoteEvent | None]
"""Reads the vote a request's body casts at a time, or None when it casts none."""


class _Id(BaseModel):
    id: str = ""


class _Ts(BaseModel):
    ts: str = ""


class _Container(BaseModel):
    channel_id: str = ""
    message_ts: str = ""


class _Action(BaseModel):
    value: str = ""


class _Click(BaseModel):
    """A ``block_actions`` payload, as far as a feedback vote reads it."""

    user: _Id
    actions: list[_Action]
    container: _Container = _Container()
    channel: _Id = _Id()
    message: _Ts = _Ts()


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


def button_vote(body: dict[str, Any], at: datetime) -> VoteEvent | None:
    """The vote a click on an answer's feedback buttons casts (the first action's value),
    on the message in its container (or, without one, the payload's channel and message)."""
    try:
        click = _Click.model_validate(body)
    except ValidationError:
        return None
    vote = vote_for(click.actions[0].value) if click.actions else None
    channel_id = click.container.channel_id or click.channel.id
    message_ts = click.container.message_ts or click.message.ts
    if vote is None or not (channel_id and message_ts and click.user.id):
        return None
    return VoteEvent(
        channel_id=channel_id,
        message_ts=message_ts,
        voter_id=click.user.id,
        reaction=BUTTON,
        vote=vote,
        added=True,
        at=at,
    )


def commit_vote(
    services: Services, read: VoteReader
) -> Callable[..., Awaitable[BoltResponse | None]]:
    """Listener middleware that commits the request's vote, if it casts one, and only then
    lets Bolt run the listener and acknowledge; a 👎 then asks its voter why (once)."""

    async def commit(
        body: dict[str, Any], client: AsyncWebClient, next_: Callable[[], Awaitable[None]]
    ) -> BoltResponse | None:
        event = read(body, datetime.now(UTC))
        if event is None:
            services.observer.ignored("vote", "not_a_vote")
        else:
            try:
                async with asyncio.timeout(COMMIT_WITHIN_SECONDS):
                    outcome = await services.votes.apply(event)
            except Exception as error:  # not stored (yet): no 200, so Slack sends it again
                log.error("a vote could not be stored (%s); not acknowledged", type(error).__name__)
                return BoltResponse(status=503, body="")
            ask_why_soon(services, client, event, outcome)
        await next_()
        return None

    return commit
