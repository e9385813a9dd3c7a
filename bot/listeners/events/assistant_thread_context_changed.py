"""``assistant_thread_context_changed`` (``assistant_view``): the person opened another
channel beside the assistant thread.

Acknowledged and deliberately not used: what the bot recalls in a DM comes from that DM
only, so the channel someone happens to be viewing changes nothing (and no channel's
memories can leak into the DM through it). Each is one ``context_changed`` event line,
outcome ``ignored``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from bot.listeners.payloads import read_payload
from bot.observability import Observer

__all__ = ["assistant_thread_context_changed_callback"]


class _AssistantThread(BaseModel):
    user_id: str | None = None
    channel_id: str | None = None


class _Event(BaseModel):
    assistant_thread: _AssistantThread


class _ContextChanged(BaseModel):
    """The ids the log line names (anything else is ignored)."""

    team_id: str | None = None
    event: _Event


def assistant_thread_context_changed_callback(
    observer: Observer,
) -> Callable[[dict[str, Any]], Awaitable[None]]:
    async def on_context_changed(body: dict[str, Any]) -> None:
        """Nothing to do: the DM stays its own memory partition."""
        changed = read_payload(_ContextChanged, body, observer, "context_changed")
        if changed is None:
            return
        thread = changed.event.assistant_thread
        observer.ignored(
            "context_changed",
            "dm_is_its_own_memory",
            team=changed.team_id,
            channel=thread.channel_id,
            user=thread.user_id,
        )

    return on_context_changed
