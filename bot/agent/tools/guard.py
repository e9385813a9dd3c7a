"""The guard around every tool call: validate, classify, never raise.

A failure becomes a :class:`ToolError` the model can act on (``schema_mismatch``,
``partial_data``, ``semantic_garbage``), never an exception that kills the turn and never a
stack trace. The guard also applies the per-turn retry budget and the loop detector.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from bot.agent.context import TurnContext
from bot.agent.decode import describe_validation_error
from bot.agent.tools.budget import RetryBudget, call_signature
from bot.agent.tools.errors import ToolError
from bot.agent.tools.loop_detector import LoopDetector, LoopMemory, Verdict
from bot.agent.tools.registry import Tool

__all__ = [
    "Admission",
    "GuardPolicy",
    "GuardedOutput",
    "ToolGuard",
    "check_output",
    "run_tool",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class GuardPolicy:
    """How strictly tool calls are guarded. ``None`` budgets are unlimited."""

    validate_output: bool = True
    read_only_budget: int | None = 3
    side_effect_budget: int | None = 1
    detect_loops: bool = True


@dataclass(frozen=True, slots=True)
class GuardedOutput:
    """What the model is shown for one call, and the error it represents, if any."""

    content: str
    error: ToolError | None = None

    @classmethod
    def failed(cls, error: ToolError) -> GuardedOutput:
        return cls(content=error.model_dump_json(exclude_none=True), error=error)


def _schema_mismatch(tool: Tool, code: str, detail: str) -> GuardedOutput:
    return GuardedOutput.failed(
        ToolError(
            error_class="schema_mismatch",
            code=code,
            detail=detail,
            hint="Don't retry with the same arguments: the tool's output is broken. "
            "Answer with what you have or tell the person what couldn't be fetched.",
            tool=tool.name,
        )
    )


def _to_text(output: Any) -> str:
    if isinstance(output, BaseModel):
        return output.model_dump_json()
    if isinstance(output, str):
        return output
    return json.dumps(output, default=str, ensure_ascii=False)


def check_output(tool: Tool, output: Any) -> GuardedOutput:
    """Validate a tool's output against its output model and semantic check.

    A tool returning raw JSON text is parsed and validated like a returned model."""
    if isinstance(output, ToolError):
        return GuardedOutput.failed(output.model_copy(update={"tool": tool.name}))
    model = tool.output_model
    if model is None:
        value: Any = output
    else:
        if isinstance(output, str):
            try:
                output = json.loads(output)
            except json.JSONDecodeError as exc:
                return _schema_mismatch(
                    tool, "invalid_json", f"Tool output isn't valid JSON: {exc.msg} at {exc.pos}."
                )
        if isinstance(output, BaseModel) and not isinstance(output, model):
            output = output.model_dump()
        try:
            value = model.model_validate(output)
        except ValidationError as exc:
            return _schema_mismatch(tool, "schema_violation", describe_validation_error(exc))
    if tool.validate_semantics is not None and isinstance(value, BaseModel):
        problem = tool.validate_semantics(value)
        if problem is not None:
            return GuardedOutput.failed(problem.model_copy(update={"tool": tool.name}))
    return GuardedOutput(content=_to_text(value))


async def run_tool(
    tool: Tool, context: TurnContext, args: BaseModel, *, validate_output: bool = True
) -> GuardedOutput:
    """Run one call within the tool's timeout; every failure becomes a ToolError."""
    try:
        async with asyncio.timeout(tool.timeout_seconds):
            output = await tool(context, args)
        if validate_output:
            return check_output(tool, output)
        if isinstance(output, ToolError):
            return GuardedOutput.failed(output.model_copy(update={"tool": tool.name}))
        return GuardedOutput(content=_to_text(output))
    except TimeoutError:
        detail = f"The tool didn't answer within {tool.timeout_seconds:g} seconds."
        hint = "Try once more with a narrower request, or answer without it."
        code = "timeout"
    except Exception as exc:
        logger.warning("tool %s raised %s", tool.name, type(exc).__name__, exc_info=True)
        detail = f"The tool failed unexpectedly ({type(exc).__name__})."
        hint = "You may retry once; otherwise answer without this tool."
        code = "tool_failed"
    return GuardedOutput.failed(
        ToolError(error_class="partial_data", code=code, detail=detail, hint=hint, tool=tool.name)
    )


@dataclass(frozen=True, slots=True)
class Admission:
    """Whether a decoded call may run; ``error`` explains a refusal or a stop."""

    kind: Verdict
    """ALLOW: run it; REFUSE: tell the model why not; STOP: end the turn."""
    signature: str
    error: ToolError | None = None


class ToolGuard:
    """One turn's guard: admission (loop detector, retry budget), execution, bookkeeping."""

    def __init__(self, policy: GuardPolicy, memory: LoopMemory, context: TurnContext) -> None:
        self._policy = policy
        self._context = context
        self._budget = RetryBudget(
            read_only=policy.read_only_budget, side_effects=policy.side_effect_budget
        )
        self._loops = LoopDetector(memory, context.thread) if policy.detect_loops else None

    def admit(self, tool: Tool, args: BaseModel) -> Admission:
        signature = call_signature(tool.name, args)
        if self._loops is not None:
            verdict = self._loops.check(signature)
            if verdict.previous is not None:
                return Admission(verdict.verdict, signature, _repeated(tool, verdict.previous))
        if not self._budget.spend(signature, side_effects=tool.side_effects):
            return Admission(Verdict.REFUSE, signature, _over_budget(tool))
        return Admission(Verdict.ALLOW, signature)

    async def run(self, tool: Tool, args: BaseModel) -> GuardedOutput:
        return await run_tool(
            tool, self._context, args, validate_output=self._policy.validate_output
        )

    def record(self, signature: str, error: ToolError | None) -> None:
        if self._loops is not None:
            self._loops.record(signature, error)


def _repeated(tool: Tool, previous: ToolError) -> ToolError:
    return ToolError(
        error_class=previous.error_class,
        code="repeated_failed_call",
        detail=f"This exact call already failed: {previous.detail}",
        hint="Don't repeat it. Use different arguments or another tool, or tell the person "
        "plainly what couldn't be fetched.",
        tool=tool.name,
    )


def _over_budget(tool: Tool) -> ToolError:
    return ToolError(
        error_class="schema_mismatch",
        code="retry_budget_exceeded",
        detail="This exact call has already run as many times as allowed this turn.",
        hint="Don't call it again with these arguments; answer with what you have.",
        tool=tool.name,
    )
