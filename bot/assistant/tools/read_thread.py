"""Read the messages of the thread the question was asked in."""

from __future__ import annotations

from pydantic import BaseModel, Field
from slack_sdk.errors import SlackApiError

from bot.agent.tools.errors import ToolError
from bot.agent.tools.registry import tool
from bot.assistant.context import AssistantContext
from bot.assistant.tools.slack_errors import slack_tool_error

__all__ = ["ReadThreadArgs", "ThreadMessage", "ThreadMessages", "read_thread"]


class ReadThreadArgs(BaseModel):
    limit: int = Field(default=30, ge=1, le=100, description="the most recent N messages")


class ThreadMessage(BaseModel):
    user: str | None = None
    text: str
    ts: str


class ThreadMessages(BaseModel):
    messages: list[ThreadMessage]


@tool(description="Read the most recent messages of the current Slack thread.")
async def read_thread(ctx: AssistantContext, args: ReadThreadArgs) -> ThreadMessages | ToolError:
    if ctx.thread_ts is None:
        return ToolError(
            error_class="semantic_garbage",
            code="not_in_thread",
            detail="This question was not asked in a thread.",
            hint="Don't call read_thread here; answer from the conversation you have.",
        )
    try:
        raw = await ctx.slack.thread_messages(ctx.scope.channel_id, ctx.thread_ts)
    except SlackApiError as error:
        return slack_tool_error(error, what="this thread")
    messages = [
        ThreadMessage(
            user=item.get("user") or item.get("bot_id"),
            text=item.get("text", ""),
            ts=item["ts"],
        )
        for item in raw[-args.limit :]
    ]
    return ThreadMessages(messages=messages)
