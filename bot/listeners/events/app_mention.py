"""``app_mention`` events: answered in a thread under the mention."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

from bot.listeners.events.hand_off import answer_or_ignore
from bot.listeners.services import Services
from bot.listeners.translate import from_app_mention
from bot.listeners.workspace import identity_in

__all__ = ["app_mention_callback"]


def app_mention_callback(
    services: Services,
) -> Callable[[dict[str, Any], AsyncBoltContext], Awaitable[None]]:
    async def on_app_mention(body: dict[str, Any], context: AsyncBoltContext) -> None:
        translated = from_app_mention(body, identity_in(services, context))
        answer_or_ignore(services, context, "mention", body, translated)

    return on_app_mention
