"""``GET /metrics`` (Prometheus text format) and ``GET /readyz`` (the database answers).

Readiness is the database's alone: the model's state is a detail of ``/healthz`` and the
``bot_model_up`` metric (:mod:`bot.observability.model_health`), since a replica whose model
is down still serves votes, ``/forget`` and ``/memory``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST
from pydantic import BaseModel

if TYPE_CHECKING:
    from bot.app import Bot

__all__ = ["METRICS_PATH", "READY_PATH", "Readiness", "add_operator_routes", "check_readiness"]

METRICS_PATH = "/metrics"
READY_PATH = "/readyz"
STORE_CHECK_SECONDS = 5.0

Handler = Callable[[web.Request], Awaitable[web.Response]]


class Readiness(BaseModel):
    """The ``/readyz`` body: ``ok`` when the database answers a read; otherwise ``store``
    says what is wrong, in a few words."""

    ok: bool
    store: str


async def check_readiness(bot: Bot) -> Readiness:
    services = bot.services
    if services is None:
        return Readiness(ok=False, store="starting")
    try:
        await asyncio.wait_for(services.memory.ping(), STORE_CHECK_SECONDS)
    except Exception as error:  # any failure to read the store means not ready
        return Readiness(ok=False, store=f"unreadable ({type(error).__name__})")
    return Readiness(ok=True, store="ok")


def _metrics_handler(bot: Bot) -> Handler:
    async def metrics(request: web.Request) -> web.Response:
        return web.Response(
            body=bot.metrics.render(), headers={"Content-Type": CONTENT_TYPE_LATEST}
        )

    return metrics


def _ready_handler(bot: Bot) -> Handler:
    async def ready(request: web.Request) -> web.Response:
        readiness = await check_readiness(bot)
        return web.json_response(readiness.model_dump(), status=200 if readiness.ok else 503)

    return ready


def add_operator_routes(web_app: web.Application, bot: Bot) -> None:
    """Add ``GET /metrics`` and ``GET /readyz`` to ``web_app``."""
    web_app.router.add_get(METRICS_PATH, _metrics_handler(bot))
    web_app.router.add_get(READY_PATH, _ready_handler(bot))
