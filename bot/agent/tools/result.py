"""What one tool call came to, as the callbacks see it after the call."""

from __future__ import annotations

from pydantic import BaseModel

from bot.agent.messages import ToolCall
from bot.agent.tools.errors import ToolError

__all__ = ["ToolResult"]


class ToolResult(BaseModel):
    """The call, what the model is shown, and the error when the call failed."""

    call: ToolCall
    content: str
    error: ToolError | None = None
