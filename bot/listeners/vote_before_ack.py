"""Votes are committed before Slack hears back: a 200 (or a Socket Mode ack) for a vote
means the vote is in the database.

The app runs with ``process_before_response=True`` (:mod:`bot.app`): Bolt answers Slack
once the listener returns, with what it returned. So the reaction and feedback-button
listeners (:mod:`bot.listeners.events.reactions`, :mod:`bot.listeners.actions.feedback_vote`)
read their vote and :func:`commit_vote` it in their own body, before they return. When the
store fails, or has not committed within :data:`STORE_WITHIN_SECONDS` (Slack waits 3 s),
the listener returns a 503 instead (a click is not acknowledged), so Slack delivers the
event again; applying a vote a second time changes nothing. A payload that casts no vote
is acknowledged without touching the store (one ``vote`` event line, outcome ``ignored``;
a vote's own line is logged by :class:`bot.assistant.voting.Votes`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.deadline import STORE_WITHIN_SECONDS
from bot.listeners.reason_prompt import ask_why_soon
from bot.listeners.services import Services
from memory import VoteEvent

__all__ = ["VoteReader", "commit_vote"]

log = logging.getLogger(__name__)


VoteReader = Callable[[dict[str, Any], datetime], VoteEvent | None]
"""Reads the vote a request's body casts at a time, or None when it casts none."""


async def commit_vote(
    services: Services, client: AsyncWebClient, event: VoteEvent | None
) -> BoltResponse | None:
    """Commit ``event``, the vote a request casts (None: it casts none), then let a 👎 ask
    its voter why (once, in the background); the 503 to answer Slack with instead when the
    vote is not stored, None when the request may be acknowledged."""
    if event is None:
        services.observer.ignored("vote", "not_a_vote")
        return None
    try:
        async with asyncio.timeout(STORE_WITHIN_SECONDS):
            outcome = await services.votes.apply(event)
    except Exception as error:  # not stored (yet): no 200, so Slack sends it again
        log.error("a vote could not be stored (%s); not acknowledged", type(error).__name__)
        return BoltResponse(status=503, body="")
    ask_why_soon(services, client, event, outcome)
    return None
