"""Evaluators check a draft answer before it is sent.

A negative verdict is normal feedback: the loop runs another iteration with it. An
evaluator that fails to run is an :class:`EvaluatorError`, reported and otherwise ignored:
it never counts as a negative verdict, so the draft stands.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, Field

from bot.agent.context import TurnContext

__all__ = [
    "REWRITE_CLOSING",
    "REWRITE_REQUEST",
    "EvaluationDetails",
    "EvaluationResult",
    "Evaluator",
    "EvaluatorError",
    "SelectiveEvaluator",
    "evaluate_draft",
    "evaluation_feedback",
    "is_active",
]

logger = logging.getLogger(__name__)

ContextT = TypeVar("ContextT", bound=TurnContext, contravariant=True)


class EvaluationDetails(BaseModel):
    violations: list[str] = Field(default_factory=list)
    suggestions: list[str] = Field(default_factory=list)


class EvaluationResult(BaseModel):
    success: bool
    feedback: str = ""
    details: EvaluationDetails = Field(default_factory=EvaluationDetails)
    fallback: str | None = None
    """What to send instead of the draft if no draft of the turn does better than this one
    (None: the least faulty draft is sent)."""

    @classmethod
    def passed(cls) -> EvaluationResult:
        return cls(success=True)


@runtime_checkable
class Evaluator(Protocol[ContextT]):
    """Checks a draft; an application's evaluator names the context it needs."""

    async def evaluate(self, draft: str, context: ContextT) -> EvaluationResult: ...


@runtime_checkable
class SelectiveEvaluator(Evaluator[ContextT], Protocol[ContextT]):
    """An evaluator that can tell in advance whether it has anything to check this turn.

    While no evaluator is active, the loop streams drafts straight to the person."""

    def applies(self, context: ContextT) -> bool: ...


class EvaluatorError(Exception):
    """An evaluator failed to run (not a negative verdict)."""

    def __init__(self, evaluator: str, cause: BaseException) -> None:
        super().__init__(f"evaluator {evaluator} failed: {type(cause).__name__}")
        self.evaluator = evaluator
        self.cause = cause


OnEvaluatorError = Callable[[EvaluatorError], Awaitable[None]]


def _name(evaluator: Evaluator[Any]) -> str:
    return type(evaluator).__name__


async def is_active(
    evaluator: Evaluator[Any], context: TurnContext, on_error: OnEvaluatorError
) -> bool:
    """Whether the evaluator will check this turn; one that can't tell is left out."""
    if not isinstance(evaluator, SelectiveEvaluator):
        return True
    try:
        return evaluator.applies(context)
    except Exception as exc:
        await _report(EvaluatorError(_name(evaluator), exc), on_error)
        return False


async def evaluate_draft(
    evaluators: Sequence[Evaluator[Any]],
    draft: str,
    context: TurnContext,
    on_error: OnEvaluatorError,
) -> list[EvaluationResult]:
    """The negative verdicts on a draft, in evaluator order (empty: the draft passes)."""
    rejections = []
    for evaluator in evaluators:
        try:
            result = await evaluator.evaluate(draft, context)
        except Exception as exc:
            await _report(EvaluatorError(_name(evaluator), exc), on_error)
            continue
        if not result.success:
            rejections.append(result)
    return rejections


async def _report(error: EvaluatorError, on_error: OnEvaluatorError) -> None:
    logger.warning("%s", error, exc_info=error.cause)
    await on_error(error)


REWRITE_REQUEST = "Rewrite your answer before it is sent."
REWRITE_CLOSING = "Reply with only the new answer, written for the person."


def evaluation_feedback(rejections: Sequence[EvaluationResult]) -> str:
    """The user message that sends a rejected draft back to the model: each evaluator's
    feedback and suggestions, as plain sentences. The violations are not sent: they name
    what an evaluator measured (and models quoted such labelled lists back to the person);
    they count how faulty a draft is (see :mod:`bot.agent.loop`)."""
    lines = [REWRITE_REQUEST]
    for result in rejections:
        if result.feedback:
            lines.append(result.feedback)
        lines.extend(result.details.suggestions)
    lines.append(REWRITE_CLOSING)
    return "\n".join(lines)
