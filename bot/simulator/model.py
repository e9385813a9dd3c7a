"""A real, scriptable OpenAI-compatible HTTP server on 127.0.0.1, for tests.

Like httpx's ``MockTransport`` or pydantic-ai's ``TestModel`` it ships beside the real thing,
but it listens on a socket, so the provider under test runs exactly its production path::

    async with FakeLLMServer() as llm:
        llm.script(ScriptedReply.error(429, retry_after="0"), ScriptedReply.answer("Hi"))
        provider = OpenAICompatibleProvider(build_llm_client(llm.base_url, "key", 5), model="m")
        ...
        assert llm.requests[0]["messages"][-1]["content"] == "Hello"

Images sent as ``image_url`` parts are decoded into :attr:`FakeLLMServer.images` as they
arrive, and :meth:`FakeLLMServer.images_for` gives those of one question's request.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import itertools
import json
from collections import deque
from collections.abc import Callable
from typing import Any, Self

from aiohttp import web
from pydantic import BaseModel, Field

from bot.agent.messages import ToolCall
from bot.simulator.local_server import LocalServer
from bot.simulator.model_wire import (
    IMAGE_DATA_URL,
    completion_body,
    completion_chunks,
    error_body,
    message_text,
    request_problem,
    sse_event,
)

__all__ = [
    "FakeLLMServer",
    "ReceivedImage",
    "Responder",
    "ScriptedReply",
    "echo_last_user_message",
    "images_of",
]


class ScriptedReply(BaseModel):
    """One reply of the fake: an answer (text and/or tool calls) or an HTTP error."""

    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    status: int = Field(default=200, ge=200, le=599)
    error_message: str = "scripted failure"
    retry_after: str | None = Field(default=None, description="Retry-After header of an error")
    delay_seconds: float = Field(default=0.0, ge=0, description="wait before answering")
    piece_size: int = Field(default=3, ge=1, description="characters per streamed chunk")
    break_after_chunks: int | None = Field(
        default=None, ge=0, description="streaming: drop the connection after this many chunks"
    )

    @classmethod
    def answer(cls, text: str, **options: Any) -> ScriptedReply:
        return cls(text=text, **options)

    @classmethod
    def calls(cls, *tool_calls: ToolCall, text: str = "", **options: Any) -> ScriptedReply:
        return cls(text=text, tool_calls=list(tool_calls), **options)

    @classmethod
    def error(
        cls, status: int, *, retry_after: str | None = None, message: str = "scripted failure"
    ) -> ScriptedReply:
        return cls(status=status, retry_after=retry_after, error_message=message)

    @classmethod
    def empty(cls) -> ScriptedReply:
        return cls()


class ReceivedImage(BaseModel):
    """An image the fake was sent in a data URL, decoded."""

    mime: str
    data: bytes = Field(repr=False)


def images_of(message: dict[str, Any]) -> list[ReceivedImage]:
    """The images of a message's ``image_url`` parts given as data URLs, in order."""
    content = message.get("content")
    images = []
    for part in content if isinstance(content, list) else []:
        image = part.get("image_url") if isinstance(part, dict) else None
        url = image.get("url") if isinstance(image, dict) else None
        found = IMAGE_DATA_URL.fullmatch(url) if isinstance(url, str) else None
        if found is not None:
            with contextlib.suppress(binascii.Error):
                data = base64.b64decode(found[2], validate=True)
                images.append(ReceivedImage(mime=found[1], data=data))
    return images


Responder = Callable[[dict[str, Any]], ScriptedReply]
"""Turns a recorded request body into the reply, when nothing is scripted."""


def echo_last_user_message(request: dict[str, Any]) -> ScriptedReply:
    """The default responder: ``"Answer: <last user message>"``, deterministic by design."""
    user_texts = [
        message_text(message) for message in request["messages"] if message.get("role") == "user"
    ]
    return ScriptedReply.answer(f"Answer: {user_texts[-1] if user_texts else ''}")


