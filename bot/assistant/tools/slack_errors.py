"""A Slack Web API error met by a tool, as the :class:`ToolError` the model can act on."""

from __future__ import annotations

from slack_sdk.errors import SlackApiError

from bot.agent.tools.errors import ToolError

__all__ = ["slack_tool_error"]

GONE = frozenset(
    {
        "user_not_found",
        "user_not_visible",
        "thread_not_found",
        "channel_not_found",
        "not_in_channel",
    }
)
"""Errors that name something that does not exist, or that the bot may not see: asking
again cannot help."""


def slack_tool_error(error: SlackApiError, *, what: str) -> ToolError:
    """``what`` names what the tool asked for (``user U024BE7LH``, ``this thread``)."""
    code = str(error.response.get("error") or "slack_error")
    if code in GONE:
        return ToolError(
            error_class="semantic_garbage",
            code=code,
            detail=f"Slack says {what} does not exist or is not visible to the bot ({code}).",
            hint="Don't ask again for it; answer without it, or ask the person.",
        )
    return ToolError(
        error_class="partial_data",
        code=code,
        detail=f"Slack could not return {what} right now ({code}).",
        hint="You may try once more; otherwise answer without it.",
    )
