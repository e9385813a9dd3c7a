"""``message`` events: DMs, mentions, and follow-ups in threads the bot answered in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

from bot.answering.patience import when_the_store_answers
from bot.listeners.events.hand_off import answer_or_ignore, received_in
from bot.listeners.services import Services
from bot.listeners.translate import from_message
from bot.listeners.workspace import identity_in

__all__ = ["message_callback"]


def message_callback(
    services: Services,
) -> Callable[[dict[str, Any], AsyncBoltContext], Awaitable[None]]:
    async def on_message(body: dict[str, Any], context: AsyncBoltContext) -> None:
        if (kept := received_in(context)) is not None:
            answer_or_ignore(services, context, "message", body, kept.translated, kept=kept)
            return
        # Acknowledged already: a database restart is waited out, not a reason to drop it.
        translated = await when_the_store_answers(
            lambda: from_message(body, identity_in(services, context), services.memory),
            within=services.answering.store_patience_seconds,
        )
        answer_or_ignore(services, context, "message", body, translated)

    return on_message
