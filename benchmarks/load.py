"""Sending signed requests to the bot from another process, as Slack would.

The load generator runs in its own process, so the bot's event loop (and the database
thread sharing its interpreter) has a core to itself and a slow client cannot hide a slow
server. Requests are signed in the benchmark process with the test suite's :func:`sign`;
the child only posts them, a bounded number, with bounded concurrency, to 127.0.0.1.
Measurements start after the child is up, and a warm-up send can come first.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import aiohttp
from pydantic import BaseModel

from bot.server import EVENTS_PATH
from tests.support.harness import SignedSlack, sign

__all__ = ["LoadGenerator", "LoadResult", "SignedRequest", "signed_events"]


class SignedRequest(BaseModel):
    body: str
    headers: dict[str, str]


class LoadResult(BaseModel):
    """When sending began and ended, and each request's time to its response.

    Times are ``time.perf_counter()`` values, which on Linux read the system-wide monotonic
    clock, so the benchmark process can compare them with its own."""

    started_at: float
    finished_at: float
    latencies_ms: list[float]
    statuses: dict[int, int]
    cpu_seconds: float
    """CPU time the load generator's process spent sending them."""

    @property
    def elapsed_seconds(self) -> float:
        return self.finished_at - self.started_at

    @property
    def per_second(self) -> float:
        return len(self.latencies_ms) / self.elapsed_seconds

    @property
    def all_ok(self) -> bool:
        return set(self.statuses) == {200}


def signed_events(slack: SignedSlack, events: list[dict[str, Any]]) -> list[SignedRequest]:
    """``event_callback`` envelopes of ``events``, signed as Slack signs them."""
    requests = []
    for event in events:
        body = json.dumps(slack.envelope(event))
        requests.append(
            SignedRequest(body=body, headers={"Content-Type": "application/json", **sign(body)})
        )
    return requests


async def _send_all(
    url: str, requests: list[SignedRequest], concurrency: int, rate: float | None
) -> LoadResult:
    """Closed loop (``rate`` None): ``concurrency`` senders, each sending its next request
    as soon as the last was answered. Open loop: request ``i`` leaves at ``i / rate``
    seconds whatever is still waiting (up to ``concurrency`` connections), as events do."""
    cpu_before = time.process_time()
    latencies: list[float] = [0.0] * len(requests)
    statuses: Counter[int] = Counter()
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def send(index: int, request: SignedRequest) -> None:
            started = time.perf_counter()
            async with session.post(url, data=request.body, headers=request.headers) as reply:
                await reply.read()
                statuses[reply.status] += 1
            latencies[index] = (time.perf_counter() - started) * 1000

        queue = iter(enumerate(requests))

        async def sender() -> None:
            for index, request in queue:
                await send(index, request)

        started = time.perf_counter()
        if rate is None:
            await asyncio.gather(*(sender() for _ in range(concurrency)))
        else:
            sent = []
            for index, request in enumerate(requests):
                await asyncio.sleep(max(0.0, started + index / rate - time.perf_counter()))
                sent.append(asyncio.create_task(send(index, request)))
            await asyncio.gather(*sent)
        finished = time.perf_counter()
    return LoadResult(
        started_at=started,
        finished_at=finished,
        latencies_ms=latencies,
        statuses=dict(statuses),
        cpu_seconds=time.process_time() - cpu_before,
    )


def _send_all_in_child(url: str, payload: str, concurrency: int, rate: float | None) -> str:
    requests = [SignedRequest.model_validate(item) for item in json.loads(payload)]
    return asyncio.run(_send_all(url, requests, concurrency, rate)).model_dump_json()


def _ready() -> bool:
    return True


class LoadGenerator:
    """A child process posting signed requests to the bot's events URL.

    ``async with LoadGenerator(url) as load: await load.send(requests, concurrency=20)``;
    the process starts (and imports what it needs) on entry, so a measurement does not
    include that, and several sends (a warm-up, then the measured one) share it. Waiting
    for a send does not block this event loop, which serves the bot."""

    def __init__(self, server_url: str) -> None:
        self._url = f"{server_url}{EVENTS_PATH}"
        self._pool: ProcessPoolExecutor | None = None

    async def __aenter__(self) -> LoadGenerator:
        context = multiprocessing.get_context("spawn")
        self._pool = ProcessPoolExecutor(max_workers=1, mp_context=context)
        await asyncio.get_running_loop().run_in_executor(self._pool, _ready)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    async def send(
        self, requests: list[SignedRequest], *, concurrency: int, rate: float | None = None
    ) -> LoadResult:
        """Post every request: closed loop, or open loop at ``rate`` requests a second."""
        if self._pool is None:
            raise RuntimeError("use LoadGenerator with 'async with'")
        payload = json.dumps([request.model_dump() for request in requests])
        raw = await asyncio.get_running_loop().run_in_executor(
            self._pool, _send_all_in_child, self._url, payload, concurrency, rate
        )
        return LoadResult.model_validate_json(raw)
