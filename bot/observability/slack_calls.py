"""Timing every Slack Web API call through the aiohttp session the Slack client uses."""

from __future__ import annotations

import time
from types import SimpleNamespace

import aiohttp

from bot.observability.events import current_event
from bot.observability.metrics import BotMetrics

__all__ = ["slack_call_tracing"]


def slack_call_tracing(metrics: BotMetrics) -> aiohttp.TraceConfig:
    """A trace config for ``aiohttp.ClientSession(trace_configs=[...])``: each request's
    duration goes to ``bot_slack_call_seconds`` and to the current event's ``slack`` phase."""
    config = aiohttp.TraceConfig()

    async def started(
        session: aiohttp.ClientSession, context: SimpleNamespace, params: object
    ) -> None:
        context.started = time.perf_counter()

    async def ended(
        session: aiohttp.ClientSession, context: SimpleNamespace, params: object
    ) -> None:
        seconds = time.perf_counter() - getattr(context, "started", time.perf_counter())
        metrics.slack_seconds.observe(seconds)
        if (record := current_event()) is not None:
            record.add("slack", seconds)

    config.on_request_start.append(started)
    config.on_request_end.append(ended)
    config.on_request_exception.append(ended)
    return config
