"""The listener of ``message`` and ``app_mention`` events, which may ask a question: keep
it before Slack hears back (:mod:`bot.listeners.keep_before_ack`), then start its answer
in a task (logged by the answering service), or log the event as deliberately ignored."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

from bot.answering import IncomingMessage
from bot.answering.patience import when_the_store_answers
from bot.listeners.keep_before_ack import Translate, keep_question
from bot.listeners.services import Services
from bot.listeners.translate import Ignored, ignored_reason
from bot.listeners.workspace import answering_in, identity_in
from memory import StoreError

__all__ = ["question_listener"]

log = logging.getLogger(__name__)


def question_listener(
    services: Services, kind: str, translate: Translate
) -> Callable[[dict[str, Any], AsyncBoltContext], Awaitable[None]]:
    """The listener of ``kind`` events, read with ``translate``."""

    async def on_question(body: dict[str, Any], context: AsyncBoltContext) -> None:
        """Keep the event's question: Bolt acknowledges the event once this returns. Its
        answer, as kept, runs in a task; a re-delivery is logged as one. An event the
        database could not take in time is read and kept once the database answers, in a
        task too, then answered."""
        identity = identity_in(services, context)
        received = await keep_question(services, translate, body, identity)
        if received is None:
            services.inflight.start(
                _keep_once_the_store_answers(services, kind, translate, body, context)
            )
            return
        translated, question = received.translated, received.question
        if not isinstance(translated, IncomingMessage):
            _log_ignored(services, kind, body, translated)
        elif question is None:
            services.inflight.start(answering_in(services, context).redelivered(translated))
        else:
            answering = answering_in(services, context)
            services.inflight.start(services.kept.answer(answering, translated, question))

    return on_question


async def _keep_once_the_store_answers(
    services: Services,
    kind: str,
    translate: Translate,
    body: dict[str, Any],
    context: AsyncBoltContext,
) -> None:
    """Read an event acknowledged without being kept once the database answers (a restart
    is waited out, not a reason to drop it), then keep its question and answer it."""
    identity = identity_in(services, context)
    try:
        translated = await when_the_store_answers(
            lambda: translate(body, identity, services.memory),
            within=services.answering.store_patience_seconds,
        )
    except StoreError as error:
        log.error(
            "a %s could not be read: the memory store stayed unavailable (%s)",
            kind,
            type(error).__name__,
        )
        return
    if isinstance(translated, IncomingMessage):
        await services.kept.keep_and_answer(answering_in(services, context), translated)
    else:
        _log_ignored(services, kind, body, translated)


def _slack_id(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _log_ignored(services: Services, kind: str, body: dict[str, Any], why: Ignored) -> None:
    """One ``kind`` line with outcome ``ignored``."""
    event = body.get("event") or {}
    services.observer.ignored(
        kind,
        ignored_reason(event, why),
        event_id=_slack_id(body.get("event_id")),
        team=_slack_id(body.get("team_id")),
        channel=_slack_id(event.get("channel")),
        user=_slack_id(event.get("user")),
    )
