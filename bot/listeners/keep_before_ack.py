"""Questions are kept before Slack hears back: a 200 (or a Socket Mode ack) for a question
means it is in the database, and is answered even if this process dies answering it.

Bolt acknowledges an Events API request before its listener runs, and Slack never sends an
acknowledged event again; so the ``message`` and ``app_mention`` listeners register
:func:`keep_before_ack` as *listener middleware*, which Bolt runs to the end before the
listener and before acknowledging (as :mod:`bot.listeners.vote_before_ack` does for votes).
It decides whether the event is a question to answer and keeps it, with its message's
claim, in one write (:meth:`bot.answering.kept_questions.KeptQuestions.keep`); the listener
answers it as kept (see :mod:`bot.listeners.events.hand_off`).

When the database cannot be reached within :data:`KEEP_WITHIN_SECONDS` (a restart, a
failover), the question is acknowledged all the same: this process waits for the database
(``STORE_RETRY_SECONDS``), keeps the question once it answers, and answers it as kept;
only a process killed before the database is back loses what it held then.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

from bot.answering import BotIdentity, IncomingMessage
from bot.listeners.services import Services
from bot.listeners.translate import Ignored
from bot.listeners.workspace import identity_in
from memory import MemoryStore, PendingQuestion

__all__ = ["KEEP_WITHIN_SECONDS", "RECEIVED", "Received", "Translate", "keep_before_ack"]

log = logging.getLogger(__name__)

KEEP_WITHIN_SECONDS = 2.0
"""How long deciding and keeping a question may take before it is acknowledged without
being kept: well inside the 3 s Slack waits, leaving time for Bolt and the network."""
RECEIVED = "received_question"
"""The key of the request's :class:`Received` in Bolt's context, once kept."""

Translate = Callable[
    [dict[str, Any], BotIdentity, MemoryStore], Awaitable[IncomingMessage | Ignored]
]
"""Reads an event: the question to answer in it, or why it is ignored."""


@dataclass(frozen=True)
class Received:
    """What the middleware made of an event before its acknowledgement."""

    translated: IncomingMessage | Ignored
    question: PendingQuestion | None
    """The question kept for it; None for an ignored event, or a message handled before
    (a re-delivery, answered once already)."""


def keep_before_ack(services: Services, translate: Translate) -> Callable[..., Awaitable[None]]:
    """Listener middleware that keeps the event's question, if it asks one, before Bolt
    acknowledges it; the listener finds a :class:`Received` under :data:`RECEIVED` in its
    context, or nothing when the store could not be reached in time."""

    async def keep(
        body: dict[str, Any], context: AsyncBoltContext, next_: Callable[[], Awaitable[None]]
    ) -> None:
        try:
            async with asyncio.timeout(KEEP_WITHIN_SECONDS):
                translated = await translate(body, identity_in(services, context), services.memory)
                question = None
                if isinstance(translated, IncomingMessage):
                    question = await services.kept.keep(translated)
            context[RECEIVED] = Received(translated, question)
        except Exception as error:
            log.warning(
                "a message could not be kept before its acknowledgement (%s); "
                "this process answers it",
                type(error).__name__,
            )
        await next_()

    return keep
