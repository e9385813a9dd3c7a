"""The current date and time, for questions about today, deadlines and durations."""

from __future__ import annotations

from datetime import UTC

from pydantic import BaseModel

from bot.agent.context import TurnContext
from bot.agent.tools.registry import tool

__all__ = ["CurrentDatetime", "NoArgs", "current_datetime"]


class NoArgs(BaseModel):
    pass


class CurrentDatetime(BaseModel):
    iso: str
    utc: str
    weekday: str


@tool(description="The current date and time (ISO 8601, in UTC too) and the day of the week.")
async def current_datetime(ctx: TurnContext, args: NoArgs) -> CurrentDatetime:
    now = ctx.now if ctx.now.tzinfo is not None else ctx.now.replace(tzinfo=UTC)
    return CurrentDatetime(
        iso=now.isoformat(),
        utc=now.astimezone(UTC).isoformat(),
        weekday=now.strftime("%A"),
    )
