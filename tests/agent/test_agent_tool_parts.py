"""The tool machinery's parts: declaration, budgets, signatures and the loop memory."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from bot.agent import TurnContext, tool
from bot.agent.tools import RetryBudget, ToolError, call_signature
from bot.agent.tools.loop_detector import LoopDetector, LoopMemory, Verdict


class QueryArgs(BaseModel):
    q: str
    page: int = 1


class Answer(BaseModel):
    text: str


def test_the_decorator_derives_name_schema_and_output_model() -> None:
    @tool()
    async def search(ctx: TurnContext, args: QueryArgs) -> Answer | ToolError:
        """Search the wiki."""
        return Answer(text=args.q)

    assert (search.name, search.description) == ("search", "Search the wiki.")
    assert search.output_model is Answer
    assert search.definition.parameters["required"] == ["q"]
    assert search.definition.parameters["properties"]["page"]["default"] == 1


def test_a_tool_must_be_async_described_and_typed() -> None:
    def sync(ctx: TurnContext, args: QueryArgs) -> str:
        return ""

    async def undocumented(ctx: TurnContext, args: QueryArgs) -> str:
        return ""

    async def untyped(ctx: TurnContext, args: dict) -> str:
        return ""

    with pytest.raises(TypeError):
        tool(description="x")(sync)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        tool()(undocumented)
    with pytest.raises(TypeError):
        tool(description="x")(untyped)


def test_signatures_ignore_key_order_but_not_values() -> None:
    a = QueryArgs.model_validate({"q": "x", "page": 2})
    b = QueryArgs.model_validate({"page": 2, "q": "x"})

    assert call_signature("search", a) == call_signature("search", b)
    assert call_signature("search", a) != call_signature("search", QueryArgs(q="x"))
    assert call_signature("search", a) != call_signature("lookup", a)


def test_the_budget_counts_per_signature_and_kind() -> None:
    budget = RetryBudget(read_only=2, side_effects=1)

    assert [budget.spend("a", side_effects=False) for _ in range(3)] == [True, True, False]
    assert budget.spend("b", side_effects=False)
    assert [budget.spend("c", side_effects=True) for _ in range(2)] == [True, False]
    unlimited = RetryBudget(read_only=None, side_effects=None)
    assert all(unlimited.spend("a", side_effects=True) for _ in range(50))


def garbage(code: str = "bad") -> ToolError:
    return ToolError(error_class="semantic_garbage", code=code, detail="d", tool="t")


def test_the_detector_refuses_once_then_stops_and_forgets_on_success() -> None:
    memory = LoopMemory()
    detector = LoopDetector(memory, "thread")

    detector.record("sig", garbage())
    assert detector.check("sig").verdict is Verdict.REFUSE
    assert detector.check("sig").verdict is Verdict.STOP
    detector.record("sig", None)
    assert detector.check("sig").verdict is Verdict.ALLOW


def test_retryable_failures_are_not_remembered() -> None:
    memory = LoopMemory()
    LoopDetector(memory, "thread").record(
        "sig", ToolError(error_class="partial_data", code="timeout", detail="d")
    )

    assert len(memory) == 0


def test_the_loop_memory_is_bounded() -> None:
    memory = LoopMemory(max_threads=2, max_calls_per_thread=2)
    for thread in ("a", "b", "c"):
        for n in range(3):
            memory.remember(thread, f"sig{n}", garbage())

    assert len(memory) == 4
    assert memory.failure("a", "sig2") is None
    assert memory.failure("c", "sig0") is None
    assert memory.failure("c", "sig2") is not None


def test_old_failures_are_forgotten() -> None:
    now = [0.0]
    memory = LoopMemory(ttl_seconds=60, clock=lambda: now[0])
    memory.remember("thread", "sig", garbage())

    now[0] = 59.0
    assert memory.failure("thread", "sig") is not None
    now[0] = 61.0
    assert memory.failure("thread", "sig") is None
