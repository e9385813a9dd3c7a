"""``app_home_opened``: a short Home tab explaining how the bot learns."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

__all__ = ["HOME_TEXT", "app_home_opened_callback"]

HOME_TEXT = (
    "*Ask me anything* in a DM, or mention me in a channel; I answer in a thread.\n"
    "React 👍 or 👎 to my answers: I remember what worked for you, and what didn't, "
    "only in the conversation where you asked.\n"
    "`/memory` shows what I remember about you; `/forget` erases all of it."
)


def app_home_opened_callback() -> Callable[[dict[str, Any], AsyncWebClient], Awaitable[None]]:
    async def on_app_home_opened(event: dict[str, Any], client: AsyncWebClient) -> None:
        if event.get("tab") != "home" or not event.get("user"):
            return
        await client.views_publish(
            user_id=event["user"],
            view={
                "type": "home",
                "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": HOME_TEXT}}],
            },
        )

    return on_app_home_opened
