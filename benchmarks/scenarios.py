"""Reproducible stories for benchmarks: what the guard saves (seed 001).

A tool always returns truncated JSON; a naive model retries it with the same arguments up
to :data:`NAIVE_PATIENCE` times before giving up. The minimum for such a turn is
:data:`MINIMUM_LLM_CALLS` (ask for the tool, then answer); everything above is waste.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from bot.agent.context import TurnContext
from bot.agent.loop import Agent
from bot.agent.messages import Completion, CompletionRequest, Conversation, Message, Role
from bot.agent.result import AgentResult
from bot.agent.tools.guard import GuardPolicy
from bot.agent.tools.registry import tool
from bot.testing.agent import FunctionProvider, make_context, reply, tool_call

__all__ = [
    "MINIMUM_LLM_CALLS",
    "NAIVE_PATIENCE",
    "malformed_tool_story",
    "search_orders",
    "wasted_llm_calls",
]

MINIMUM_LLM_CALLS = 2
NAIVE_PATIENCE = 17
UNGUARDED = GuardPolicy(
    validate_output=False, read_only_budget=None, side_effect_budget=None, detect_loops=False
)
"""The baseline: no validation, budget or loop detection (timeouts and crashes still caught)."""
TRUNCATED_PAYLOAD = '{"orders": [{"id": "O-1", "total"'


class OrderQuery(BaseModel):
    customer_id: str


class Order(BaseModel):
    id: str
    total_cents: int
    status: str


class OrderPage(BaseModel):
    orders: list[Order]
    page: int
    has_more: bool


@tool(description="Search a customer's orders.")
async def search_orders(ctx: TurnContext, args: OrderQuery) -> OrderPage | str:
    return TRUNCATED_PAYLOAD  # an upstream gateway cuts responses at a fixed size


def naive_model(request: CompletionRequest) -> Completion:
    """Calls search_orders until it has been tried NAIVE_PATIENCE times, ignoring hints."""
    attempts = sum(1 for message in request.messages if message.role is Role.TOOL)
    if attempts < NAIVE_PATIENCE:
        return reply(
            "Let me try that again.", tool_call("search_orders", {"customer_id": "C-9921"})
        )
    return reply("Sorry, I couldn't read the orders of C-9921.")


async def malformed_tool_story(*, guarded: bool) -> AgentResult:
    agent = Agent(
        FunctionProvider(naive_model),
        tools=[search_orders],
        instructions="You look up orders.",
        max_iterations=NAIVE_PATIENCE + 3,
        guard=GuardPolicy() if guarded else UNGUARDED,
    )
    question = Conversation(messages=[Message.user("What did customer C-9921 order?")])
    return await agent.run(question, context=make_context())


def wasted_llm_calls(guarded: bool) -> int:
    """LLM calls beyond the minimum for the malformed-tool turn (call outside an event loop)."""
    result = asyncio.run(malformed_tool_story(guarded=guarded))
    return result.llm_calls - MINIMUM_LLM_CALLS
