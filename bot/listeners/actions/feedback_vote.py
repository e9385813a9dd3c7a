"""A click on an answer's feedback buttons: the same vote as a 👍/👎 reaction.

:func:`button_vote` reads the click (``reaction="button"``), and the listener,
:func:`feedback_vote_callback`, stores it with :func:`bot.listeners.vote_before_ack.commit_vote`
exactly like a reaction before it acknowledges the click (or answers 503, unacknowledged,
when the vote is not stored); a later click replaces the earlier one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ValidationError
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.services import Services
from bot.listeners.vote_before_ack import commit_vote
from bot.views import vote_for
from memory import VoteEvent
from memory.config import BUTTON

__all__ = ["button_vote", "feedback_vote_callback"]


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


def feedback_vote_callback(services: Services) -> Callable[..., Awaitable[BoltResponse | None]]:
    async def on_click(
        ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient
    ) -> BoltResponse | None:
        """Store the click's vote, then acknowledge it; the 503 Bolt answers with instead
        when the vote is not stored."""
        refused = await commit_vote(services, client, button_vote(body, datetime.now(UTC)))
        if refused is None:
            await ack()
        return refused

    return on_click
