"""Running one model reply's tool calls: decode, admit, execute concurrently, report.

Calls are planned one by one in the model's order (so budgets and loop detection are
deterministic), then the admitted ones run concurrently; results keep the call order.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import KW_ONLY, dataclass, field

from pydantic import BaseModel

from bot.agent.callbacks import Callback
from bot.agent.context import TurnContext
from bot.agent.decode import DecodeResult, decode_arguments
from bot.agent.messages import ToolCall
from bot.agent.tools.errors import ToolError
from bot.agent.tools.guard import GuardedOutput, ToolGuard
from bot.agent.tools.loop_detector import Verdict
from bot.agent.tools.registry import Tool, ToolRegistry
from bot.agent.tools.result import ToolResult

__all__ = ["CallOutcome", "ToolDispatcher"]

logger = logging.getLogger(__name__)

_PLAIN_REASON = {
    "schema_mismatch": "it kept returning data I can't read",
    "partial_data": "it only returned part of what was needed",
    "semantic_garbage": "what it returned didn't make sense for this question",
}
_SKIPPED = '{"skipped": "the turn ended before this call ran"}'


@dataclass(frozen=True, slots=True)
class CallOutcome:
    call: ToolCall
    content: str
    error: ToolError | None = None
    stop_text: str | None = None
    """Set when this call ends the turn: what to tell the person instead of an answer."""

    @property
    def result(self) -> ToolResult:
        return ToolResult(call=self.call, content=self.content, error=self.error)


@dataclass(frozen=True, slots=True)
class _Plan:
    outcome: CallOutcome | None = None
    """Decided without running the tool (feedback, refusal, stop)."""
    tool: Tool | None = None
    args: BaseModel | None = None
    signature: str = ""


@dataclass(eq=False)
class ToolDispatcher:
    """One turn's tool calls. Decode feedback is bounded per tool by ``max_decode_feedback``."""

    registry: ToolRegistry
    guard: ToolGuard
    callbacks: Callback
    context: TurnContext
    _: KW_ONLY
    max_decode_feedback: int
    _feedback_given: Counter[str] = field(default_factory=Counter, init=False)

    async def dispatch(self, calls: list[ToolCall]) -> list[CallOutcome]:
        plans = [self._plan(call) for call in calls]
        stopping = any(plan.outcome and plan.outcome.stop_text for plan in plans)
        return list(
            await asyncio.gather(
                *(
                    self._settle(call, plan, stopping)
                    for call, plan in zip(calls, plans, strict=True)
                )
            )
        )

    def _plan(self, call: ToolCall) -> _Plan:
        tool = self.registry.get(call.name)
        if tool is None:
            names = ", ".join(self.registry.names) or "none"
            decoded: DecodeResult[BaseModel] = DecodeResult.feedback(
                f"There is no tool named {call.name!r}. Available tools: {names}."
            )
        else:
            decoded = decode_arguments(call.arguments, tool.input_model)
        if decoded.is_feedback:
            return _Plan(outcome=self._feedback(call, decoded.message))
        if decoded.is_error or tool is None or decoded.value is None:
            logger.warning("arguments of %s could not be decoded: %r", call.name, decoded.err)
            return _Plan(outcome=CallOutcome(call, _SKIPPED, stop_text=_cannot_call(call.name)))
        admission = self.guard.admit(tool, decoded.value)
        if admission.kind is Verdict.ALLOW:
            return _Plan(tool=tool, args=decoded.value, signature=admission.signature)
        assert admission.error is not None
        error = admission.error
        content = GuardedOutput.failed(error).content
        if admission.kind is Verdict.STOP:
            return _Plan(outcome=CallOutcome(call, content, error, stop_text=_gave_up(error)))
        return _Plan(outcome=CallOutcome(call, content, error))

    def _feedback(self, call: ToolCall, message: str) -> CallOutcome:
        if self._feedback_given[call.name] >= self.max_decode_feedback:
            logger.info(
                "giving up on %s after %d argument corrections",
                call.name,
                self._feedback_given[call.name],
            )
            return CallOutcome(call, message, stop_text=_cannot_call(call.name))
        self._feedback_given[call.name] += 1
        logger.debug("argument feedback for %s: %s", call.name, message)
        return CallOutcome(call, message)

    async def _settle(self, call: ToolCall, plan: _Plan, stopping: bool) -> CallOutcome:
        await self.callbacks.before_tool_call(call, self.context)
        if plan.outcome is not None:
            outcome = plan.outcome
        elif stopping or plan.tool is None or plan.args is None:
            outcome = CallOutcome(call, _SKIPPED)
        else:
            output = await self.guard.run(plan.tool, plan.args)
            self.guard.record(plan.signature, output.error)
            outcome = CallOutcome(call, output.content, output.error)
        if outcome.error is not None:
            logger.info("tool %s: %s/%s", call.name, outcome.error.error_class, outcome.error.code)
        await self.callbacks.after_tool_call(outcome.result, self.context)
        return outcome


def _cannot_call(tool: str) -> str:
    return (
        f"I couldn't call {tool} with valid arguments, so I can't answer this; "
        "please rephrase your question."
    )


def _gave_up(error: ToolError) -> str:
    reason = _PLAIN_REASON[error.error_class]
    return (
        f"I couldn't get usable data from {error.tool}: {reason}. "
        "Please try again later or ask in a different way."
    )
