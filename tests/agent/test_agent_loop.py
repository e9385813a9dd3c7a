"""The loop through its public API: answers, streaming, tool round trips, bounds."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import BaseModel

from bot.agent import (
    EMPTY_REPLY_TEXT,
    NARROW_DOWN_TEXT,
    CompletionRequest,
    Message,
    ModelUnavailable,
    Role,
    Tool,
    TurnContext,
    tool,
)
from bot.agent.loop import EMPTY_REPLY_NUDGE
from tests.support.agent import (
    Collector,
    FunctionProvider,
    ScriptedProvider,
    ask,
    make_agent,
    reply,
    tool_call,
)


class EchoArgs(BaseModel):
    word: str


class Echoed(BaseModel):
    word: str


@tool(description="Echo a word back.")
async def echo(ctx: TurnContext, args: EchoArgs) -> Echoed:
    return Echoed(word=args.word)


async def test_plain_answer_prepends_instructions_and_leaves_the_input_alone(
    context: TurnContext,
) -> None:
    provider = ScriptedProvider(["Paris is the capital of France."])
    conversation = ask("Capital of France?")
    agent = make_agent(provider, instructions="Be brief.")

    result = await agent.run(conversation, context=context)

    assert result.text == "Paris is the capital of France."
    assert result.stop_reason == "answer"
    assert result.llm_calls == 1
    assert [m.role for m in provider.requests[0].messages] == [Role.SYSTEM, Role.USER]
    assert provider.requests[0].messages[0].content == "Be brief."
    assert [m.role for m in result.conversation.messages] == [
        Role.SYSTEM,
        Role.USER,
        Role.ASSISTANT,
    ]
    assert len(conversation.messages) == 1


async def test_instructions_come_first_and_are_not_doubled(context: TurnContext) -> None:
    provider = ScriptedProvider(["ok", "ok again"])
    agent = make_agent(provider, instructions="Be brief.")
    conversation = ask("hi")
    conversation.messages.insert(0, Message.system("Past experience: none."))

    first = await agent.run(conversation, context=context)
    first.conversation.append(Message.user("and?"))
    await agent.run(first.conversation, context=context)

    assert [m.content for m in provider.requests[0].messages[:2]] == [
        "Be brief.",
        "Past experience: none.",
    ]
    second = [m.content for m in provider.requests[1].messages if m.role is Role.SYSTEM]
    assert second == ["Be brief.", "Past experience: none."]


async def test_streaming_forwards_deltas_in_order(context: TurnContext) -> None:
    provider = ScriptedProvider(["Paris is the capital of France."])
    collected = Collector()

    agent = make_agent(provider, hold_back=0)

    result = await agent.run(ask("Capital?"), context=context, on_text=collected)

    assert provider.streamed_requests == 1
    assert collected.pieces[:3] == ["Paris ", "is ", "the "]
    assert collected.text == result.text == "Paris is the capital of France."


async def test_a_short_answer_is_held_back_then_shown_once(context: TurnContext) -> None:
    collected = Collector()

    result = await make_agent(ScriptedProvider(["Paris."])).run(
        ask("Capital?"), context=context, on_text=collected
    )

    assert collected.pieces == ["Paris."]
    assert result.text == "Paris."


class WaitArgs(BaseModel):
    name: str


def rendezvous_tool(both_started: asyncio.Event, started: list[str]) -> Tool:
    @tool(name="rendezvous", description="Waits until both calls are running.", timeout_seconds=2)
    async def rendezvous(ctx: TurnContext, args: WaitArgs) -> str:
        started.append(args.name)
        if len(started) == 2:
            both_started.set()
        await both_started.wait()
        return args.name

    return rendezvous


async def test_tool_calls_are_dispatched_concurrently_and_answered_in_call_order(
    context: TurnContext,
) -> None:
    rendezvous = rendezvous_tool(asyncio.Event(), [])
    first, second = tool_call("rendezvous", {"name": "a"}), tool_call("rendezvous", {"name": "b"})
    provider = ScriptedProvider([reply("", first, second), "Both done."])

    result = await make_agent(provider, tools=[rendezvous]).run(ask("go"), context=context)

    assert result.text == "Both done."
    assert result.tool_errors == []
    tool_messages = [m for m in provider.requests[1].messages if m.role is Role.TOOL]
    assert [m.tool_call_id for m in tool_messages] == [first.id, second.id]
    assert [m.content for m in tool_messages] == ["a", "b"]
    assert provider.requests[0].tools[0].name == "rendezvous"


async def test_a_short_preamble_to_tool_calls_is_never_shown(context: TurnContext) -> None:
    call = tool_call("echo", {"word": "hi"})
    provider = ScriptedProvider([reply("Let me check.", call), "The word is hi."])
    collected = Collector()

    result = await make_agent(provider, tools=[echo]).run(
        ask("word?"), context=context, on_text=collected
    )

    assert provider.streamed_requests == 2
    assert result.text == collected.text == "The word is hi."
    assert result.conversation.messages[-1].content == "The word is hi."
    tool_message = provider.requests[1].messages[-1]
    assert json.loads(tool_message.content) == {"word": "hi"}


async def test_a_long_preamble_already_shown_stays_and_the_answer_follows_it(
    context: TurnContext,
) -> None:
    call = tool_call("echo", {"word": "hi"})
    provider = ScriptedProvider([reply("Let me check that word.", call), "The word is hi."])
    collected = Collector()

    result = await make_agent(provider, tools=[echo], hold_back=5).run(
        ask("word?"), context=context, on_text=collected
    )

    assert collected.text == result.text == "Let me check that word.\n\nThe word is hi."
    assert result.conversation.messages[-1].content == "The word is hi."


async def test_empty_reply_is_nudged_then_answered(context: TurnContext) -> None:
    provider = ScriptedProvider(["", "  ", "Here you go."])

    result = await make_agent(provider, max_empty_retries=2).run(ask("hi"), context=context)

    assert result.text == "Here you go."
    assert result.llm_calls == 3
    nudges = [m for m in provider.requests[2].messages if m.content == EMPTY_REPLY_NUDGE]
    assert len(nudges) == 2


async def test_empty_replies_beyond_the_limit_end_with_an_apology(context: TurnContext) -> None:
    provider = ScriptedProvider(["", "", ""])
    collected = Collector()

    result = await make_agent(provider, max_empty_retries=2).run(
        ask("hi"), context=context, on_text=collected
    )

    assert result.stop_reason == "empty_reply"
    assert result.text == EMPTY_REPLY_TEXT
    assert collected.text == EMPTY_REPLY_TEXT
    assert result.llm_calls == 3
    assert provider.remaining == 0


async def test_iterations_are_bounded_and_the_person_is_asked_to_narrow_down(
    context: TurnContext,
) -> None:
    def always_a_tool(request: CompletionRequest) -> object:
        n = len(request.messages)
        return reply(f"Still digging ({n}).", tool_call("echo", {"word": f"w{n}"}))

    provider = FunctionProvider(always_a_tool)

    result = await make_agent(provider, tools=[echo], max_iterations=3).run(
        ask("x"), context=context
    )

    assert result.stop_reason == "max_iterations"
    assert result.llm_calls == 3
    assert result.text.endswith(NARROW_DOWN_TEXT)
    assert result.text.startswith("Still digging")


@pytest.mark.parametrize("streaming", [False, True])
async def test_model_unavailable_propagates(context: TurnContext, streaming: bool) -> None:
    provider = ScriptedProvider([ModelUnavailable("down")])
    collected = Collector() if streaming else None

    with pytest.raises(ModelUnavailable):
        await make_agent(provider).run(ask("hi"), context=context, on_text=collected)


async def test_token_usage_is_summed(context: TurnContext) -> None:
    call = tool_call("echo", {"word": "x"})
    first = reply("", call).model_copy(update={"input_tokens": 10, "output_tokens": 3})
    second = reply("done").model_copy(update={"input_tokens": 20, "output_tokens": 4})

    result = await make_agent(ScriptedProvider([first, second]), tools=[echo]).run(
        ask("x"), context=context
    )

    assert (result.input_tokens, result.output_tokens) == (30, 7)


_PADDING = " " * 80
WRITTEN_CALLS = [
    '{"name": "echo", "arguments": {"word": "hi"}}',
    f'```json\n{{\n  "name": "echo",{_PADDING}\n  "arguments": {{"word": "hi"}}{_PADDING}\n}}\n```',
    '<tool_call>\n{"name": "echo", "parameters": {"word": "hi"}}\n</tool_call>',
    '{"name": "echo", "arguments": "{\\"word\\": \\"hi\\"}"}',
]


@pytest.mark.parametrize("written", WRITTEN_CALLS)
async def test_a_tool_call_written_as_text_is_made_and_never_shown(
    context: TurnContext, written: str
) -> None:
    provider = ScriptedProvider([written, "The word is hi."])
    collected = Collector()

    result = await make_agent(provider, tools=[echo]).run(
        ask("word?"), context=context, on_text=collected
    )

    assert result.text == collected.text == "The word is hi."
    assert result.tool_errors == []
    asked = provider.requests[1].messages
    assert asked[-2].role is Role.ASSISTANT and asked[-2].content == ""
    assert [(c.name, json.loads(c.arguments)) for c in asked[-2].tool_calls] == [
        ("echo", {"word": "hi"})
    ]
    assert asked[-1].role is Role.TOOL
    assert asked[-1].tool_call_id == asked[-2].tool_calls[0].id
    assert json.loads(asked[-1].content) == {"word": "hi"}


@pytest.mark.parametrize(
    "answer",
    [
        '{"name": "weather", "arguments": {"city": "Paris"}}',
        'Call it like this: {"name": "echo", "arguments": {"word": "hi"}}',
        '{"name": "echo", "arguments": {"word": "hi"}, "note": "a config, not a call"}',
        '```json\n{"name": "echo", "arguments": {"word": "hi"\n```',
    ],
)
async def test_text_that_is_not_only_a_call_to_one_of_the_tools_is_the_answer(
    context: TurnContext, answer: str
) -> None:
    provider = ScriptedProvider([answer])
    collected = Collector()

    result = await make_agent(provider, tools=[echo]).run(
        ask("word?"), context=context, on_text=collected
    )

    assert result.text == collected.text == answer
    assert result.llm_calls == 1


async def test_an_answer_in_a_code_fence_is_still_shown_once(context: TurnContext) -> None:
    answer = "```bash\ngit stash list\n```\n" + "Then pick the entry you want. " * 8
    provider = ScriptedProvider([answer])
    collected = Collector()

    result = await make_agent(provider, tools=[echo]).run(
        ask("stash?"), context=context, on_text=collected
    )

    assert result.text == collected.text == answer
    assert collected.pieces == [answer]
