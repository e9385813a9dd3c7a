"""A :class:`Provider` wrapper that times each model request and counts its failures."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing, contextmanager

from bot.agent.messages import Completion, CompletionRequest, Delta
from bot.agent.provider import ModelUnavailable, Provider
from bot.llm import ModelRequestRejected
from bot.observability.events import current_event
from bot.observability.metrics import BotMetrics

__all__ = ["MeasuredProvider", "model_error_kind"]


def model_error_kind(error: ModelUnavailable) -> str:
    """``auth`` (401/403), ``not_found`` (404: the model or the path), ``rejected`` (another
    4xx), or ``unavailable`` (down, overloaded or slow after the retries)."""
    if not isinstance(error, ModelRequestRejected):
        return "unavailable"
    if error.status in (401, 403):
        return "auth"
    return "not_found" if error.status == 404 else "rejected"


class MeasuredProvider:
    """Passes requests to ``provider``; records each one's duration (in the metrics and the
    current event) and each failure's kind. ``last_error`` is the latest failure."""

    def __init__(self, provider: Provider, metrics: BotMetrics | None = None) -> None:
        self._provider = provider
        self._metrics = metrics or BotMetrics()
        self.last_error: ModelUnavailable | None = None

    async def complete(self, request: CompletionRequest) -> Completion:
        with self._measured():
            return await self._provider.complete(request)

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        with self._measured():
            async with aclosing(self._provider.stream(request)) as deltas:
                async for delta in deltas:
                    yield delta

    @contextmanager
    def _measured(self) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        except ModelUnavailable as error:
            self.last_error = error
            self._metrics.model_errors.labels(kind=model_error_kind(error)).inc()
            raise
        finally:
            seconds = time.perf_counter() - started
            self._metrics.model_seconds.observe(seconds)
            if (record := current_event()) is not None:
                record.add("model", seconds)
