"""A click on "Tell me why" in the private note sent after a 👎: open the small form that
asks what went wrong (:func:`bot.views.reason.reason_form`), with the click's trigger.

Each click is one ``reason_form`` event line; the form's submission is handled by
:mod:`bot.listeners.views.reason_submitted`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.services import Services
from bot.views import ItemKind, ItemRef
from bot.views.reason import reason_form

__all__ = ["reason_open_callback"]

log = logging.getLogger(__name__)


def reason_open_callback(services: Services) -> Callable[..., Awaitable[None]]:
    async def open_form(
        client: AsyncWebClient, trigger_id: str, user_id: str, episode_id: int
    ) -> None:
        async with services.observer.event("reason_form", user=user_id) as record:
            try:
                await client.views_open(trigger_id=trigger_id, view=reason_form(episode_id))
            except SlackApiError as error:
                log.warning("could not open the reason form: %s", error.response.get("error"))
                record.outcome = "failed"

    async def on_open(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        """Acknowledge the click and open the form at once (a trigger lasts 3 seconds), in
        a task: Bolt answers Slack once this returns, not once the form is open."""
        await ack()
        ref = ItemRef.parse(action.get("value"))
        trigger_id = body.get("trigger_id")
        user_id = (body.get("user") or {}).get("id")
        if ref is None or ref.kind is not ItemKind.EPISODE or not trigger_id or not user_id:
            services.observer.ignored("reason_form", "malformed")
            return
        services.inflight.start(open_form(client, trigger_id, user_id, ref.id))

    return on_open
