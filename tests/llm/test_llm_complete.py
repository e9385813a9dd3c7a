"""complete() against the fake server over real HTTP."""

from __future__ import annotations

import json

from bot.agent.messages import CompletionRequest, Message, ToolCall
from bot.llm import OpenAICompatibleProvider
from bot.simulator import FakeLLMServer, ScriptedReply


def ask(text: str) -> CompletionRequest:
    return CompletionRequest(messages=[Message.system("Be brief."), Message.user(text)])


async def test_complete_returns_the_answer_and_usage(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    completion = await provider.complete(ask("where is the wiki"))

    assert completion.content == "Answer: where is the wiki"
    assert completion.tool_calls == []
    # The fake counts one token per word: "Be brief." + "where is the wiki", and the answer.
    assert (completion.input_tokens, completion.output_tokens) == (6, 5)
    assert len(fake_llm.requests) == 1


async def test_complete_returns_tool_calls_with_null_content(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    call = ToolCall(id="call_7", name="search_docs", arguments=json.dumps({"query": "wiki"}))
    fake_llm.script(ScriptedReply.calls(call))

    completion = await provider.complete(ask("where is the wiki"))

    assert completion.content == ""
    assert completion.tool_calls == [call]


async def test_empty_reply_is_an_empty_completion_not_an_error(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(ScriptedReply.empty())

    completion = await provider.complete(ask("anything"))

    assert completion.content == ""
    assert completion.tool_calls == []


async def test_scripted_replies_are_used_in_order_before_the_responder(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(ScriptedReply.answer("first"), ScriptedReply.answer("second"))

    answers = [(await provider.complete(ask("q"))).content for _ in range(3)]

    assert answers == ["first", "second", "Answer: q"]
    assert fake_llm.pending_replies == 0


async def test_a_custom_responder_sees_the_request(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.responder = lambda body: ScriptedReply.answer(f"{len(body['messages'])} messages")

    completion = await provider.complete(ask("q"))

    assert completion.content == "2 messages"
