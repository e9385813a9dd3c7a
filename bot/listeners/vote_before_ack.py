"""Votes are committed before Slack hears back: a 200 (or a Socket Mode ack) for a vote
means the vote is in the database.

Bolt acknowledges an Events API request before its listener runs, and a block action as
soon as the listener calls ``ack()``, so a vote applied in a listener (or in a task it
starts) is lost if the process dies right after Slack got its 200. The vote is therefore
applied by *listener middleware*, which Bolt runs to the end before the listener and
before acknowledging: the reaction and feedback-button listeners register it beside their
callback, with the reader of their payload (:func:`bot.listeners.events.reactions.reaction_vote`,
:func:`bot.listeners.actions.feedback_vote.button_vote`). When the store fails, or has not
committed within :data:`COMMIT_WITHIN_SECONDS` (Slack waits 3 s), the request gets a 503 and
no acknowledgement, so Slack delivers the event again; applying a vote a second time changes
nothing. A payload that casts no vote is acknowledged without touching the store (one
``vote`` event line, outcome ``ignored``; a vote's own line is logged by
:class:`bot.assistant.voting.Votes`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.reason_prompt import ask_why_soon
from bot.listeners.services import Services
from memory import VoteEvent

__all__ = ["COMMIT_WITHIN_SECONDS", "VoteReader", "commit_vote"]

log = logging.getLogger(__name__)

COMMIT_WITHIN_SECONDS = 2.0
"""How long a vote may take to commit before the request is refused (503) rather than
acknowledged late: well inside the 3 s Slack waits, leaving time for Bolt and the network."""

VoteReader = Callable[[dict[str, Any], datetime], VoteEvent | None]
"""Reads the vote a request's body casts at a time, or None when it casts none."""


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
