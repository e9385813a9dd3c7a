"""Serving a fake on 127.0.0.1: its aiohttp app on a free port, as the tests start it."""

from __future__ import annotations

from typing import Any

from aiohttp import web

__all__ = ["LocalServer", "serve_locally"]


async def serve_locally(app: web.Application, **runner_options: Any) -> tuple[web.AppRunner, str]:
    """Start ``app`` on a free port of 127.0.0.1: its runner (clean it up to stop) and its
    root URL, ``http://127.0.0.1:PORT``."""
    runner = web.AppRunner(app, **runner_options)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    return runner, f"http://{host}:{port}"


class LocalServer:
    """The local server of a fake used with ``async with``: its app served by :meth:`start`
    until :meth:`stop`, and its root URL meanwhile."""

    def __init__(self, owner: str) -> None:
        self._owner = owner
        """The fake's name, for the error of asking its URL while it is not running."""
        self._runner: web.AppRunner | None = None
        self._url: str | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` while running."""
        if self._url is None:
            raise RuntimeError(f"{self._owner} is not running; use it with 'async with'")
        return self._url

    async def start(self, app: web.Application, **runner_options: Any) -> None:
        self._runner, self._url = await serve_locally(app, **runner_options)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        self._runner = self._url = None