class FakeLLMServer:
    """``POST /v1/chat/completions`` (plain and SSE) and ``GET /v1/models`` on a random port.

    Replies come from the :meth:`script` queue first, then from ``responder``. Every chat
    request body is kept in ``requests``. Set ``down`` to answer everything with 503, and
    ``latency_seconds`` to make every reply slow. Requests OpenAI would reject get a 400."""

    def __init__(
        self, *, model: str = "fake-model", responder: Responder = echo_last_user_message
    ) -> None:
        self.model = model
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.images: list[ReceivedImage] = []
        """Every image of every chat request, in the order they came."""
        self.client_ports: list[int] = []
        """The client's port of each recorded request: equal ports mean a reused connection."""
        self.down = False
        self.latency_seconds = 0.0
        self._script: deque[ScriptedReply] = deque()
        self._ids = itertools.count(1)
        self._closing = asyncio.Event()
        self._request_recorded = asyncio.Condition()
        self._server = LocalServer("FakeLLMServer")

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``, the value to give the client as its base URL."""
        return f"{self._server.url}/v1"

    def script(self, *replies: ScriptedReply) -> None:
        """Queue replies for the next chat requests, in order."""
        self._script.extend(replies)

    async def wait_for_requests(self, count: int) -> None:
        """Return once ``count`` chat requests in all have been recorded."""
        async with self._request_recorded:
            await self._request_recorded.wait_for(lambda: len(self.requests) >= count)

    def request_for(self, question: str, *, agent_only: bool = False) -> dict[str, Any]:
        """The last chat request whose last user message ends with ``question``; with
        ``agent_only``, only a request that offered tools (the agent's, not a lesson's)."""
        for request in reversed(self.requests):
            users = [
                message_text(m) for m in request.get("messages", []) if m.get("role") == "user"
            ]
            if agent_only and not request.get("tools"):
                continue
            if users and users[-1].endswith(question):
                return request
        raise AssertionError(f"no model request for {question!r}")

    def images_for(self, question: str) -> list[ReceivedImage]:
        """The images on the last user message of :meth:`request_for` ``question``."""
        users = [m for m in self.request_for(question)["messages"] if m.get("role") == "user"]
        return images_of(users[-1])

    def prompt_for(self, question: str) -> str:
        """The messages of :meth:`request_for` ``question``, as one JSON string to search."""
        return json.dumps(self.request_for(question)["messages"], ensure_ascii=False)

    @property
    def pending_replies(self) -> int:
        """Scripted replies not yet used."""
        return len(self._script)

    async def __aenter__(self) -> Self:
        self._closing = asyncio.Event()
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat_completions)
        app.router.add_get("/v1/models", self._models)
        await self._server.start(app, shutdown_timeout=1.0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._closing.set()  # wakes handlers still waiting out a delay
        await self._server.stop()

    async def _pause(self, seconds: float) -> None:
        if seconds > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), seconds)

    async def _models(self, request: web.Request) -> web.StreamResponse:
        if self.down:
            return _error_response(ScriptedReply.error(503, message="the model is down"))
        return web.json_response(
            {
                "object": "list",
                "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "fake"}],
            }
        )

    async def _chat_completions(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except ValueError:
            return _error_response(ScriptedReply.error(400, message="the body is not JSON"))
        if isinstance(body, dict):
            async with self._request_recorded:
                self.client_ports.append(_client_port(request))
                self.requests.append(body)
                for message in body.get("messages") or []:
                    if isinstance(message, dict):
                        self.images.extend(images_of(message))
                self._request_recorded.notify_all()
        if self.down:
            return _error_response(ScriptedReply.error(503, message="the model is down"))
        if problem := request_problem(body):
            return _error_response(ScriptedReply.error(400, message=problem))
        reply = self._script.popleft() if self._script else self.responder(body)
        await self._pause(self.latency_seconds + reply.delay_seconds)
        if reply.status != 200:
            return _error_response(reply)
        completion_id = f"chatcmpl-fake{next(self._ids)}"
        if body.get("stream"):
            return await self._stream(request, body, completion_id, reply)
        return web.json_response(completion_body(body, completion_id, reply.text, reply.tool_calls))

    async def _stream(
        self,
        request: web.Request,
        body: dict[str, Any],
        completion_id: str,
        reply: ScriptedReply,
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        chunks = completion_chunks(
            body, completion_id, reply.text, reply.tool_calls, piece_size=reply.piece_size
        )
        try:
            for sent, chunk in enumerate(chunks):
                if sent == reply.break_after_chunks and request.transport is not None:
                    request.transport.abort()
                    return response
                await response.write(sse_event(chunk))
            await response.write(sse_event("[DONE]"))
            await response.write_eof()
        except ConnectionError:
            pass  # the client stopped reading; nothing left to tell it
        return response


def _error_response(reply: ScriptedReply) -> web.Response:
    headers = {"Retry-After": reply.retry_after} if reply.retry_after is not None else None
    return web.json_response(
        error_body(reply.status, reply.error_message), status=reply.status, headers=headers
    )


def _client_port(request: web.Request) -> int:
    peer = request.transport.get_extra_info("peername") if request.transport else None
    return int(peer[1]) if peer else 0
