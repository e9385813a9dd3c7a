"""A pass-through in front of a real OpenAI-compatible endpoint that keeps each chat request's
body, as :class:`bot.simulator.FakeLLMServer` does: how the playground shows, with
``--real-llm``, what memory put into the prompt, without touching the bot's own client.

Point the bot's ``LLM_BASE_URL`` at :attr:`RecordingProxy.base_url`; every request is
forwarded to ``upstream`` with the same path, method, headers and body, and the reply
(streamed or not) is passed back as it arrives.
"""

from __future__ import annotations

import json
from typing import Any, Self

import aiohttp
from aiohttp import web

from bot.simulator.local_server import LocalServer

__all__ = ["RecordingProxy", "Replies"]

FORWARDED_HEADERS = ("Authorization", "Content-Type", "Accept")
PASSED_BACK_HEADERS = ("Content-Type", "Cache-Control", "Retry-After")

Replies = dict[bytes, tuple[str, bytes]]
"""Chat request bodies and the reply to each: its content type and body."""


class RecordingProxy:
    """``async with RecordingProxy(upstream) as proxy:`` serves on 127.0.0.1 and records
    the JSON body of every ``POST .../chat/completions`` in ``requests``."""

    def __init__(self, upstream: str, *, replies: Replies | None = None) -> None:
        self.upstream = upstream.rstrip("/")
        self.requests: list[dict[str, Any]] = []
        self.replies = replies
        """Given, a chat request identical to one it holds is answered with that reply
        without asking ``upstream``, and each new reply is added: for a model sampled
        deterministically (temperature 0, a seed), which would answer the same, at the cost
        of a whole generation."""
        self._session: aiohttp.ClientSession | None = None
        self._server = LocalServer("RecordingProxy")

    @property
    def base_url(self) -> str:
        """The root URL to give the bot in place of ``upstream``."""
        return self._server.url

    async def __aenter__(self) -> Self:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        app = web.Application()
        app.router.add_route("*", "/{path:.*}", self._forward)
        await self._server.start(app, shutdown_timeout=1.0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._server.stop()
        if self._session is not None:
            await self._session.close()
        self._session = None

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        body = await request.read()
        chat = request.method == "POST" and request.path.endswith("/chat/completions")
        if chat:
            self._record(body)
            if self.replies is not None and body in self.replies:
                content_type, reply = self.replies[body]
                return web.Response(body=reply, headers={"Content-Type": content_type})
        headers = {
            name: request.headers[name] for name in FORWARDED_HEADERS if name in request.headers
        }
        try:
            upstream = await self._session.request(
                request.method, self.upstream + request.path_qs, data=body, headers=headers
            )
        except aiohttp.ClientError:
            return web.Response(status=502)
        async with upstream:
            passed = {
                name: upstream.headers[name]
                for name in PASSED_BACK_HEADERS
                if name in upstream.headers
            }
            response = web.StreamResponse(status=upstream.status, headers=passed)
            await response.prepare(request)
            chunks = []
            try:
                async for chunk in upstream.content.iter_any():
                    chunks.append(chunk)
                    await response.write(chunk)
            except aiohttp.ClientError:  # the upstream broke off: so does the reply
                return response
            await response.write_eof()
            if chat and self.replies is not None and upstream.status == 200:
                self.replies[body] = (passed.get("Content-Type", ""), b"".join(chunks))
            return response

    def _record(self, body: bytes) -> None:
        try:
            parsed = json.loads(body)
        except ValueError:
            return
        if isinstance(parsed, dict):
            self.requests.append(parsed)
