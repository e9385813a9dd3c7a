"""Callbacks fire in order around the loop, each model call and each tool call."""

from __future__ import annotations

from pydantic import BaseModel

from bot.agent import (
    Callback,
    ToolCall,
    ToolResult,
    ToolStage,
    TurnContext,
    tool,
)
from tests.support.agent import Recorder, ScriptedProvider, ask, make_agent, reply, tool_call


class NoArgs(BaseModel):
    pass


@tool(name="now", description="The time.")
async def now(ctx: TurnContext, args: NoArgs) -> str:
    return "09:30"


class BrokenAfterTool(Callback):
    async def after_tool_call(self, result: ToolResult, context: TurnContext) -> None:
        raise RuntimeError("metrics backend down")


async def test_hooks_fire_in_order(context: TurnContext) -> None:
    recorder = Recorder()
    provider = ScriptedProvider([reply("", tool_call("now"), tool_call("nope")), "It is 09:30."])

    await make_agent(provider, tools=[now], instructions="sys", callbacks=[recorder]).run(
        ask("time?"), context=context
    )

    events = recorder.events
    tool_events = events[3:7]
    assert events[:3] + events[7:] == [
        ("before_loop", 2),
        ("before_llm_call", 2),
        ("after_llm_call", 2),
        ("before_llm_call", 5),
        ("after_llm_call", 0),
        ("after_loop", "answer"),
    ]
    for name in ("now", "nope"):
        before = tool_events.index(("before_tool_call", name))
        after = tool_events.index(("after_tool_call", name, None))
        assert before < after


async def test_a_failing_after_tool_hook_is_logged_not_fatal(context: TurnContext) -> None:
    recorder = Recorder()
    provider = ScriptedProvider([reply("", tool_call("now")), "It is 09:30."])

    result = await make_agent(provider, tools=[now], callbacks=[BrokenAfterTool(), recorder]).run(
        ask("time?"), context=context
    )

    assert result.text == "It is 09:30."
    assert ("after_tool_call", "now", None) in recorder.events


@tool(name="clock_sync", description="Sync the clock.")
async def clock_sync(ctx: TurnContext, args: NoArgs) -> str:
    raise RuntimeError("the time server is down")


async def test_on_tool_reports_each_call_starting_then_ending(context: TurnContext) -> None:
    provider = ScriptedProvider(
        [reply("", tool_call("now"), tool_call("clock_sync")), "It is 09:30."]
    )
    seen: list[tuple[str, ToolStage]] = []

    async def on_tool(call: ToolCall, stage: ToolStage) -> None:
        seen.append((call.name, stage))

    agent = make_agent(provider, tools=[now, clock_sync])
    result = await agent.run(ask("time?"), context=context, on_tool=on_tool)

    assert result.text == "It is 09:30."
    assert sorted(seen) == sorted(
        [
            ("now", ToolStage.STARTED),
            ("now", ToolStage.SUCCEEDED),
            ("clock_sync", ToolStage.STARTED),
            ("clock_sync", ToolStage.FAILED),
        ]
    )
    for name in ("now", "clock_sync"):
        stages = [stage for tool_name, stage in seen if tool_name == name]
        assert stages[0] is ToolStage.STARTED
