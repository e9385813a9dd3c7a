"""A line in a thread that only one person sees (``chat.postEphemeral``): the thanks for a
👎's reason, what an answer learned from in a channel, the question why an answer was 👎'd."""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

__all__ = ["tell_privately"]

log = logging.getLogger(__name__)


async def tell_privately(
    client: AsyncWebClient,
    text: str,
    *,
    channel_id: str,
    user_id: str,
    thread_ts: str | None,
    blocks: list[dict[str, Any]] | None = None,
) -> None:
    """Show ``text`` (or ``blocks``, with ``text`` as their fallback) to ``user_id`` alone,
    in the thread. A refusal is logged by Slack's error code: the line is a courtesy, and
    what sent it goes on without it."""
    try:
        await client.chat_postEphemeral(
            channel=channel_id, user=user_id, thread_ts=thread_ts, text=text, blocks=blocks
        )
    except SlackApiError as error:
        log.warning("could not show a private line: %s", error.response.get("error"))
