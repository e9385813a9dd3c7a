"""The :class:`Provider` for any server speaking OpenAI's ``/chat/completions`` API: each
request bounded, measured, retried, and sent over httpx, all in this one class, so that a
reader follows a message to its HTTP request without passing through wrappers."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AbstractContextManager, aclosing, nullcontext
from typing import Any

import httpx
from pydantic import ValidationError

from bot.agent.messages import Completion, CompletionRequest, Delta
from bot.agent.provider import ModelUnavailable
from bot.llm.errors import ModelRequestRejected
from bot.llm.retry import Retries, RetryableFailure, RetryPolicy, retry_after_seconds
from bot.llm.sse import iter_sse_data
from bot.llm.stream_assembler import StreamAssembler
from bot.llm.wire import ChatCompletion, ChatCompletionChunk, encode_request

__all__ = ["OpenAICompatibleProvider"]

_CHAT_COMPLETIONS = "chat/completions"
_STREAM_END = "[DONE]"
_READ_TO_END_SECONDS = 1.0
_RETRYABLE_TRANSPORT_ERRORS = (
    httpx.TimeoutException,
    httpx.NetworkError,
    httpx.RemoteProtocolError,
)
_ERROR_CODE = re.compile(r"[A-Za-z0-9_.-]{1,64}", re.ASCII)


class OpenAICompatibleProvider:
    """Talks to OpenAI, Ollama, vLLM, llama.cpp and the like through an injected client.

    The client carries the base URL and credentials (see :func:`build_llm_client`), so tests
    can point it at :class:`FakeLLMServer` and production at the real thing. At most
    ``limit`` requests are in flight at once (a stream holds its slot until it ends): answers,
    reflection and consolidation share one model, and without a bound their requests pile up
    in httpx's connection pool, the overflow failing as "model unavailable". Each request
    runs inside ``measure()`` (how :mod:`bot.observability` times it and counts its failure),
    retries included, the wait for a slot not."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        model: str,
        retry: RetryPolicy | None = None,
        temperature: float | None = None,
        seed: int | None = None,
        limit: int | None = None,
        measure: Callable[[], AbstractContextManager[object]] = nullcontext,
    ) -> None:
        if limit is not None and limit < 1:
            raise ValueError("limit must be at least 1")
        self._client = client
        self._model = model
        self._retry = retry or RetryPolicy()
        self._sampling = {"temperature": temperature, "seed": seed}
        """``LLM_TEMPERATURE`` (for requests that set none) and ``LLM_SEED``, when set."""
        self._slots: AbstractAsyncContextManager[object] = (
            nullcontext() if limit is None else asyncio.Semaphore(limit)
        )
        self._measure = measure

    async def complete(self, request: CompletionRequest) -> Completion:
        body = encode_request(request, model=self._model, stream=False, **self._sampling)
        async with self._slots:
            with self._measure():
                response = await self._send(body, stream=False)
                try:
                    return ChatCompletion.model_validate_json(response.content).to_completion()
                except ValidationError as error:
                    raise ModelUnavailable("the model server sent a malformed response") from error

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        body = encode_request(request, model=self._model, stream=True, **self._sampling)
        async with self._slots:
            with self._measure():
                # Retries happen only here, before any of the body was read: once text has
                # been yielded, starting over would show the person a garbled answer.
                response = await self._send(body, stream=True)
                try:
                    assembler = StreamAssembler()
                    async with aclosing(self._stream_texts(response, assembler)) as texts:
                        async for text in texts:
                            yield Delta(content=text)
                    yield Delta(final=assembler.completion())
                finally:
                    await response.aclose()

    async def _stream_texts(
        self, response: httpx.Response, assembler: StreamAssembler
    ) -> AsyncIterator[str]:
        done = False
        events = iter_sse_data(response.aiter_lines())
        try:
            async for data in events:
                if data.strip() == _STREAM_END:
                    done = True
                    await _read_to_end(events)
                    break
                chunk = ChatCompletionChunk.model_validate_json(data)
                if chunk.error is not None:
                    raise ModelUnavailable(
                        f"the model server failed mid-stream{_error_code(chunk.error)}"
                    )
                if text := assembler.add(chunk):
                    yield text
        except httpx.HTTPError as error:
            raise ModelUnavailable(
                f"the model's stream broke off ({type(error).__name__})"
            ) from error
        except ValidationError as error:
            raise ModelUnavailable("the model server sent a malformed stream chunk") from error
        if not done and not assembler.finished:
            raise ModelUnavailable("the model's stream ended before the answer did")

    async def _send(self, body: dict[str, Any], *, stream: bool) -> httpx.Response:
        """A response with a 2xx status (body unread when streaming), after as many attempts
        as the retry policy allows; :class:`ModelUnavailable` when none got one."""
        retries = Retries(self._retry)
        while True:
            request = self._client.build_request("POST", _CHAT_COMPLETIONS, json=body)
            try:
                response = await self._client.send(request, stream=stream)
            except _RETRYABLE_TRANSPORT_ERRORS as error:
                await retries.after(_transport_failure(error))
                continue
            if response.is_success:
                return response
            await retries.after(await _server_failure(response))


def _transport_failure(error: httpx.HTTPError) -> RetryableFailure:
    unreachable = isinstance(error, httpx.ConnectError | httpx.ConnectTimeout)
    problem = "could not reach the model server" if unreachable else "no answer in time"
    return RetryableFailure(f"{problem} ({type(error).__name__})", cause=error)


async def _server_failure(response: httpx.Response) -> RetryableFailure:
    """What an answer that is no success says, once read: a failure another attempt may fix
    (429, 5xx); :class:`ModelRequestRejected` is raised for any other."""
    try:
        await response.aread()
    except httpx.HTTPError:
        pass  # the status alone says enough
    finally:
        await response.aclose()
    status = response.status_code
    if status == 429 or status >= 500:
        return RetryableFailure(
            f"the model server answered HTTP {status}",
            retry_after=retry_after_seconds(response.headers.get("Retry-After")),
        )
    raise ModelRequestRejected(status, _rejection_reason(response))


def _error_code(error: object) -> str:
    """``": context_length_exceeded"``: the ``code`` (or ``type``) of an OpenAI-style
    ``error`` object when it is an identifier, else nothing. Never its ``message``: a
    server may quote the prompt (people's messages) or the credentials back in it."""
    if not isinstance(error, dict):
        return ""
    for key in ("code", "type"):
        value = error.get(key)
        if isinstance(value, str) and _ERROR_CODE.fullmatch(value):
            return f": {value}"
    return ""


def _rejection_reason(response: httpx.Response) -> str:
    reason = f"the model server rejected the request (HTTP {response.status_code})"
    if response.status_code in (401, 403):
        # The server may quote the credentials back; keep them out of logs.
        return f"{reason}: check LLM_API_KEY"
    if response.status_code == 404:
        reason = f"{reason}: check LLM_MODEL and LLM_BASE_URL"
    try:
        error = response.json().get("error")
    except (httpx.ResponseNotRead, ValueError, AttributeError):
        return reason
    return f"{reason}{_error_code(error)}"


async def _read_to_end(events: AsyncIterator[str]) -> None:
    """Read what follows ``[DONE]`` (normally just the end of the body), so that httpx can
    reuse the connection for the next call instead of opening a new one; a server that
    keeps the stream open after ``[DONE]`` only loses its connection."""
    with contextlib.suppress(httpx.HTTPError, TimeoutError):
        async with asyncio.timeout(_READ_TO_END_SECONDS):
            async for _ in events:
                pass
