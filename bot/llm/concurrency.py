"""A bound on model requests in flight: at most ``limit`` at once, the rest wait their turn.

Answers, reflection and consolidation share one model; without a bound their requests pile
up in httpx's connection pool, and the overflow fails as "model unavailable".
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing

from bot.agent.messages import Completion, CompletionRequest, Delta
from bot.agent.provider import Provider

__all__ = ["BoundedProvider"]


class BoundedProvider:
    """Passes requests to ``provider``, at most ``limit`` at a time (a stream holds its
    slot until it ends)."""

    def __init__(self, provider: Provider, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self._provider = provider
        self._slots = asyncio.Semaphore(limit)

    async def complete(self, request: CompletionRequest) -> Completion:
        async with self._slots:
            return await self._provider.complete(request)

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        async with self._slots, aclosing(self._provider.stream(request)) as deltas:
            async for delta in deltas:
                yield delta
