"""``assistant_thread_started`` (the legacy assistant experience, ``assistant_view``): a
new thread gets a greeting and suggested prompts from the person's own 👍s in this DM (one
``thread_started`` event line)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, Field
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.payloads import read_payload
from bot.listeners.services import Services
from bot.listeners.workspace import scope_org
from bot.slack.assistant import greet, suggest_prompts

__all__ = ["assistant_thread_started_callback"]


class _AssistantThread(BaseModel):
    user_id: str = Field(min_length=1)
    channel_id: str = Field(min_length=1)
    thread_ts: str = Field(min_length=1)


class _Event(BaseModel):
    assistant_thread: _AssistantThread


class _ThreadStarted(BaseModel):
    """The parts of the event callback the listener uses (anything else is ignored)."""

    team_id: str = Field(min_length=1)
    event: _Event


def assistant_thread_started_callback(
    services: Services,
) -> Callable[[dict[str, Any], AsyncWebClient], Awaitable[None]]:
    async def greet_and_suggest(
        body: dict[str, Any], started: _ThreadStarted, client: AsyncWebClient
    ) -> None:
        thread = started.event.assistant_thread
        async with services.observer.event(
            "thread_started", team=started.team_id, channel=thread.channel_id, user=thread.user_id
        ):
            await greet(client, channel_id=thread.channel_id, thread_ts=thread.thread_ts)
            await suggest_prompts(
                client,
                services.memory,
                team_id=started.team_id,
                channel_id=thread.channel_id,
                user_id=thread.user_id,
                thread_ts=thread.thread_ts,
                enterprise_id=scope_org(services, body),
            )

    async def on_thread_started(body: dict[str, Any], client: AsyncWebClient) -> None:
        """Greet in a task: Bolt acknowledges the event once this returns."""
        started = read_payload(_ThreadStarted, body, services.observer, "thread_started")
        if started is not None:
            services.inflight.start(greet_and_suggest(body, started, client))

    return on_thread_started
