"""``wasted_llm_calls``: the model calls the tool guard saves when real tools fail for real.

The running bot (real HTTP server, Bolt, agent and tools, against the fake Slack Web API and
the fake OpenAI-compatible model) is asked three questions whose tool calls fail the way
Slack makes them fail:

* who a user is that Slack does not know (``lookup_user``: ``users.info`` answers
  ``user_not_found``);
* what was said in a thread Slack no longer has (``read_thread``: ``conversations.replies``
  answers ``thread_not_found``);
* the first question again, in the same thread, to a model that has not learned.

The model is stubborn, as small local models often are: while its last tool call failed, it
makes the same call again, until the agent's iteration limit stops it. The figure is the model
calls beyond the two each question needs (the tool call, then the answer) with the guard on;
the baseline is the same bot, model and questions with the guard off (no output validation,
no retry budget, no loop detection).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from benchmarks.harness import BotUnderTest, Figure, Target, bot_under_test
from bot.agent import GuardPolicy, ToolCall
from bot.simulator import ScriptedReply
from tests.support.harness import ALICE, dm_channel

__all__ = ["FIGURES", "MINIMUM_LLM_CALLS", "NAME", "UNGUARDED", "run", "wasted_calls"]

NAME = "wasted_llm_calls"
FIGURES = ("wasted_llm_calls",)

MINIMUM_LLM_CALLS = 2
"""A question that needs a tool: one call asking for it, one answering."""
UNGUARDED = GuardPolicy(
    validate_output=False, read_only_budget=None, side_effect_budget=None, detect_loops=False
)
"""The baseline: no validation, budget or loop detection (timeouts and crashes still caught)."""
UNKNOWN_USER = "U0NOBODY"
WHO = f"Who is <@{UNKNOWN_USER}>?"
DECIDED = "What did we decide in this thread?"
GONE_THREAD = "1700000000.000100"
"""The thread the questions are asked in, which Slack says does not exist."""

_call_ids = itertools.count(1)


def _tool_call(question: str) -> ToolCall:
    if question.endswith(WHO):
        name, arguments = "lookup_user", {"user_id": UNKNOWN_USER}
    else:
        name, arguments = "read_thread", {}
    return ToolCall(id=f"call_{next(_call_ids)}", name=name, arguments=json.dumps(arguments))


def stubborn_model(request: dict[str, Any]) -> ScriptedReply:
    """Calls the tool the question needs, and again while its last call failed."""
    messages = request["messages"]
    question = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    last = messages[-1]
    if last["role"] == "tool" and '"error_class"' not in last["content"]:
        return ScriptedReply.answer("Here is what I found.")
    return ScriptedReply.calls(_tool_call(question))


async def _ask(bench: BotUnderTest, question: str, answers: int) -> int:
    """Ask in the vanished thread of the DM; the model calls the question took."""
    before = len(bench.fake_llm.requests)
    await bench.slack.dm(question, user=ALICE, thread_ts=GONE_THREAD)
    await bench.slack.answers(answers, channel=dm_channel(ALICE), within=30.0)
    return len(bench.fake_llm.requests) - before


async def wasted_calls(guard: GuardPolicy | None) -> list[int]:
    """The model calls beyond the minimum of each question, with ``guard`` (None: the
    guard as the bot runs it)."""
    async with bot_under_test(guard=guard) as bench:
        bench.fake_llm.responder = stubborn_model
        bench.fake_slack.fail("conversations.replies", "thread_not_found", times=None)
        calls = [
            await _ask(bench, question, answers)
            for answers, question in enumerate((WHO, DECIDED, WHO), start=1)
        ]
    return [count - MINIMUM_LLM_CALLS for count in calls]


def run(quick: bool) -> list[Figure]:
    guarded = asyncio.run(wasted_calls(None))
    unguarded = asyncio.run(wasted_calls(UNGUARDED))
    return [
        Figure(
            name="wasted_llm_calls",
            value=sum(guarded),
            unit="calls",
            detail=f"unguarded baseline {sum(unguarded)} calls; per question (unknown user,"
            f" vanished thread, the unknown user again) {guarded} guarded,"
            f" {unguarded} unguarded; minimum {MINIMUM_LLM_CALLS} a question",
            target=Target.at_most(3),
        )
    ]
