"""The request bodies the provider sends follow OpenAI's documented shapes exactly."""

from __future__ import annotations

import pytest

from bot.agent.messages import (
    CompletionRequest,
    Message,
    MessageImage,
    Role,
    ToolCall,
    ToolDefinition,
)
from bot.llm import ModelRequestRejected, OpenAICompatibleProvider
from bot.simulator import FakeLLMServer

SEARCH = ToolDefinition(
    name="search_docs",
    description="Search the team's documentation.",
    parameters={"type": "object", "properties": {"query": {"type": "string"}}},
)
CALL = ToolCall(id="call_1", name="search_docs", arguments='{"query": "vpn"}')

TOOL_ROUND_TRIP = [
    Message.system("You help with IT questions."),
    Message.user("how do I set up the vpn"),
    Message.assistant("", tool_calls=[CALL]),
    Message(role=Role.TOOL, tool_call_id="call_1", name="search_docs", content="VPN guide: ..."),
]


async def test_plain_request_has_model_and_messages_and_no_tools(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    await provider.complete(CompletionRequest(messages=[Message.user("hi")]))

    assert fake_llm.requests == [
        {"model": "test-model", "messages": [{"role": "user", "content": "hi"}]}
    ]


async def test_tools_are_sent_as_functions_when_given(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    await provider.complete(CompletionRequest(messages=[Message.user("hi")], tools=[SEARCH]))

    assert fake_llm.requests[0]["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "search_docs",
                "description": "Search the team's documentation.",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
            },
        }
    ]


async def test_assistant_tool_calls_and_tool_results_use_openai_shapes(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    await provider.complete(CompletionRequest(messages=TOOL_ROUND_TRIP, tools=[SEARCH]))

    assert fake_llm.requests[0]["messages"] == [
        {"role": "system", "content": "You help with IT questions."},
        {"role": "user", "content": "how do I set up the vpn"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "search_docs", "arguments": '{"query": "vpn"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "VPN guide: ..."},
    ]


async def test_sampling_options_are_sent_only_when_set(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    await provider.complete(
        CompletionRequest(messages=[Message.user("hi")], max_tokens=200, temperature=0.0)
    )

    assert fake_llm.requests[0]["max_tokens"] == 200
    assert fake_llm.requests[0]["temperature"] == 0.0


async def test_the_fake_rejects_a_tool_result_that_answers_no_call(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    orphan = Message(role=Role.TOOL, tool_call_id="call_9", content="result")

    with pytest.raises(ModelRequestRejected) as rejected:
        await provider.complete(CompletionRequest(messages=[Message.user("hi"), orphan]))

    assert rejected.value.status == 400
    assert str(rejected.value).endswith("(HTTP 400): invalid_request_error")
    assert len(fake_llm.requests) == 1


async def test_the_fake_rejects_tool_calls_left_unanswered(
    provider: OpenAICompatibleProvider,
) -> None:
    unanswered = [Message.user("hi"), Message.assistant("", tool_calls=[CALL]), Message.user("?")]

    with pytest.raises(ModelRequestRejected):
        await provider.complete(CompletionRequest(messages=unanswered))


async def test_a_user_message_with_images_sends_a_text_part_then_data_url_image_parts(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    png, gif = b"\x89PNG\r\n\x1a\nscreenshot", b"GIF89a-animation"
    images = [MessageImage(mime="image/png", data=png), MessageImage(mime="image/gif", data=gif)]
    asked = Message.user("what does this show?", images)

    async for _ in provider.stream(
        CompletionRequest(messages=[Message.system("Be brief."), asked])
    ):
        pass

    assert fake_llm.requests[0]["messages"] == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what does this show?"},
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/png;base64,iVBORw0KGgpzY3JlZW5zaG90"},
                },
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/gif;base64,R0lGODlhLWFuaW1hdGlvbg=="},
                },
            ],
        },
    ]
    assert [(image.mime, image.data) for image in fake_llm.images] == [
        ("image/png", png),
        ("image/gif", gif),
    ]


def test_a_message_s_images_stay_out_of_its_dump_and_repr() -> None:
    asked = Message.user("see this", [MessageImage(mime="image/png", data=b"\x89PNG-secret")])

    assert "images" not in asked.model_dump()
    assert "secret" not in asked.model_dump_json()
    assert "secret" not in repr(asked) and "secret" not in repr(asked.images[0])
    assert asked.images[0].data == b"\x89PNG-secret"
