"""``message`` events: DMs, mentions, and follow-ups in threads the bot answered in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

from bot.listeners.events.hand_off import question_listener
from bot.listeners.services import Services
from bot.listeners.translate import from_message

__all__ = ["message_callback"]


def message_callback(
    services: Services,
) -> Callable[[dict[str, Any], AsyncBoltContext], Awaitable[None]]:
    return question_listener(services, "message", from_message)
