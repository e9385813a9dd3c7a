"""Guarded tools through the loop: timeouts, argument feedback, budgets, loop detection."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from pydantic import BaseModel

from bot.agent import (
    CompletionRequest,
    LoopMemory,
    Role,
    ToolError,
    TurnContext,
    tool,
)
from bot.assistant import CountToolErrors
from tests.support.agent import (
    Collector,
    FakeMemory,
    FunctionProvider,
    ScriptedProvider,
    ask,
    make_agent,
    make_context,
    tool_call,
)
from tests.support.agent import reply as model_reply


class CityArgs(BaseModel):
    city: str


class Weather(BaseModel):
    city: str
    celsius: float


class Runs:
    """Counts how often each tool body actually ran."""

    def __init__(self) -> None:
        self.args: list[str] = []


def weather_tool(runs: Runs, *, side_effects: bool = False, payload: str | None = None):
    @tool(name="weather", description="Weather of a city.", side_effects=side_effects)
    async def weather(ctx: TurnContext, args: CityArgs) -> Weather | str:
        runs.args.append(args.city)
        if payload is not None:
            return payload
        return Weather(city=args.city, celsius=21.5)

    return weather


def tool_messages(request: CompletionRequest) -> list[str]:
    return [m.content for m in request.messages if m.role is Role.TOOL]


async def test_a_slow_tool_times_out_as_a_tool_error_and_the_turn_goes_on(
    context: TurnContext,
) -> None:
    never = asyncio.Event()

    @tool(name="slow", description="Never answers.", timeout_seconds=0.01)
    async def slow(ctx: TurnContext, args: CityArgs) -> str:
        await never.wait()
        return "unreachable"

    provider = ScriptedProvider(
        [model_reply("", tool_call("slow", {"city": "Oslo"})), "The lookup timed out."]
    )

    result = await make_agent(provider, tools=[slow]).run(ask("weather?"), context=context)

    assert result.stop_reason == "answer"
    assert [(e.code, e.error_class, e.tool) for e in result.tool_errors] == [
        ("timeout", "partial_data", "slow")
    ]
    assert json.loads(tool_messages(provider.requests[1])[0])["code"] == "timeout"


async def test_bad_arguments_get_feedback_then_the_corrected_call_runs(
    context: TurnContext, caplog: pytest.LogCaptureFixture
) -> None:
    runs = Runs()
    provider = ScriptedProvider(
        [
            model_reply("", tool_call("weather", '{"town": "Oslo"')),
            model_reply("", tool_call("weather", {"town": "Oslo"})),
            model_reply("", tool_call("weather", {"city": "Oslo"})),
            "21.5 °C in Oslo.",
        ]
    )

    with caplog.at_level(logging.DEBUG):
        result = await make_agent(provider, tools=[weather_tool(runs)]).run(
            ask("weather?"), context=context
        )

    assert result.text == "21.5 °C in Oslo."
    assert runs.args == ["Oslo"]
    assert result.tool_errors == []
    first, second = tool_messages(provider.requests[1])[0], tool_messages(provider.requests[2])[1]
    assert "not valid JSON" in first
    assert "`city`: Field required" in second
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_argument_feedback_is_bounded_then_the_turn_ends_plainly(
    context: TurnContext,
) -> None:
    runs = Runs()
    provider = FunctionProvider(lambda request: model_reply("", tool_call("weather", "not json")))

    result = await make_agent(provider, tools=[weather_tool(runs)], max_decode_feedback=2).run(
        ask("weather?"), context=context
    )

    assert result.llm_calls == 3
    assert result.stop_reason == "loop_detected"
    assert result.text.startswith("I couldn't call weather with valid arguments")
    assert runs.args == []


async def test_an_unknown_tool_gets_feedback_naming_the_real_ones(context: TurnContext) -> None:
    provider = ScriptedProvider([model_reply("", tool_call("wether", {"city": "Oslo"})), "Sorry."])

    await make_agent(provider, tools=[weather_tool(Runs())]).run(ask("weather?"), context=context)

    assert "Available tools: weather" in tool_messages(provider.requests[1])[0]


async def test_identical_read_only_calls_run_three_times_then_are_refused(
    context: TurnContext,
) -> None:
    runs = Runs()
    calls = [tool_call("weather", {"city": "Oslo"}) for _ in range(4)]
    provider = ScriptedProvider([model_reply("", *calls), "Done."])

    result = await make_agent(provider, tools=[weather_tool(runs)]).run(ask("?"), context=context)

    assert runs.args == ["Oslo"] * 3
    assert [e.code for e in result.tool_errors] == ["retry_budget_exceeded"]
    contents = tool_messages(provider.requests[1])
    assert json.loads(contents[3])["code"] == "retry_budget_exceeded"


async def test_a_call_with_side_effects_runs_once_per_turn(context: TurnContext) -> None:
    runs = Runs()
    provider = ScriptedProvider(
        [
            model_reply("", tool_call("weather", {"city": "Oslo"})),
            model_reply(
                "", tool_call("weather", {"city": "Oslo"}), tool_call("weather", {"city": "Rome"})
            ),
            "Done.",
        ]
    )

    result = await make_agent(provider, tools=[weather_tool(runs, side_effects=True)]).run(
        ask("?"), context=context
    )

    assert runs.args == ["Oslo", "Rome"]
    assert [e.code for e in result.tool_errors] == ["retry_budget_exceeded"]


async def test_a_tool_returning_raw_json_text_is_validated_against_its_output_model(
    context: TurnContext,
) -> None:
    good = weather_tool(Runs(), payload='{"city": "Oslo", "celsius": "21.5"}')
    provider = ScriptedProvider([model_reply("", tool_call("weather", {"city": "Oslo"})), "ok"])

    result = await make_agent(provider, tools=[good]).run(ask("?"), context=context)

    assert result.tool_errors == []
    assert json.loads(tool_messages(provider.requests[1])[0]) == {"city": "Oslo", "celsius": 21.5}


@pytest.mark.parametrize(
    ("payload", "code"),
    [('{"city": "Oslo", "celsius"', "invalid_json"), ('{"city": "Oslo"}', "schema_violation")],
)
async def test_malformed_output_is_a_schema_mismatch(
    context: TurnContext, payload: str, code: str
) -> None:
    broken = weather_tool(Runs(), payload=payload)
    provider = ScriptedProvider([model_reply("", tool_call("weather", {"city": "Oslo"})), "ok"])

    result = await make_agent(provider, tools=[broken]).run(ask("?"), context=context)

    [error] = result.tool_errors
    assert (error.error_class, error.code, error.tool) == ("schema_mismatch", code, "weather")
    sent = json.loads(tool_messages(provider.requests[1])[0])
    assert sent["code"] == code
    assert "Traceback" not in json.dumps(sent)


async def test_an_exception_becomes_a_tool_error_without_a_stack_trace(
    context: TurnContext,
) -> None:
    @tool(name="crash", description="Always fails.")
    async def crash(ctx: TurnContext, args: CityArgs) -> str:
        raise RuntimeError("secret internals at /srv/app.py line 3")

    provider = ScriptedProvider([model_reply("", tool_call("crash", {"city": "x"})), "Sorry."])

    result = await make_agent(provider, tools=[crash]).run(ask("?"), context=context)

    assert [e.code for e in result.tool_errors] == ["tool_failed"]
    content = tool_messages(provider.requests[1])[0]
    assert "RuntimeError" in content
    assert "secret internals" not in content and "Traceback" not in content


def freezing(weather: Weather) -> ToolError | None:
    if weather.celsius < -80:
        return ToolError(
            error_class="semantic_garbage",
            code="impossible_temperature",
            detail="Colder than anywhere on Earth.",
            hint="Check the city name.",
        )
    return None


def garbage_tool(runs: Runs):
    @tool(name="weather", description="Weather of a city.", validate_semantics=freezing)
    async def weather(ctx: TurnContext, args: CityArgs) -> Weather:
        runs.args.append(args.city)
        return Weather(city=args.city, celsius=-273.0)

    return weather


def insistent(request: CompletionRequest) -> object:
    return model_reply("Trying again.", tool_call("weather", {"city": "Oslo"}))


async def test_a_repeated_failed_call_is_refused_then_the_loop_stops_plainly(
    context: TurnContext,
) -> None:
    runs = Runs()
    collected = Collector()
    provider = FunctionProvider(insistent)

    result = await make_agent(provider, tools=[garbage_tool(runs)]).run(
        ask("weather?"), context=context, on_text=collected
    )

    assert runs.args == ["Oslo"]
    assert result.llm_calls == 3
    assert result.stop_reason == "loop_detected"
    assert result.text.startswith("I couldn't get usable data from weather")
    assert "".join(collected.pieces) == result.text
    assert [e.code for e in result.tool_errors] == [
        "impossible_temperature",
        "repeated_failed_call",
        "repeated_failed_call",
    ]
    assert result.conversation.messages[-1].content == result.text


async def test_the_loop_detector_remembers_failures_across_turns_of_a_thread() -> None:
    runs = Runs()
    agent = make_agent(
        FunctionProvider(insistent), tools=[garbage_tool(runs)], loop_memory=LoopMemory()
    )
    thread = make_context(thread_ts="1700000000.000100")

    await agent.run(ask("weather?"), context=thread)
    follow_up = await agent.run(ask("and now?"), context=thread)
    elsewhere = await agent.run(
        ask("weather?"), context=make_context(thread_ts="1700000099.000100")
    )

    assert runs.args == ["Oslo", "Oslo"]
    assert follow_up.llm_calls == 2
    assert follow_up.stop_reason == elsewhere.stop_reason == "loop_detected"
    assert elsewhere.llm_calls == 3


async def test_partial_data_is_retryable_within_the_budget(context: TurnContext) -> None:
    runs = Runs()

    def more_pages(weather: Weather) -> ToolError:
        return ToolError(
            error_class="partial_data", code="more_pages", detail="Page 1 of 2.", hint="page=2"
        )

    @tool(name="weather", description="Weather.", validate_semantics=more_pages)
    async def weather(ctx: TurnContext, args: CityArgs) -> Weather:
        runs.args.append(args.city)
        return Weather(city=args.city, celsius=1.0)

    calls = [model_reply("", tool_call("weather", {"city": "Oslo"})) for _ in range(3)]
    provider = ScriptedProvider([*calls, "Partial answer."])

    result = await make_agent(provider, tools=[weather]).run(ask("?"), context=context)

    assert result.text == "Partial answer."
    assert runs.args == ["Oslo"] * 3
    assert [e.code for e in result.tool_errors] == ["more_pages"] * 3


async def test_tool_errors_are_counted_in_memory_by_class_and_tool() -> None:
    memory = FakeMemory()
    broken = weather_tool(Runs(), payload="{")
    provider = ScriptedProvider([model_reply("", tool_call("weather", {"city": "Oslo"})), "ok"])

    await make_agent(provider, tools=[broken], callbacks=[CountToolErrors(memory)]).run(
        ask("?"), context=make_context(memory=memory)
    )

    assert memory.counters == {"tool_error:schema_mismatch:weather": 1}
