"""Reporting a turn's tool calls as they start and end, for a UI that shows them.

:meth:`bot.agent.Agent.run` takes ``on_tool`` beside ``on_text``: it is called with each
tool call when it starts and when it ends, well or not.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import StrEnum

from bot.agent.callbacks import Callback
from bot.agent.context import TurnContext
from bot.agent.messages import ToolCall
from bot.agent.tools.result import ToolResult

__all__ = ["OnTool", "ReportToolCalls", "ToolStage"]


class ToolStage(StrEnum):
    STARTED = "started"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


OnTool = Callable[[ToolCall, ToolStage], Awaitable[None]]


class ReportToolCalls(Callback):
    """Passes the tool-call hooks of one run to ``on_tool``."""

    def __init__(self, on_tool: OnTool) -> None:
        self._on_tool = on_tool

    async def before_tool_call(self, call: ToolCall, context: TurnContext) -> None:
        await self._on_tool(call, ToolStage.STARTED)

    async def after_tool_call(self, result: ToolResult, context: TurnContext) -> None:
        stage = ToolStage.SUCCEEDED if result.error is None else ToolStage.FAILED
        await self._on_tool(result.call, stage)
