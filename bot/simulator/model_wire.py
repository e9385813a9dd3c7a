"""What :class:`FakeLLMServer` checks and sends: OpenAI's request rules and response shapes.

Written independently of :mod:`bot.llm.wire`, from OpenAI's documentation, so that a mistake
in the provider's encoding shows up as a 400 from the fake rather than agreeing with itself."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

from bot.agent.messages import ToolCall

__all__ = [
    "IMAGE_DATA_URL",
    "completion_body",
    "completion_chunks",
    "error_body",
    "message_text",
    "request_problem",
    "sse_event",
    "usage_of",
]

_ROLES = {"system", "developer", "user", "assistant", "tool"}
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What OpenAI accepts as a function name or a message's ``name``."""
IMAGE_DATA_URL = re.compile(
    r"data:(image/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]+={0,2})", re.ASCII
)
"""An image given inline, as OpenAI documents it (PNG, JPEG, GIF or WebP, base64)."""
_IMAGE_DETAILS = {"auto", "low", "high"}


def message_text(message: dict[str, Any]) -> str:
    """A message's text: its ``content`` string, or its ``text`` parts joined."""
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if part.get("type") == "text")
    return content if isinstance(content, str) else ""


def _content_parts_problem(parts: list[Any], where: str, *, images: bool) -> str | None:
    """Why a ``content`` array is not as OpenAI documents it (``text`` parts, and for a
    user message ``image_url`` parts with an http(s) URL or an image data URL)."""
    if not parts:
        return f"{where}.content must not be an empty array"
    for index, part in enumerate(parts):
        at = f"{where}.content[{index}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            if not isinstance(part.get("text"), str):
                return f"{at}.text must be a string"
        elif kind == "image_url" and images:
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else None
            if not isinstance(url, str) or not (
                url.startswith(("http://", "https://")) or IMAGE_DATA_URL.fullmatch(url)
            ):
                return f"{at}.image_url.url must be an http(s) URL or a base64 image data URL"
            if image.get("detail", "auto") not in _IMAGE_DETAILS:
                return f"{at}.image_url.detail must be one of {sorted(_IMAGE_DETAILS)}"
        else:
            allowed = "'text' or 'image_url'" if images else "'text'"
            return f"{at}.type must be {allowed}"
    return None


def _bad_name(value: object) -> bool:
    return not isinstance(value, str) or _NAME.fullmatch(value) is None


def request_problem(body: object) -> str | None:
    """Why OpenAI would reject ``body`` with a 400, or ``None`` if it is well formed."""
    if not isinstance(body, dict):
        return "the request body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "'model' is required"
    if "stream_options" in body and not body.get("stream"):
        return "'stream_options' is only allowed when 'stream' is enabled"
    if "tools" in body and (problem := _tools_problem(body["tools"])):
        return problem
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    return _messages_problem(messages)


def _tools_problem(tools: object) -> str | None:
    if not isinstance(tools, list) or not tools:
        return "'tools' must be a non-empty array when present"
    for position, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or tool.get("type") != "function":
            return f"tools[{position}] must be {{type: 'function', function: {{...}}}}"
        if _bad_name(function.get("name")):
            return f"tools[{position}].function.name must match {_NAME.pattern}"
        if not isinstance(function.get("parameters", {}), dict):
            return f"tools[{position}].function.parameters must be a JSON schema object"
    return None


def _messages_problem(messages: list[Any]) -> str | None:
    awaiting: set[str] = set()  # tool_call ids of the last assistant message not yet answered
    for position, message in enumerate(messages):
        where = f"messages[{position}]"
        if not isinstance(message, dict) or message.get("role") not in _ROLES:
            return f"{where} needs a role among {sorted(_ROLES)}"
        role = message["role"]
        if "name" in message and _bad_name(message["name"]):
            return f"{where}.name must match {_NAME.pattern}"
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in awaiting:
                return f"{where}: a 'tool' message must answer a preceding assistant tool_call"
            if not isinstance(message.get("content"), str):
                return f"{where}.content must be a string"
            awaiting.discard(call_id)
            continue
        if awaiting:
            return f"{where}: tool_calls {sorted(awaiting)} were never answered by tool messages"
        if role == "assistant":
            problem = _assistant_problem(message, where)
            if problem:
                return problem
            awaiting = {call["id"] for call in message.get("tool_calls") or []}
        elif isinstance(message.get("content"), list):
            problem = _content_parts_problem(message["content"], where, images=role == "user")
            if problem:
                return problem
        elif not isinstance(message.get("content"), str):
            return f"{where}.content is required"
    if awaiting:
        return f"tool_calls {sorted(awaiting)} were never answered by tool messages"
    return None


