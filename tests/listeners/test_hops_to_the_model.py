"""A person's message reaches the model's HTTP request in at most eight calls from its
listener: each function on the way does something of its own, none only passes it on."""

from __future__ import annotations

import inspect
from collections.abc import Coroutine
from types import CodeType, FrameType
from typing import Any

import httpx
import pytest

from bot.answering.inflight import InFlight
from bot.listeners.events.message import message_callback
from tests.support.harness import SignedSlack

MOST_HOPS = 8


def calls_up_to(frame: FrameType | None, first: CodeType) -> list[str]:
    """The functions called from ``first`` down to ``frame`` (outermost first); empty when
    ``first`` is not on its stack."""
    names: list[str] = []
    while frame is not None:
        names.append(frame.f_code.co_qualname)
        if frame.f_code is first:
            return names[::-1]
        frame = frame.f_back
    return []


async def test_a_message_reaches_the_models_http_request_within_eight_hops_of_its_listener(
    slack: SignedSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    listener = message_callback(slack.services).__code__
    handed_off: list[tuple[list[str], CodeType]] = []
    """Each task the listener starts: the calls leading to it, and the task's code."""
    requests: list[list[str]] = []
    """Each model request: the calls from a task the listener started down to it."""
    start, send = InFlight.start, httpx.AsyncClient.send

    def tracing_start(self: InFlight, work: Coroutine[Any, Any, Any]) -> Any:
        if leading := calls_up_to(inspect.currentframe(), listener):
            handed_off.append((leading[:-1], work.cr_code))
        return start(self, work)

    async def tracing_send(self: httpx.AsyncClient, request: httpx.Request, **kwargs: Any) -> Any:
        if request.url.path.endswith("/chat/completions"):
            for leading, task in handed_off:
                if calls := calls_up_to(inspect.currentframe(), task):
                    requests.append([*leading, *calls[:-1], "httpx.AsyncClient.send"])
        return await send(self, request, **kwargs)

    monkeypatch.setattr(InFlight, "start", tracing_start)
    monkeypatch.setattr(httpx.AsyncClient, "send", tracing_send)

    await slack.ask_in_dm("how do I rotate the staging password?")

    [chain] = requests
    assert chain[0] == listener.co_qualname
    assert len(chain) - 1 <= MOST_HOPS, " -> ".join(chain)
