"""What one run of the agent loop produced."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from bot.agent.messages import Conversation
from bot.agent.tools.errors import ToolError

__all__ = ["AgentResult", "StopReason"]

StopReason = Literal["answer", "max_iterations", "loop_detected", "empty_reply"]


class AgentResult(BaseModel):
    text: str
    """The answer to send (already sent through ``on_text`` when one was given)."""
    conversation: Conversation
    """The whole exchange, system message first, ending with the answer."""
    llm_calls: int
    tool_errors: list[ToolError] = Field(default_factory=list)
    """Every tool failure of the turn, in order (count them by ``error.counter``)."""
    stop_reason: StopReason
    iterations: int = 0
    evaluation_rounds: int = 0
    """How many drafts evaluators sent back."""
    input_tokens: int = 0
    output_tokens: int = 0
