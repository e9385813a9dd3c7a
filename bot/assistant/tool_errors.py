"""Count each tool failure in the memory store, by class and tool (``python -m bot stats``)."""

from __future__ import annotations

from bot.agent.callbacks import Callback
from bot.agent.context import TurnContext
from bot.agent.tools.result import ToolResult
from memory import Counting

__all__ = ["CountToolErrors"]


class CountToolErrors(Callback):
    """Counts each failed tool call as ``tool_error:<class>:<tool>``."""

    def __init__(self, memory: Counting) -> None:
        self._memory = memory

    async def after_tool_call(self, result: ToolResult, context: TurnContext) -> None:
        if result.error is not None:
            await self._memory.count(result.error.counter)
