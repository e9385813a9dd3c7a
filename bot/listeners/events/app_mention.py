"""``app_mention`` events: answered in a thread under the mention."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bot.listeners.events.hand_off import answer_or_ignore
from bot.listeners.services import Services
from bot.listeners.translate import from_app_mention

__all__ = ["app_mention_callback"]


def app_mention_callback(services: Services) -> Callable[[dict[str, Any]], Awaitable[None]]:
    async def on_app_mention(body: dict[str, Any]) -> None:
        answer_or_ignore(services, "mention", body, from_app_mention(body, services.identity))

    return on_app_mention
