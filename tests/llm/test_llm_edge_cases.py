"""What real servers do that the fake doesn't: odd bodies and streams, via httpx.MockTransport."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from bot.agent.messages import CompletionRequest, Delta, Message, ToolCall
from bot.agent.provider import ModelUnavailable
from bot.llm import OpenAICompatibleProvider, RetryPolicy

QUESTION = CompletionRequest(messages=[Message.user("hi")])


def provider_for(handler: Callable[[httpx.Request], httpx.Response]) -> OpenAICompatibleProvider:
    client = httpx.AsyncClient(
        base_url="http://llm.test/v1", transport=httpx.MockTransport(handler)
    )
    return OpenAICompatibleProvider(client, model="m", retry=RetryPolicy(base_delay=0.001))


def event_stream(*events: object) -> httpx.Response:
    body = "".join(
        f"data: {event if isinstance(event, str) else json.dumps(event)}\n\n" for event in events
    )
    return httpx.Response(200, text=body, headers={"Content-Type": "text/event-stream"})


def chunk(delta: dict[str, object], finish_reason: str | None = None) -> dict[str, object]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}


async def collect(provider: OpenAICompatibleProvider) -> list[Delta]:
    return [delta async for delta in provider.stream(QUESTION)]


async def test_requests_go_to_chat_completions_under_the_base_url() -> None:
    seen: list[httpx.URL] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        return httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]})

    await provider_for(handler).complete(QUESTION)

    assert str(seen[0]) == "http://llm.test/v1/chat/completions"


async def test_a_malformed_body_is_model_unavailable() -> None:
    provider = provider_for(lambda request: httpx.Response(200, json={"choices": []}))

    with pytest.raises(ModelUnavailable, match="malformed"):
        await provider.complete(QUESTION)


async def test_tool_arguments_sent_as_an_object_become_json_text() -> None:
    message = {
        "content": None,
        "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": {"a": 1}}}],
    }
    provider = provider_for(
        lambda request: httpx.Response(200, json={"choices": [{"message": message}]})
    )

    completion = await provider.complete(QUESTION)

    assert completion.tool_calls == [ToolCall(id="c1", name="f", arguments='{"a": 1}')]


async def test_retry_after_as_an_http_date_is_honoured() -> None:
    in_an_hour = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(429, headers={"Retry-After": in_an_hour})

    with pytest.raises(ModelUnavailable, match="budget"):
        await provider_for(handler).complete(QUESTION)

    assert len(requests) == 1


async def test_a_stream_without_done_but_with_a_finish_reason_is_complete() -> None:
    provider = provider_for(
        lambda request: event_stream(chunk({"content": "hello"}), chunk({}, "stop"))
    )

    deltas = await collect(provider)

    assert deltas[-1].final is not None
    assert deltas[-1].final.content == "hello"


async def test_a_stream_that_stops_mid_answer_is_model_unavailable() -> None:
    provider = provider_for(lambda request: event_stream(chunk({"content": "hel"})))

    with pytest.raises(ModelUnavailable, match="ended before"):
        await collect(provider)


async def test_an_error_object_in_the_stream_is_model_unavailable() -> None:
    provider = provider_for(
        lambda request: event_stream(
            chunk({"content": "hel"}), {"error": {"message": "overloaded"}}
        )
    )

    with pytest.raises(ModelUnavailable, match="failed mid-stream") as failed:
        await collect(provider)
    assert "overloaded" not in str(failed.value)  # a server's message may quote the prompt


async def test_a_garbled_chunk_is_model_unavailable() -> None:
    provider = provider_for(lambda request: event_stream("{not json", "[DONE]"))

    with pytest.raises(ModelUnavailable, match="malformed"):
        await collect(provider)


async def test_tool_call_fragments_without_index_are_told_apart_by_id() -> None:
    provider = provider_for(
        lambda request: event_stream(
            chunk({"tool_calls": [{"id": "c1", "function": {"name": "a", "arguments": '{"x"'}}]}),
            chunk({"tool_calls": [{"function": {"arguments": ": 1}"}}]}),
            chunk({"tool_calls": [{"id": "c2", "function": {"name": "b", "arguments": "{}"}}]}),
            chunk({}, "tool_calls"),
            "[DONE]",
        )
    )

    final = (await collect(provider))[-1].final

    assert final is not None
    assert final.tool_calls == [
        ToolCall(id="c1", name="a", arguments='{"x": 1}'),
        ToolCall(id="c2", name="b", arguments="{}"),
    ]


async def test_usage_from_the_last_chunk_reaches_the_final_completion() -> None:
    provider = provider_for(
        lambda request: event_stream(
            chunk({"content": "hi"}, "stop"),
            {"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 2}},
            "[DONE]",
        )
    )

    final = (await collect(provider))[-1].final

    assert final is not None
    assert (final.input_tokens, final.output_tokens) == (11, 2)
