"""``app_home_opened``: the Home tab lists everything the bot remembers about the viewer;
the Messages tab (the agent experience's DM) gets suggested prompts from their own 👍s."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.services import Services
from bot.slack.assistant import suggest_prompts
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
) -> Callable[[dict[str, Any], dict[str, Any], AsyncWebClient], Awaitable[None]]:
    async def on_app_home_opened(
        body: dict[str, Any], event: dict[str, Any], client: AsyncWebClient
    ) -> None:
        user = event.get("user")
        if not user:
            return
        if event.get("tab") == "home":
            await publish_home(client, services.memory, user)
        elif event.get("tab") == "messages" and event.get("channel") and body.get("team_id"):
            await suggest_prompts(
                client,
                services.memory,
                team_id=str(body["team_id"]),
                channel_id=str(event["channel"]),
                user_id=str(user),
            )

    return on_app_home_opened
