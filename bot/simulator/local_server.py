"""Serving a fake on 127.0.0.1: its aiohttp app on a free port, as the tests start it."""

from __future__ import annotations

from typing import Any

from aiohttp import web

__all__ = ["serve_locally"]


async def serve_locally(app: web.Application, **runner_options: Any) -> tuple[web.AppRunner, str]:
    """Start ``app`` on a free port of 127.0.0.1: its runner (clean it up to stop) and its
    root URL, ``http://127.0.0.1:PORT``."""
    runner = web.AppRunner(app, **runner_options)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    return runner, f"http://{host}:{port}"