def _assistant_problem(message: dict[str, Any], where: str) -> str | None:
    tool_calls = message.get("tool_calls")
    if tool_calls is None:
        if not isinstance(message.get("content"), str):
            return f"{where}.content is required unless tool_calls is given"
        return None
    if not isinstance(tool_calls, list) or not tool_calls:
        return f"{where}.tool_calls must be a non-empty array when present"
    if message.get("content") is not None and not isinstance(message["content"], str):
        return f"{where}.content must be a string or null"
    for index, call in enumerate(tool_calls):
        function = call.get("function") if isinstance(call, dict) else None
        if (
            not isinstance(function, dict)
            or not isinstance(call.get("id"), str)
            or call.get("type") != "function"
            or not isinstance(function.get("name"), str)
            or not isinstance(function.get("arguments"), str)
        ):
            return (
                f"{where}.tool_calls[{index}] must be "
                "{id, type: 'function', function: {name, arguments: string}}"
            )
    return None


def error_body(status: int, message: str) -> dict[str, Any]:
    kind = "server_error" if status >= 500 else "invalid_request_error"
    code = "rate_limit_exceeded" if status == 429 else None
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _words(text: str) -> int:
    return len(text.split())


def usage_of(request: dict[str, Any], text: str, tool_calls: list[ToolCall]) -> dict[str, int]:
    """Deterministic token counts: one token per whitespace-separated word."""
    prompt = sum(_words(message_text(message)) for message in request["messages"])
    completion = _words(text) + sum(_words(call.arguments) + 1 for call in tool_calls)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _finish_reason(tool_calls: list[ToolCall]) -> str:
    return "tool_calls" if tool_calls else "stop"


def _encode_tool_call(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }


def completion_body(
    request: dict[str, Any], completion_id: str, text: str, tool_calls: list[ToolCall]
) -> dict[str, Any]:
    """A ``chat.completion`` object; ``content`` is null when only tools were called."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None if tool_calls and not text else text,
        "refusal": None,
    }
    if tool_calls:
        message["tool_calls"] = [_encode_tool_call(call) for call in tool_calls]
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request["model"],
        "system_fingerprint": "fp_fake",
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": _finish_reason(tool_calls),
            }
        ],
        "usage": usage_of(request, text, tool_calls),
    }


def _pieces(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


def completion_chunks(
    request: dict[str, Any],
    completion_id: str,
    text: str,
    tool_calls: list[ToolCall],
    *,
    piece_size: int,
) -> Iterator[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects OpenAI streams for this answer, in order.

    A role chunk, the text in pieces, each tool call as a head fragment (id, name) followed by
    argument pieces, a finish chunk, and, when asked for with ``stream_options``, a usage
    chunk with no choices (every earlier chunk then carries ``usage: null``)."""
    include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": request["model"],
            "system_fingerprint": "fp_fake",
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            ],
        }
        if include_usage:
            body["usage"] = None
        return body

    yield chunk({"role": "assistant", "content": "", "refusal": None})
    for piece in _pieces(text, piece_size):
        yield chunk({"content": piece})
    for index, call in enumerate(tool_calls):
        head = _encode_tool_call(call)
        head["function"]["arguments"] = ""
        yield chunk({"tool_calls": [{"index": index, **head}]})
        for piece in _pieces(call.arguments, piece_size):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, _finish_reason(tool_calls))
    if include_usage:
        yield {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": request["model"],
            "system_fingerprint": "fp_fake",
            "choices": [],
            "usage": usage_of(request, text, tool_calls),
        }


def sse_event(data: dict[str, Any] | str) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    return f"data: {payload}\n\n".encode()
