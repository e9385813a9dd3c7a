"""OpenAI's chat-completions wire format, translated to and from :mod:`bot.agent.messages`.

Requests are encoded by hand into exactly the documented shape; responses and stream chunks
are validated with lenient pydantic models (unknown fields ignored, nulls tolerated) because
OpenAI-compatible servers differ in what they add."""

from __future__ import annotations

import base64
import json
from typing import Any

from pydantic import BaseModel, Field, field_validator

from bot.agent.messages import (
    Completion,
    CompletionRequest,
    Message,
    MessageImage,
    Role,
    ToolCall,
)

__all__ = [
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChunkToolCall",
    "Usage",
    "encode_request",
]


def _image_part(image: MessageImage) -> dict[str, Any]:
    """An image as OpenAI's ``image_url`` content part, with the bytes in a data URL (the
    form Ollama, vLLM and OpenAI all accept; Ollama takes no other)."""
    data = base64.b64encode(image.data).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{image.mime};base64,{data}"}}


def _user_content(message: Message) -> str | list[dict[str, Any]]:
    """A user message's text, or its text part beside one part per attached image."""
    if not message.images:
        return message.content
    return [
        {"type": "text", "text": message.content},
        *(_image_part(image) for image in message.images),
    ]


def _encode_message(message: Message) -> dict[str, Any]:
    if message.role is Role.TOOL:
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id or "",
            "content": message.content,
        }
    encoded: dict[str, Any] = {"role": message.role.value, "content": message.content}
    if message.role is Role.USER:
        encoded["content"] = _user_content(message)
    if message.role is Role.ASSISTANT and message.tool_calls:
        # content stays text, "" when the model said nothing: OpenAI takes "" or null beside
        # tool_calls, but llama.cpp's server answers null with a 500.
        encoded["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in message.tool_calls
        ]
    if message.name is not None:
        encoded["name"] = message.name
    return encoded


def encode_request(
    request: CompletionRequest,
    *,
    model: str,
    stream: bool,
    temperature: float | None = None,
    seed: int | None = None,
) -> dict[str, Any]:
    """The JSON body of ``POST /chat/completions`` for ``request``; ``temperature`` is the
    default of a request that sets none, and ``seed`` is sent as is."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [_encode_message(message) for message in request.messages],
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.tools
        ]
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        temperature = request.temperature
    if temperature is not None:
        body["temperature"] = temperature
    if seed is not None:
        body["seed"] = seed
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body


def _arguments_as_text(value: object) -> object:
    """Some servers send tool arguments as a JSON object instead of a string; accept both."""
    if isinstance(value, dict):
        return json.dumps(value)
    return "" if value is None else value


class Usage(BaseModel):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class FunctionCall(BaseModel):
    name: str = ""
    arguments: str = ""

    _text_arguments = field_validator("arguments", mode="before")(_arguments_as_text)


class ResponseToolCall(BaseModel):
    id: str = ""
    function: FunctionCall


class ResponseMessage(BaseModel):
    content: str | None = None
    tool_calls: list[ResponseToolCall] | None = None


class Choice(BaseModel):
    message: ResponseMessage


class ChatCompletion(BaseModel):
    """A non-streamed ``chat.completion`` response."""

    choices: list[Choice] = Field(min_length=1)
    usage: Usage | None = None

    def to_completion(self) -> Completion:
        message = self.choices[0].message
        usage = self.usage or Usage()
        return Completion(
            content=message.content or "",
            tool_calls=[
                ToolCall(
                    id=call.id or f"call_{position}",
                    name=call.function.name,
                    arguments=call.function.arguments or "{}",
                )
                for position, call in enumerate(message.tool_calls or [])
            ],
            input_tokens=usage.prompt_tokens or 0,
            output_tokens=usage.completion_tokens or 0,
        )


class ChunkFunction(BaseModel):
    name: str | None = None
    arguments: str | None = None

    _text_arguments = field_validator("arguments", mode="before")(_arguments_as_text)


class ChunkToolCall(BaseModel):
    """A fragment of one tool call; ``index`` says which call it continues."""

    index: int | None = None
    id: str | None = None
    function: ChunkFunction | None = None


class ChunkDelta(BaseModel):
    content: str | None = None
    tool_calls: list[ChunkToolCall] | None = None


class ChunkChoice(BaseModel):
    delta: ChunkDelta = Field(default_factory=ChunkDelta)
    finish_reason: str | None = None


class ChatCompletionChunk(BaseModel):
    """One ``chat.completion.chunk`` of a stream (or an in-stream ``error`` object)."""

    choices: list[ChunkChoice] = Field(default_factory=list)
    usage: Usage | None = None
    error: dict[str, Any] | None = None
