"""Hooks around the loop, each model call and each tool call.

Subclass :class:`Callback` and override what you need; every method is a no-op. A failing
hook stops the turn, except ``after_tool_call`` and ``on_evaluator_error``, which are
best-effort reporting: their errors are logged and ignored.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from bot.agent.context import TurnContext
from bot.agent.evaluation import EvaluatorError
from bot.agent.messages import Completion, CompletionRequest, Conversation, ToolCall
from bot.agent.tools.result import ToolResult

if TYPE_CHECKING:
    from bot.agent.result import AgentResult

__all__ = ["Callback", "CallbackChain"]

logger = logging.getLogger(__name__)


class Callback:
    async def before_loop(self, conversation: Conversation, context: TurnContext) -> None:
        """The conversation as the model will first see it (system message included)."""

    async def after_loop(self, result: AgentResult, context: TurnContext) -> None: ...

    async def before_llm_call(self, request: CompletionRequest, context: TurnContext) -> None:
        """May adjust the request in place."""

    async def after_llm_call(self, completion: Completion, context: TurnContext) -> None: ...

    async def before_tool_call(self, call: ToolCall, context: TurnContext) -> None: ...

    async def after_tool_call(self, result: ToolResult, context: TurnContext) -> None:
        """``result.error`` is set when the call failed (also in ``AgentResult.tool_errors``)."""

    async def on_evaluator_error(self, error: EvaluatorError, context: TurnContext) -> None: ...


class CallbackChain(Callback):
    """Calls each callback in order."""

    def __init__(self, callbacks: Iterable[Callback] = ()) -> None:
        self._callbacks = list(callbacks)

    async def before_loop(self, conversation: Conversation, context: TurnContext) -> None:
        await self._each("before_loop", conversation, context)

    async def after_loop(self, result: AgentResult, context: TurnContext) -> None:
        await self._each("after_loop", result, context)

    async def before_llm_call(self, request: CompletionRequest, context: TurnContext) -> None:
        await self._each("before_llm_call", request, context)

    async def after_llm_call(self, completion: Completion, context: TurnContext) -> None:
        await self._each("after_llm_call", completion, context)

    async def before_tool_call(self, call: ToolCall, context: TurnContext) -> None:
        await self._each("before_tool_call", call, context)

    async def after_tool_call(self, result: ToolResult, context: TurnContext) -> None:
        await self._each("after_tool_call", result, context, best_effort=True)

    async def on_evaluator_error(self, error: EvaluatorError, context: TurnContext) -> None:
        await self._each("on_evaluator_error", error, context, best_effort=True)

    async def _each(self, hook: str, *args: object, best_effort: bool = False) -> None:
        """Call ``hook`` of every callback; a best-effort hook's failure is only logged."""
        for callback in self._callbacks:
            try:
                await getattr(callback, hook)(*args)
            except Exception:
                if not best_effort:
                    raise
                logger.exception("%s hook of %s failed", hook, type(callback).__name__)
