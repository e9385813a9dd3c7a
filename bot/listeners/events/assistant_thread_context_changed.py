"""``assistant_thread_context_changed`` (``assistant_view``): the person opened another
channel beside the assistant thread.

Acknowledged and deliberately not used: what the bot recalls in a DM comes from that DM
only, so the channel someone happens to be viewing changes nothing (and no channel's
memories can leak into the DM through it)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["assistant_thread_context_changed_callback"]


def assistant_thread_context_changed_callback() -> Callable[[dict[str, Any]], Awaitable[None]]:
    async def on_context_changed(event: dict[str, Any]) -> None:
        """Nothing to do: the DM stays its own memory partition."""

    return on_context_changed
