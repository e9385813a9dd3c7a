"""After a 👎: asking its voter privately why, once an answer (see :mod:`bot.assistant.reasons`).

Called by a vote's listener once the vote is stored; the ask runs in the background, so
the vote's acknowledgement never waits for it.
"""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient

from bot.answering.private_line import tell_privately
from bot.listeners.services import Services
from bot.views.reason import ASK_TEXT, reason_prompt
from memory import VoteEvent, VoteOutcome

__all__ = ["ask_why_soon"]


def ask_why_soon(
    services: Services, client: AsyncWebClient, event: VoteEvent, outcome: VoteOutcome
) -> None:
    """Ask the voter why, in the answer's thread, if this vote is a 👎 they should be asked
    about (their own answer, the first time, asking on). Any other vote starts no task."""
    if not services.reasons.may_ask(event, outcome):
        return

    async def ask() -> None:
        episode = await services.reasons.to_ask_about(event, outcome)
        if episode is None:
            return
        await tell_privately(
            client,
            ASK_TEXT,
            channel_id=episode.scope.channel_id,
            user_id=event.voter_id,
            thread_ts=episode.thread_ts,
            blocks=reason_prompt(episode.id),
        )

    services.inflight.start(ask())
