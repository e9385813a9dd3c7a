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
    async def on_open(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        await ack()
        ref = ItemRef.parse(action.get("value"))
        trigger_id = body.get("trigger_id")
        user_id = (body.get("user") or {}).get("id")
        if ref is None or ref.kind is not ItemKind.EPISODE or not trigger_id or not user_id:
            services.observer.ignored("reason_form", "malformed")
            return
        async with services.observer.event("reason_form", user=user_id) as record:
            try:  # a trigger lasts 3 seconds: the form is opened at once, not in the background
                await client.views_open(trigger_id=trigger_id, view=reason_form(ref.id))
            except SlackApiError as error:
                log.warning("could not open the reason form: %s", error.response.get("error"))
                record.outcome = "failed"

    return on_open
