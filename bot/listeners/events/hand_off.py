"""The listener of ``message`` and ``app_mention`` events, which may ask a question: start
its answer (logged by the answering service), or log it as deliberately ignored."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

from bot.answering import IncomingMessage
from bot.answering.patience import when_the_store_answers
from bot.listeners.keep_before_ack import RECEIVED, Received, Translate
from bot.listeners.services import Services
from bot.listeners.translate import Ignored, ignored_reason
from bot.listeners.workspace import answering_in, identity_in

__all__ = ["answer_or_ignore", "question_listener", "received_in"]


def question_listener(
    services: Services, kind: str, translate: Translate
) -> Callable[[dict[str, Any], AsyncBoltContext], Awaitable[None]]:
    """The listener of ``kind`` events: the question kept before the acknowledgement is
    answered as kept; an event the database could not take in time is read with
    ``translate`` once the database answers, then answered."""

    async def on_question(body: dict[str, Any], context: AsyncBoltContext) -> None:
        if (kept := received_in(context)) is not None:
            answer_or_ignore(services, context, kind, body, kept.translated, kept=kept)
            return
        # Acknowledged already: a database restart is waited out, not a reason to drop it.
        translated = await when_the_store_answers(
            lambda: translate(body, identity_in(services, context), services.memory),
            within=services.answering.store_patience_seconds,
        )
        answer_or_ignore(services, context, kind, body, translated)

    return on_question


def _slack_id(value: object) -> str | None:
    return value if isinstance(value, str) else None


def received_in(context: AsyncBoltContext) -> Received | None:
    """What :func:`bot.listeners.keep_before_ack.keep_before_ack` kept of the event, if it
    could keep it."""
    received = context.get(RECEIVED)
    return received if isinstance(received, Received) else None


def answer_or_ignore(
    services: Services,
    context: AsyncBoltContext,
    kind: str,
    body: dict[str, Any],
    translated: IncomingMessage | Ignored,
    *,
    kept: Received | None = None,
) -> None:
    """Answer in the background (as the bot of the event's workspace), or log one
    ``kind`` line with outcome ``ignored``. A question ``kept`` before the acknowledgement
    is answered as kept (then finished), a re-delivery logged as one; any other is kept
    once the database answers, then answered as kept."""
    if isinstance(translated, IncomingMessage):
        service = answering_in(services, context)
        if kept is None:
            services.inflight.start(services.kept.keep_and_answer(service, translated))
        elif kept.question is None:
            services.inflight.start(service.redelivered(translated))
        else:
            services.inflight.start(services.kept.answer(service, translated, kept.question))
        return
    event = body.get("event") or {}
    services.observer.ignored(
        kind,
        ignored_reason(event, translated),
        event_id=_slack_id(body.get("event_id")),
        team=_slack_id(body.get("team_id")),
        channel=_slack_id(event.get("channel")),
        user=_slack_id(event.get("user")),
    )
