"""The recording proxy between the bot and a real model: it records, and replays on request."""

from __future__ import annotations

import httpx

from bot.agent.messages import CompletionRequest, Message
from bot.llm import OpenAICompatibleProvider, build_llm_client
from bot.simulator import FakeLLMServer
from bot.simulator.recording_proxy import RecordingProxy, Replies

ASKED = CompletionRequest(messages=[Message.user("How do I flush the DNS cache?")])


async def ask_twice(proxy: RecordingProxy, *, stream: bool) -> list[str]:
    async with build_llm_client(proxy.base_url, "key", 5) as client:
        provider = OpenAICompatibleProvider(client, model="fake-model")
        texts = []
        for _ in range(2):
            if stream:
                deltas = [delta async for delta in provider.stream(ASKED)]
                texts.append("".join(delta.content for delta in deltas))
            else:
                texts.append((await provider.complete(ASKED)).content)
        return texts


async def test_without_replies_every_request_reaches_the_model(fake_llm: FakeLLMServer) -> None:
    async with RecordingProxy(fake_llm.base_url) as proxy:
        texts = await ask_twice(proxy, stream=False)

    assert len(fake_llm.requests) == 2
    assert len(proxy.requests) == 2
    assert texts[0] == texts[1] != ""


async def test_with_replies_a_repeated_request_is_answered_without_the_model(
    fake_llm: FakeLLMServer,
) -> None:
    replies: Replies = {}
    for stream in (False, True):
        async with RecordingProxy(fake_llm.base_url, replies=replies) as proxy:
            texts = await ask_twice(proxy, stream=stream)

        assert texts[0] == texts[1] != ""
        assert len(proxy.requests) == 2, "both are recorded"
    assert len(fake_llm.requests) == 2, "one streamed and one not: two different bodies"
    assert len(replies) == 2


async def test_a_failed_reply_is_not_kept(fake_llm: FakeLLMServer) -> None:
    replies: Replies = {}
    async with (
        RecordingProxy(fake_llm.base_url, replies=replies) as proxy,
        httpx.AsyncClient(base_url=proxy.base_url) as client,
    ):
        response = await client.post("chat/completions", content=b"not json")

    assert response.status_code >= 400
    assert replies == {}
