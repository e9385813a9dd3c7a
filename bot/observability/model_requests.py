"""Timing each model request and counting its failures, by kind."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from bot.agent.provider import ModelUnavailable
from bot.llm import ModelRequestRejected
from bot.observability.events import current_event
from bot.observability.metrics import BotMetrics

__all__ = ["ModelRequests", "model_error_kind"]


def model_error_kind(error: ModelUnavailable) -> str:
    """``auth`` (401/403), ``not_found`` (404: the model or the path), ``rejected`` (another
    4xx), or ``unavailable`` (down, overloaded or slow after the retries)."""
    if not isinstance(error, ModelRequestRejected):
        return "unavailable"
    if error.status in (401, 403):
        return "auth"
    return "not_found" if error.status == 404 else "rejected"


class ModelRequests:
    """Measures model requests: each one's duration (in the metrics and the current event)
    and each failure's kind; ``last_error`` is the latest failure. The provider runs each
    request inside :meth:`measured`."""

    def __init__(self, metrics: BotMetrics | None = None) -> None:
        self._metrics = metrics or BotMetrics()
        self.last_error: ModelUnavailable | None = None

    @contextmanager
    def measured(self) -> Iterator[None]:
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
