"""Serving the bot: HTTP (POST /slack/events) or Socket Mode, plus GET /healthz, /readyz, /metrics.

Requests are checked before Bolt sees them (:mod:`bot.request_gate`), so that nothing
malformed reaches a listener and nothing a client sends can make the server answer 500:
an unsigned, forged or stale request gets 401, a body that is not a Slack payload gets
4xx, each with one log line that says why without quoting the request.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
from collections.abc import Awaitable, Callable

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier

from bot.app import Bot
from bot.composition import probe_configured_model
from bot.config import Settings
from bot.logging_setup import exception_trace
from bot.observability.routes import add_operator_routes
from bot.observability.startup import announce_model
from bot.request_gate import payload_problem, signature_headers_problem
from bot.socket_mode import connect_socket_mode

__all__ = [
    "EVENTS_PATH",
    "HEALTH_PATH",
    "CannotListen",
    "HttpServer",
    "SocketModeServer",
    "add_oauth_routes",
    "build_health_app",
    "build_web_app",
    "serve",
]

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
INSTALL_FAILED = "The installation could not be completed right now; please try again in a minute."
ACCEPTED_CONTENT_TYPES = frozenset({"application/json", "application/x-www-form-urlencoded"})


def _health_handler(bot: Bot) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def health(request: web.Request) -> web.Response:
        if bot.ready:  # whatever the model's state: the bot serves votes, /forget, /memory
            report = bot.model_health.report().model_dump(mode="json")
            return web.json_response({"ok": True, **report})
        return web.json_response({"ok": False, "error": "starting"}, status=503)

    return health


def build_health_app(bot: Bot) -> web.Application:
    """``GET /healthz``, ``/readyz`` and ``/metrics``: what Socket Mode serves over HTTP."""
    web_app = web.Application()
    web_app.router.add_get(HEALTH_PATH, _health_handler(bot))
    add_operator_routes(web_app, bot)
    return web_app


def build_web_app(bot: Bot) -> web.Application:
    """``POST /slack/events`` (checked, then dispatched to Bolt), ``GET /healthz``,
    ``/readyz`` and ``/metrics``."""
    verifier = SignatureVerifier(bot.settings.slack_signing_secret.get_secret_value())

    async def events(request: web.Request) -> web.Response:
        if not bot.ready:
            return web.json_response({"error": "not ready"}, status=503)
        if request.content_type not in ACCEPTED_CONTENT_TYPES:
            return web.json_response({"error": "unsupported content type"}, status=415)
        try:
            raw = await request.read()
        except web.HTTPException:
            raise  # too large: aiohttp answers 413 itself
        except Exception as error:  # a body that ends before its Content-Length, say
            return _reject(400, f"unreadable body ({type(error).__name__})")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return _reject(400, "body is not UTF-8")
        if not _signed(verifier, text, request):
            return _reject(401, "bad or stale signature (from Slack? check SLACK_SIGNING_SECRET)")
        try:
            bolt_request = AsyncBoltRequest(
                body=text,
                query=request.query_string,
                headers=dict(request.headers),
            )
        except Exception as error:  # Bolt assumes a JSON object; anything else is garbage
            return _reject(400, f"unparseable body ({type(error).__name__})")
        problem = payload_problem(bolt_request.body)
        if problem is not None:
            return _reject(400, problem)
        try:
            response = await bot.app.async_dispatch(bolt_request)
        except Exception as error:
            return _reject(400, f"payload could not be handled ({exception_trace(error)})")
        return await to_aiohttp_response(response)

    web_app = web.Application(client_max_size=1024**2)
    web_app.router.add_post(EVENTS_PATH, events)
    if bot.settings.oauth_mode:
        add_oauth_routes(web_app, bot)
    web_app.router.add_get(HEALTH_PATH, _health_handler(bot))
    add_operator_routes(web_app, bot)
    return web_app


def add_oauth_routes(web_app: web.Application, bot: Bot) -> None:
    """``GET /slack/install`` (the page with the *Add to Slack* link, and the state cookie)
    and ``GET /slack/oauth_redirect`` (where Slack sends the installer back), by Bolt's
    OAuth flow."""
    flow = bot.app.oauth_flow
    assert flow is not None

    async def oauth(request: web.Request) -> web.Response:
        if not bot.ready:
            return web.json_response({"error": "not ready"}, status=503)
        bolt_request = AsyncBoltRequest(
            body="", query=request.query_string, headers=dict(request.headers)
        )
        start = request.path == flow.install_path
        try:
            if start:
                response = await flow.handle_installation(bolt_request)
            else:
                response = await flow.handle_callback(bolt_request)
        except Exception as error:  # the database (or Slack) is down: try again later
            log.error("the OAuth flow failed (%s)", exception_trace(error))
            return web.Response(status=503, text=INSTALL_FAILED)
        return await to_aiohttp_response(response)

    web_app.router.add_get(flow.install_path, oauth)
    web_app.router.add_get(flow.redirect_uri_path, oauth)


def _signed(verifier: SignatureVerifier, body: str, request: web.Request) -> bool:
    timestamps = request.headers.getall("X-Slack-Request-Timestamp", [])
    signatures = request.headers.getall("X-Slack-Signature", [])
    if len(timestamps) != 1 or len(signatures) != 1:  # Bolt would check another copy
        return False
    timestamp, signature = timestamps[0], signatures[0]
    if signature_headers_problem(timestamp, signature) is not None:
        return False
    return verifier.is_valid(body=body, timestamp=timestamp, signature=signature)


def _reject(status: int, reason: str) -> web.Response:
    log.info("rejected a request with %d: %s", status, reason)
    return web.json_response({"error": reason}, status=status)


class CannotListen(Exception):
    """The server could not take its port; the message is one line saying why."""

    def __init__(self, port: int, error: OSError) -> None:
        if error.errno == errno.EADDRINUSE:
            why = "is already in use (another bot or playground?)"
        elif error.errno == errno.EACCES:
            why = "needs privileges this user lacks (use a port above 1023)"
        else:
            why = f"cannot be listened on ({error.strerror or type(error).__name__})"
        super().__init__(f"port {port} {why}")
        self.port = port


class _Site:
    """An aiohttp application listening on ``host:port`` (port 0: any free port)."""

    def __init__(self, web_app: web.Application, *, host: str, port: int) -> None:
        self._runner = web.AppRunner(web_app, access_log=None)
        self._host = host
        self._port = port
        self.url = ""

    async def start(self) -> None:
        """Listen; :class:`CannotListen` when the port is taken or forbidden."""
        await self._runner.setup()
        try:
            await web.TCPSite(self._runner, self._host, self._port).start()
        except OSError as error:
            await self._runner.cleanup()
            raise CannotListen(self._port, error) from None
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    async def stop(self) -> None:
        await self._runner.cleanup()


class HttpServer:
    """The bot behind aiohttp: listening (503) first, then ready once the bot started."""

    def __init__(self, bot: Bot, *, host: str, port: int, grace_seconds: float = 10.0) -> None:
        self.bot = bot
        self._host = host
        self._port = port
        self._grace_seconds = grace_seconds
        self._runner: _Site | None = None
        self.url = ""

    async def start(self) -> None:
        self._runner = _Site(build_web_app(self.bot), host=self._host, port=self._port)
        await self._runner.start()
        self.url = self._runner.url
        try:
            await self.bot.start()
        except BaseException:
            await self.bot.stop(0)
            await self._runner.stop()
            raise
        log.info(
            "listening on %s in HTTP mode: Slack must send events, commands and clicks to "
            "https://<your host>%s (Socket Mode instead: set SLACK_APP_TOKEN)",
            self.url,
            EVENTS_PATH,
        )

    async def stop(self) -> None:
        """Stop taking events (503, so Slack retries later), finish answers, close."""
        await self.bot.stop(self._grace_seconds)
        if self._runner is not None:
            await self._runner.stop()
            self._runner = None

    async def __aenter__(self) -> HttpServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()


class SocketModeServer:
    """The bot over Socket Mode: events arrive on a WebSocket it opens with the app token."""

    def __init__(
        self,
        bot: Bot,
        *,
        app_token: str,
        host: str | None = None,
        port: int | None = None,
        grace_seconds: float = 10.0,
    ) -> None:
        """With ``host`` and ``port``, ``GET /healthz`` is served there too."""
        self.bot = bot
        self._app_token = app_token
        self._grace_seconds = grace_seconds
        self._handler: AsyncSocketModeHandler | None = None
        self._health = (
            _Site(build_health_app(bot), host=host, port=port)
            if host is not None and port is not None
            else None
        )

    @property
    def health_url(self) -> str:
        return self._health.url if self._health is not None else ""

    async def start(self) -> None:
        if self._health is not None:
            await self._health.start()
        try:
            await self.bot.start()
            self._handler = AsyncSocketModeHandler(self.bot.app, self._app_token)
            await connect_socket_mode(self._handler)
        except BaseException:
            await self.stop()
            raise
        log.info("connected in Socket Mode")

    async def stop(self) -> None:
        """Close the socket (Slack redelivers elsewhere), then finish answers and close."""
        if self._handler is not None:
            await self._handler.close_async()
            self._handler = None
        await self.bot.stop(self._grace_seconds)
        if self._health is not None:
            await self._health.stop()

    async def __aenter__(self) -> SocketModeServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()


async def serve(settings: Settings, *, grace_seconds: float = 6.0) -> None:
    """Run until SIGTERM or SIGINT: Socket Mode with an app token, else HTTP on ``$PORT``.

    A signal during start-up abandons it at once (what was opened is closed); after it, answers
    in flight get ``grace_seconds`` to finish."""
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    bot = Bot(settings)
    server: HttpServer | SocketModeServer
    if settings.slack_app_token is not None and settings.socket_mode:
        app_token = settings.slack_app_token.get_secret_value()
        server = SocketModeServer(
            bot,
            app_token=app_token,
            host="0.0.0.0",
            port=settings.port,
            grace_seconds=grace_seconds,
        )
    else:
        server = HttpServer(bot, host="0.0.0.0", port=settings.port, grace_seconds=grace_seconds)
    if not await _started(
        stopping, lambda: announce_model(settings, probe_configured_model(settings)), server.start
    ):
        log.info("stopped during start-up")
        return
    try:
        await stopping.wait()
    finally:
        await server.stop()
    log.info("stopped")


async def _started(stopping: asyncio.Event, *steps: Callable[[], Awaitable[object]]) -> bool:
    """Run ``steps`` in order; False as soon as ``stopping`` is set (the step in progress is
    cancelled, and cleans up after itself)."""

    async def run_steps() -> None:
        for step in steps:
            await step()

    starting = asyncio.ensure_future(run_steps())
    signalled = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({starting, signalled}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        signalled.cancel()
    if starting.done():
        starting.result()  # a start-up failure propagates
        return True
    starting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await starting
    return False
