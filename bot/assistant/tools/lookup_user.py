"""Who a Slack user is: handle, full name and time zone (nothing more)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from slack_sdk.errors import SlackApiError

from bot.agent.tools.errors import ToolError
from bot.agent.tools.registry import tool
from bot.assistant.context import AssistantContext
from bot.assistant.tools.slack_errors import slack_tool_error

__all__ = ["LookupUserArgs", "UserSummary", "lookup_user"]


class LookupUserArgs(BaseModel):
    user_id: str = Field(
        pattern=r"^[UW][A-Z0-9]{2,}$",
        description="a Slack user ID such as U024BE7LH (from a <@U024BE7LH> mention)",
    )


class UserSummary(BaseModel):
    name: str | None = None
    real_name: str | None = None
    tz: str | None = None


@tool(description="Look up a Slack user's handle, full name and time zone by user ID.")
async def lookup_user(ctx: AssistantContext, args: LookupUserArgs) -> UserSummary | ToolError:
    try:
        info: dict[str, Any] = await ctx.slack.user_info(args.user_id)
    except SlackApiError as error:
        return slack_tool_error(error, what=f"user {args.user_id}")
    user = info.get("user", info)
    profile = user.get("profile") or {}
    return UserSummary(
        name=user.get("name"),
        real_name=user.get("real_name") or profile.get("real_name"),
        tz=user.get("tz"),
    )
