"""Questions are kept before Slack hears back: a 200 (or a Socket Mode ack) for a question
means it is in the database, and is answered even if this process dies answering it.

The app runs with ``process_before_response=True`` (:mod:`bot.app`): Bolt answers Slack
once the listener returns. So the ``message`` and ``app_mention`` listener
(:mod:`bot.listeners.events.hand_off`) calls :func:`keep_question` in its own body, as the
vote listeners call :mod:`bot.listeners.vote_before_ack`: it decides whether the event is a
question to answer and keeps it, with its message's claim, in one write
(:meth:`bot.answering.kept_questions.KeptQuestions.keep`); the listener then starts the
answer of the question as kept, in a task, and returns.

When the database cannot be reached within :data:`STORE_WITHIN_SECONDS` (a restart, a
failover), the question is acknowledged all the same: this process waits for the database
(``STORE_RETRY_SECONDS``), in a task, keeps the question once it answers, and answers it as
kept; only a process killed before the database is back loses what it held then.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot.answering import BotIdentity, IncomingMessage
from bot.listeners.deadline import STORE_WITHIN_SECONDS
from bot.listeners.services import Services
from bot.listeners.translate import Ignored
from memory import MemoryStore, PendingQuestion

__all__ = ["Received", "Translate", "keep_question"]

log = logging.getLogger(__name__)


Translate = Callable[
    [dict[str, Any], BotIdentity, MemoryStore], Awaitable[IncomingMessage | Ignored]
]
"""Reads an event: the question to answer in it, or why it is ignored."""


@dataclass(frozen=True)
class Received:
    """What the listener made of an event before its acknowledgement."""

    translated: IncomingMessage | Ignored
    question: PendingQuestion | None
    """The question kept for it; None for an ignored event, or a message handled before
    (a re-delivery, answered once already)."""


async def keep_question(
    services: Services, translate: Translate, body: dict[str, Any], identity: BotIdentity
) -> Received | None:
    """Read the event in ``body`` with ``translate`` and keep its question, if it asks one;
    None when the store could not be reached in time (the event is acknowledged all the
    same, and its question kept once the store answers)."""
    try:
        async with asyncio.timeout(STORE_WITHIN_SECONDS):
            translated = await translate(body, identity, services.memory)
            question = None
            if isinstance(translated, IncomingMessage):
                question = await services.kept.keep(translated)
    except Exception as error:
        log.warning(
            "a message could not be kept before its acknowledgement (%s); this process answers it",
            type(error).__name__,
        )
        return None
    return Received(translated, question)
