"""``GET /metrics`` (Prometheus text format) and ``GET /readyz`` (the store and the model)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST
from pydantic import BaseModel

from bot.composition import probe_configured_model

if TYPE_CHECKING:
    from bot.app import Bot

__all__ = ["METRICS_PATH", "READY_PATH", "Readiness", "add_operator_routes", "check_readiness"]

METRICS_PATH = "/metrics"
READY_PATH = "/readyz"
STORE_CHECK_SECONDS = 5.0

Handler = Callable[[web.Request], Awaitable[web.Response]]


class Readiness(BaseModel):
    """The ``/readyz`` body: ``ok`` when the store answers and the model endpoint serves
    the configured model; otherwise each check says what is wrong, in a few words."""

    ok: bool
    store: str
    model: str


async def check_readiness(bot: Bot) -> Readiness:
    services = bot.services
    if services is None:
        return Readiness(ok=False, store="starting", model="starting")
    store = "ok"
    try:
        await asyncio.wait_for(services.memory.ping(), STORE_CHECK_SECONDS)
    except Exception as error:  # any failure to read the store means not ready
        store = f"unreadable ({type(error).__name__})"
    status = await probe_configured_model(bot.settings)
    model = status.problem or "ok"
    return Readiness(ok=store == "ok" and status.ok, store=store, model=model)


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
