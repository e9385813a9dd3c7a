"""``app_home_opened``: the Home tab lists everything the bot remembers about the viewer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.services import Services
from bot.views.app_home import home_view
from memory import MemoryStore

__all__ = ["app_home_opened_callback", "publish_home"]

HOME_EPISODES = 300
"""Rated answers read for the Home tab; the view shows what fits and counts the rest."""


async def publish_home(client: AsyncWebClient, memory: MemoryStore, user_id: str) -> None:
    """(Re)publish ``user_id``'s Home tab from their own memories only."""
    episodes = await memory.list_episodes(user_id, limit=HOME_EPISODES)
    notes = await memory.list_wisdom(user_id)
    await client.views_publish(user_id=user_id, view=home_view(episodes, notes))


def app_home_opened_callback(
    services: Services,
) -> Callable[[dict[str, Any], AsyncWebClient], Awaitable[None]]:
    async def on_app_home_opened(event: dict[str, Any], client: AsyncWebClient) -> None:
        if event.get("tab") != "home" or not event.get("user"):
            return
        await publish_home(client, services.memory, event["user"])

    return on_app_home_opened
