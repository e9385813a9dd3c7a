"""``assistant_thread_started`` (the legacy assistant experience, ``assistant_view``): a
new thread gets a greeting and suggested prompts from the person's own 👍s in this DM."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.services import Services
from bot.slack.assistant import greet, suggest_prompts

__all__ = ["assistant_thread_started_callback"]


def assistant_thread_started_callback(
    services: Services,
) -> Callable[[dict[str, Any], dict[str, Any], AsyncWebClient], Awaitable[None]]:
    async def on_thread_started(
        body: dict[str, Any], event: dict[str, Any], client: AsyncWebClient
    ) -> None:
        thread = event.get("assistant_thread") or {}
        channel, thread_ts, user = (thread.get(k) for k in ("channel_id", "thread_ts", "user_id"))
        if not (channel and thread_ts and user and body.get("team_id")):
            return
        await greet(client, channel_id=str(channel), thread_ts=str(thread_ts))
        await suggest_prompts(
            client,
            services.memory,
            team_id=str(body["team_id"]),
            channel_id=str(channel),
            user_id=str(user),
            thread_ts=str(thread_ts),
        )

    return on_thread_started
