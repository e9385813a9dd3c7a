"""Asking an OpenAI-compatible endpoint whether it is up and serves the configured model."""

from __future__ import annotations

import re
import socket

import httpx
from pydantic import BaseModel

from bot.logging_setup import causes

__all__ = ["ModelStatus", "describe_endpoint", "probe_model"]

PROBE_TIMEOUT_SECONDS = 5.0
VERSIONED_PATH = re.compile(r"/v\d+[a-z0-9]*/?$")
"""How the base URL of an OpenAI-compatible API ends (``/v1``, ``/v1beta``)."""


class ModelStatus(BaseModel):
    """The answer of ``GET /models``, for start-up, ``/readyz`` and ``consolidate``."""

    reachable: bool
    listed: bool | None = None
    """Whether the endpoint lists the model; None when it does not list models at all."""
    problem: str | None = None
    """One line for the operator; None when the model should answer."""

    @property
    def ok(self) -> bool:
        return self.problem is None


def describe_endpoint(url: str) -> str:
    """``url`` without credentials or query, fit for a log line."""
    parsed = httpx.URL(url)
    return str(parsed.copy_with(username=None, password=None, query=None, fragment=None))


def _unreachable(error: httpx.HTTPError) -> str:
    """``unreachable``, with the cause an operator acts on when it is a common one."""
    chain = causes(error)
    if any(isinstance(cause, ConnectionRefusedError) for cause in chain):
        return (
            "is unreachable: it refused the connection (is the model server running, and "
            "listening on that address? In a container, localhost is the container itself)"
        )
    if any(isinstance(cause, socket.gaierror) for cause in chain):
        return "is unreachable: its host name does not resolve (check LLM_BASE_URL)"
    if isinstance(error, httpx.TimeoutException):
        return (
            f"is unreachable: no answer within {PROBE_TIMEOUT_SECONDS:g} s (check LLM_BASE_URL, "
            "and that the model server is up)"
        )
    return f"is unreachable ({type(error).__name__}): check LLM_BASE_URL"


def _lists(ids: list[str], model: str) -> bool:
    # Ollama lists "llama3.1" as "llama3.1:latest".
    return model in ids or f"{model}:latest" in ids


async def probe_model(client: httpx.AsyncClient, model: str) -> ModelStatus:
    """``GET models`` at the client's base URL, within :data:`PROBE_TIMEOUT_SECONDS`."""
    try:
        response = await client.get("models", timeout=PROBE_TIMEOUT_SECONDS)
    except httpx.HTTPError as error:
        return ModelStatus(reachable=False, problem=_unreachable(error))
    status = response.status_code
    if status in (401, 403):
        return ModelStatus(
            reachable=True, problem=f"rejected the credentials (HTTP {status}): check LLM_API_KEY"
        )
    if status == 404 and not VERSIONED_PATH.search(client.base_url.path):
        return ModelStatus(
            reachable=True,
            problem="answered HTTP 404 for its models: check LLM_BASE_URL, which ends in /v1 "
            "for most servers (Ollama: http://localhost:11434/v1)",
        )
    if status == 404:
        return ModelStatus(reachable=True)  # the server does not list its models
    if not response.is_success:
        return ModelStatus(reachable=True, problem=f"answered HTTP {status}")
    try:
        data = response.json().get("data")
        ids = [str(item.get("id")) for item in data if isinstance(item, dict)]
    except (ValueError, AttributeError, TypeError):
        return ModelStatus(reachable=True)
    if _lists(ids, model):
        return ModelStatus(reachable=True, listed=True)
    return ModelStatus(
        reachable=True,
        listed=False,
        problem=f"does not list the model {model} (with Ollama, run: ollama pull {model})",
    )
