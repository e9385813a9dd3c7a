"""The fake server itself, as any OpenAI client would see it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from bot.agent.messages import ToolCall
from bot.simulator import FakeLLMServer, ScriptedReply

CHAT = {"model": "m", "messages": [{"role": "user", "content": "ping"}]}


@pytest.fixture
async def http(fake_llm: FakeLLMServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=fake_llm.base_url) as client:
        yield client


async def sse_payloads(response: httpx.Response) -> list[str]:
    return [line.removeprefix("data: ") async for line in response.aiter_lines() if line]


async def test_it_listens_on_loopback_only(fake_llm: FakeLLMServer) -> None:
    assert fake_llm.base_url.startswith("http://127.0.0.1:")
    assert fake_llm.base_url.endswith("/v1")


async def test_models_lists_the_configured_model(http: httpx.AsyncClient) -> None:
    response = await http.get("models")

    assert response.json()["data"][0]["id"] == "fake-model"


async def test_a_plain_completion_has_openai_fields(http: httpx.AsyncClient) -> None:
    body = (await http.post("chat/completions", json=CHAT)).json()

    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "Answer: ping",
        "refusal": None,
    }
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"] == {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}


async def test_a_stream_is_chunks_then_usage_then_done(
    fake_llm: FakeLLMServer, http: httpx.AsyncClient
) -> None:
    call = ToolCall(id="call_1", name="lookup", arguments='{"id": 42}')
    fake_llm.script(ScriptedReply.calls(call, text="ok", piece_size=4))
    streamed = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}

    async with http.stream("POST", "chat/completions", json=streamed) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        payloads = await sse_payloads(response)

    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(payload) for payload in payloads[:-1]]
    assert {chunk["object"] for chunk in chunks} == {"chat.completion.chunk"}
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["completion_tokens"] > 0
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    fragments = [
        fragment
        for chunk in chunks[:-1]
        for fragment in chunk["choices"][0]["delta"].get("tool_calls", [])
    ]
    assert fragments[0] == {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "lookup", "arguments": ""},
    }
    assert len(fragments) > 2
    assert "".join(f["function"]["arguments"] for f in fragments) == '{"id": 42}'


async def test_every_chat_request_body_is_recorded(
    fake_llm: FakeLLMServer, http: httpx.AsyncClient
) -> None:
    await http.post("chat/completions", json=CHAT)
    await http.post("chat/completions", json={**CHAT, "temperature": 0.5})

    assert fake_llm.requests == [CHAT, {**CHAT, "temperature": 0.5}]


async def test_down_answers_503_until_it_is_up_again(
    fake_llm: FakeLLMServer, http: httpx.AsyncClient
) -> None:
    fake_llm.down = True
    while_down = await http.post("chat/completions", json=CHAT)
    fake_llm.down = False
    after = await http.post("chat/completions", json=CHAT)

    assert while_down.status_code == 503
    assert while_down.json()["error"]["type"] == "server_error"
    assert after.status_code == 200


async def test_scripted_errors_carry_retry_after(
    fake_llm: FakeLLMServer, http: httpx.AsyncClient
) -> None:
    fake_llm.script(ScriptedReply.error(429, retry_after="2"))

    response = await http.post("chat/completions", json=CHAT)

    assert response.status_code == 429
    assert response.headers["Retry-After"] == "2"


@pytest.mark.parametrize(
    "body",
    [
        {"messages": [{"role": "user", "content": "x"}]},
        {"model": "m", "messages": []},
        {**CHAT, "tools": []},
        {**CHAT, "stream_options": {"include_usage": True}},
        {"model": "m", "messages": [{"role": "wizard", "content": "x"}]},
        {"model": "m", "messages": [{"role": "assistant", "content": None}]},
        {"model": "m", "messages": [{"role": "user", "content": "x", "name": "Ada Lovelace"}]},
        {**CHAT, "tools": [{"type": "function", "function": {"name": "look up"}}]},
    ],
)
async def test_requests_openai_would_refuse_get_a_400(
    http: httpx.AsyncClient, body: dict[str, object]
) -> None:
    response = await http.post("chat/completions", json=body)

    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"


async def test_wait_for_requests_returns_once_they_arrived(
    fake_llm: FakeLLMServer, http: httpx.AsyncClient
) -> None:
    sending = asyncio.create_task(http.post("chat/completions", json=CHAT))

    await fake_llm.wait_for_requests(1)

    assert fake_llm.requests == [CHAT]
    assert (await sending).status_code == 200


async def test_closing_the_server_cuts_a_slow_reply_short() -> None:
    """A handler waiting out a long delay must not hold up the end of a test."""
    async with FakeLLMServer() as slow, httpx.AsyncClient(base_url=slow.base_url) as client:
        slow.latency_seconds = 3600.0
        sending = asyncio.create_task(client.post("chat/completions", json=CHAT))
        await slow.wait_for_requests(1)

    with pytest.raises(httpx.HTTPError):
        await sending


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        (
            {
                "role": "system",
                "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}],
            },
            "messages[0].content[0].type must be 'text'",
        ),
        (
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": "data:text/html;base64,PGh0bWw+"}}
                ],
            },
            "messages[0].content[0].image_url.url must be an http(s) URL"
            " or a base64 image data URL",
        ),
        ({"role": "user", "content": []}, "messages[0].content must not be an empty array"),
    ],
)
async def test_content_parts_openai_would_refuse_get_a_400(
    http: httpx.AsyncClient, message: dict[str, object], problem: str
) -> None:
    response = await http.post("chat/completions", json={"model": "m", "messages": [message]})

    assert response.status_code == 400
    assert response.json()["error"]["message"] == problem
