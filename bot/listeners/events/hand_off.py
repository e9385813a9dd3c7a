"""What ``message`` and ``app_mention`` listeners do with a translated event: start its
answer (logged by the answering service), or log it as deliberately ignored."""

from __future__ import annotations

from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

from bot.answering import IncomingMessage
from bot.listeners.services import Services
from bot.listeners.translate import Ignored, ignored_reason
from bot.listeners.workspace import answering_in

__all__ = ["answer_or_ignore"]


def _slack_id(value: object) -> str | None:
    return value if isinstance(value, str) else None


def answer_or_ignore(
    services: Services,
    context: AsyncBoltContext,
    kind: str,
    body: dict[str, Any],
    translated: IncomingMessage | Ignored,
) -> None:
    """Answer in the background (as the bot of the event's workspace), or log one
    ``kind`` line with outcome ``ignored``."""
    if isinstance(translated, IncomingMessage):
        services.inflight.start(answering_in(services, context).answer(translated))
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
