"""A line in the thread of a person's message that only they see (``chat.postEphemeral``):
the thanks for a 👎's reason, what an answer learned from in a channel."""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.answering.incoming import IncomingMessage

__all__ = ["tell_privately"]

log = logging.getLogger(__name__)


async def tell_privately(
    client: AsyncWebClient,
    message: IncomingMessage,
    text: str,
    *,
    blocks: list[dict[str, Any]] | None = None,
) -> None:
    """Show ``text`` (or ``blocks``, with ``text`` as their fallback) to the writer of
    ``message`` alone, in its thread. A refusal is logged by Slack's error code: the line
    is a courtesy, and the turn goes on without it."""
    try:
        await client.chat_postEphemeral(
            channel=message.channel_id,
            user=message.user_id,
            thread_ts=message.reply_thread_ts,
            text=text,
            blocks=blocks,
        )
    except SlackApiError as error:
        log.warning("could not show a private line: %s", error.response.get("error"))
