"""Read-only Slack lookups (thread history, user profiles) over the Web API."""

from __future__ import annotations

from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

__all__ = ["WebApiDirectory"]

USER_FIELDS = ("id", "name", "real_name", "tz")


class WebApiDirectory:
    """Implements :class:`bot.assistant.SlackDirectory` with ``AsyncWebClient`` calls."""

    def __init__(self, client: AsyncWebClient, *, max_messages: int = 200) -> None:
        self._client = client
        self._max_messages = max_messages

    async def thread_messages(self, channel_id: str, thread_ts: str) -> list[dict[str, Any]]:
        """Messages of one thread of one channel, oldest first (root included)."""
        messages: list[dict[str, Any]] = []
        cursor: str | None = None
        while len(messages) < self._max_messages:
            response = await self._client.conversations_replies(
                channel=channel_id, ts=thread_ts, cursor=cursor, limit=200
            )
            messages.extend(response.get("messages", []))
            cursor = (response.get("response_metadata") or {}).get("next_cursor")
            if not response.get("has_more") or not cursor:
                break
        return messages[: self._max_messages]

    async def user_info(self, user_id: str) -> dict[str, Any]:
        """The profile fields a tool may see: id, name, real name and time zone."""
        response = await self._client.users_info(user=user_id)
        user = response.get("user") or {}
        return {field: user.get(field) for field in USER_FIELDS if user.get(field) is not None}
