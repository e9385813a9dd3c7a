"""stream() against the fake server over real HTTP: text pieces, tool-call fragments, breaks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from bot.agent.messages import Completion, CompletionRequest, Delta, Message, ToolCall
from bot.agent.provider import ModelUnavailable
from bot.llm import OpenAICompatibleProvider, RetryPolicy
from bot.simulator import FakeLLMServer, ScriptedReply

QUESTION = CompletionRequest(messages=[Message.user("how do I reset my password")])


async def collect(provider: OpenAICompatibleProvider) -> list[Delta]:
    return [delta async for delta in provider.stream(QUESTION)]


def final_of(deltas: list[Delta]) -> Completion:
    assert all(delta.final is None for delta in deltas[:-1])
    final = deltas[-1].final
    assert final is not None
    return final


async def test_stream_yields_text_in_several_pieces_then_the_whole_completion(
    provider: OpenAICompatibleProvider,
) -> None:
    deltas = await collect(provider)

    pieces = [delta.content for delta in deltas if delta.final is None]
    assert len(pieces) > 1
    assert "".join(pieces) == "Answer: how do I reset my password"
    final = final_of(deltas)
    assert final.content == "Answer: how do I reset my password"
    assert final.input_tokens == 6
    assert final.output_tokens == 7


async def test_stream_assembles_tool_calls_from_fragments(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    calls = [
        ToolCall(
            id="call_a", name="search_docs", arguments=json.dumps({"query": "reset password"})
        ),
        ToolCall(id="call_b", name="user_info", arguments=json.dumps({"user_id": "U123"})),
    ]
    fake_llm.script(ScriptedReply.calls(*calls, text="Let me look.", piece_size=2))

    deltas = await collect(provider)

    final = final_of(deltas)
    assert final.tool_calls == calls
    assert final.content == "Let me look."
    assert "".join(delta.content for delta in deltas) == "Let me look."


async def test_stream_of_an_empty_reply_yields_only_an_empty_final(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(ScriptedReply.empty())

    deltas = await collect(provider)

    assert len(deltas) == 1
    final = final_of(deltas)
    assert (final.content, final.tool_calls) == ("", [])


async def test_stream_asks_for_usage_and_streaming(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    await collect(provider)

    assert fake_llm.requests[0]["stream"] is True
    assert fake_llm.requests[0]["stream_options"] == {"include_usage": True}


async def test_a_stream_broken_after_its_first_bytes_is_not_retried(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(ScriptedReply.answer("a long answer that never ends", break_after_chunks=3))
    received: list[str] = []

    with pytest.raises(ModelUnavailable):
        async for delta in provider.stream(QUESTION):
            received.append(delta.content)

    assert "".join(received) == "a long"  # role chunk, then two pieces of three characters
    assert len(fake_llm.requests) == 1


async def test_a_failure_before_the_stream_starts_is_retried(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(ScriptedReply.error(503), ScriptedReply.answer("back again"))

    deltas = await collect(provider)

    assert final_of(deltas).content == "back again"
    assert len(fake_llm.requests) == 2


async def test_stopping_early_releases_the_connection(
    fake_llm: FakeLLMServer, quick_retries: RetryPolicy
) -> None:
    fake_llm.script(ScriptedReply.answer("one two three four five six"))
    single_connection = httpx.AsyncClient(
        base_url=fake_llm.base_url,
        limits=httpx.Limits(max_connections=1),
        timeout=httpx.Timeout(5.0, pool=0.5),
    )
    async with single_connection:
        provider = OpenAICompatibleProvider(single_connection, model="m", retry=quick_retries)
        stream = provider.stream(QUESTION)
        first = await anext(stream)
        await stream.aclose()

        # Had the abandoned response kept the only connection, this would time out.
        completion = await provider.complete(QUESTION)

    assert first.content == "one"
    assert completion.content == "Answer: how do I reset my password"


async def test_streamed_calls_reuse_one_connection(
    provider: OpenAICompatibleProvider, fake_llm: FakeLLMServer
) -> None:
    """Against a hosted model every new connection is a TLS handshake."""
    for _ in range(3):
        final_of(await collect(provider))

    assert len(fake_llm.client_ports) == 3
    assert len(set(fake_llm.client_ports)) == 1


async def test_past_the_limit_a_request_waits_for_a_slot_which_a_stream_holds_to_its_end(
    fake_llm: FakeLLMServer, client: httpx.AsyncClient
) -> None:
    measured: list[int] = []
    in_flight = 0

    @contextmanager
    def measure() -> Iterator[None]:
        nonlocal in_flight
        in_flight += 1
        measured.append(in_flight)
        try:
            yield
        finally:
            in_flight -= 1

    fake_llm.script(*[ScriptedReply.answer("a slow answer", delay_seconds=0.05)] * 4)
    provider = OpenAICompatibleProvider(client, model="m", limit=2, measure=measure)

    await asyncio.gather(
        collect(provider), collect(provider), provider.complete(QUESTION), collect(provider)
    )

    assert len(measured) == 4, "every request is measured"
    assert max(measured) == 2
