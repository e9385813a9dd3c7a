"""``app_mention`` events: answered in a thread under the mention."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

from bot.answering import BotIdentity, IncomingMessage
from bot.listeners.events.hand_off import question_listener
from bot.listeners.services import Services
from bot.listeners.translate import Ignored, from_app_mention
from memory import MemoryStore

__all__ = ["app_mention_callback", "translate_mention"]


async def translate_mention(
    body: dict[str, Any], identity: BotIdentity, memory: MemoryStore
) -> IncomingMessage | Ignored:
    """:func:`from_app_mention` as a :data:`bot.listeners.keep_before_ack.Translate`."""
    return from_app_mention(body, identity)


def app_mention_callback(
    services: Services,
) -> Callable[[dict[str, Any], AsyncBoltContext], Awaitable[None]]:
    return question_listener(services, "mention", translate_mention)
