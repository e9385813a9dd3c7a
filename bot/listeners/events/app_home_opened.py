"""``app_home_opened``: the Home tab lists everything the bot remembers about the viewer;
the Messages tab (the agent experience's DM) gets suggested prompts from their own 👍s.
Each opening is one ``home`` or ``messages_tab`` event line."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

from pydantic import BaseModel, Field
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.payloads import read_payload
from bot.listeners.services import Services
from bot.listeners.workspace import listed_workspace, scope_org
from bot.slack.assistant import suggest_prompts
from bot.views.app_home import home_view
from memory import MemoryStore

__all__ = ["app_home_opened_callback", "publish_home"]

HOME_EPISODES = 300
"""Rated answers read for the Home tab; the view shows what fits and counts the rest."""


class _Opened(BaseModel):
    user: str = Field(min_length=1)
    tab: Literal["home", "messages"]
    channel: str | None = Field(default=None, min_length=1)


class _HomeOpened(BaseModel):
    """The parts of the event callback the listener uses (anything else is ignored)."""

    team_id: str | None = None
    event: _Opened


async def publish_home(
    client: AsyncWebClient, memory: MemoryStore, user_id: str, *, team_id: str | None
) -> None:
    """(Re)publish ``user_id``'s Home tab from their own memories only (those of workspace
    ``team_id``, when given)."""
    episodes = await memory.list_episodes(user_id, limit=HOME_EPISODES, team_id=team_id)
    notes = await memory.list_wisdom(user_id, team_id=team_id)
    await client.views_publish(user_id=user_id, view=home_view(episodes, notes))


def app_home_opened_callback(
    services: Services,
) -> Callable[[dict[str, Any], AsyncWebClient], Awaitable[None]]:
    async def show(body: dict[str, Any], opened: _HomeOpened, client: AsyncWebClient) -> None:
        event = opened.event
        kind = "home" if event.tab == "home" else "messages_tab"
        async with services.observer.event(
            kind, team=opened.team_id, channel=event.channel, user=event.user
        ) as record:
            if event.tab == "home":
                workspace = listed_workspace(services, opened.team_id)
                await publish_home(client, services.memory, event.user, team_id=workspace)
            elif event.channel and opened.team_id:
                await suggest_prompts(
                    client,
                    services.memory,
                    team_id=opened.team_id,
                    channel_id=event.channel,
                    user_id=event.user,
                    enterprise_id=scope_org(services, body),
                )
            else:
                record.outcome, record.reason = "ignored", "malformed"

    async def on_app_home_opened(body: dict[str, Any], client: AsyncWebClient) -> None:
        """Show the tab in a task: Bolt acknowledges the event once this returns."""
        opened = read_payload(_HomeOpened, body, services.observer, "home")
        if opened is not None:
            services.inflight.start(show(body, opened, client))

    return on_app_home_opened
