"""The Home tab's "Forget everything" button (Slack asked for confirmation before sending
the click): the same erasure as ``/forget``, then the Home tab is shown again, empty."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.events.app_home_opened import publish_home
from bot.listeners.services import Services
from bot.listeners.workspace import listed_workspace, payload_team

__all__ = ["forget_everything_callback"]

log = logging.getLogger(__name__)


def forget_everything_callback(services: Services) -> Callable[..., Awaitable[None]]:
    async def work(user_id: str, team_id: str | None, client: AsyncWebClient) -> None:
        report = await services.forgetting.forget_user(user_id)
        log.info("erased %d row(s) at a person's request from the Home tab", report.total)
        workspace = listed_workspace(services, team_id)
        await publish_home(client, services.memory, user_id, team_id=workspace)

    async def on_forget_everything(
        ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient
    ) -> None:
        await ack()
        user_id = (body.get("user") or {}).get("id")
        if user_id:
            services.inflight.start(work(user_id, payload_team(body), client))
        else:
            services.observer.ignored("forget", "malformed")

    return on_forget_everything
