"""A fake Slack Web API: a real HTTP server on 127.0.0.1 that tests point the bot at.

It implements the methods the bot calls, answers Slack-shaped JSON, checks the bearer
token, records every call, keeps messages per channel (so ``conversations.replies``
returns threads), assembles streamed messages (markdown and ``task_update`` chunks), keeps
what the ``assistant.threads.*`` methods set (status, title, suggested prompts), expires
streams after ``stream_lifetime`` seconds as Slack does (``message_not_in_streaming_state``),
and lets a test inject errors or make the streaming API unavailable. Like httpx's
``MockTransport``, it ships beside the real thing so tests exercise the same code path as
production.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from contextvars import ContextVar
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import WSMsgType, web
from pydantic import BaseModel, Field

from bot.simulator.local_server import serve_locally

__all__ = [
    "FakeFile",
    "FakeInstall",
    "FakeMessage",
    "FakeSlackWebAPI",
    "FakeWorkspace",
    "InjectedError",
    "RecordedCall",
    "SuggestedPrompts",
    "permalink",
]

TEXT_LIMIT = 40_000
"""Slack rejects ``text`` longer than this with ``msg_too_long``."""
MARKDOWN_CHUNK_LIMIT = 12_000
"""The documented limit of ``markdown_text`` per streaming call."""

STREAM_METHODS = frozenset({"chat.startStream", "chat.appendStream", "chat.stopStream"})
TASK_STATUSES = frozenset({"pending", "in_progress", "complete", "error"})
"""The documented statuses of a ``task_update`` chunk."""
LOADING_MESSAGES_LIMIT = 10
"""assistant.threads.setStatus takes at most ten ``loading_messages``."""
SUGGESTED_PROMPTS_LIMIT = 4
"""assistant.threads.setSuggestedPrompts sets up to four prompts."""


class RecordedCall(BaseModel):
    method: str
    args: dict[str, Any]
    token: str | None = None
    """The bearer token the call was made with."""


class FakeInstall(BaseModel):
    """The app installed in one workspace through the OAuth flow (``oauth.v2.access``)."""

    team_id: str
    enterprise_id: str | None = None
    bot_user_id: str
    bot_id: str
    installer: str
    org_wide: bool = False
    """Installed for a whole Enterprise Grid org (``team_id`` is then the org's id)."""
    token: str = ""
    refresh_token: str | None = None
    expires_at: float | None = None
    """When ``token`` stops working (``time.time()``), with token rotation."""


class FakeMessage(BaseModel):
    channel: str
    ts: str
    text: str = ""
    user: str
    bot_id: str | None = None
    thread_ts: str | None = None
    streaming: bool = False
    started_at: float | None = None
    """When its stream started (``time.monotonic()``), while it streams."""
    blocks: Any = None
    tasks: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """The latest ``task_update`` chunk of each task id streamed into it."""
    files: list[dict[str, Any]] = Field(default_factory=list)
    """The files attached to it, as Slack lists them (:meth:`FakeSlackWebAPI.add_file`)."""

    @property
    def by_bot(self) -> bool:
        return self.bot_id is not None

    def as_slack(self) -> dict[str, Any]:
        shaped: dict[str, Any] = {"type": "message", "user": self.user, "text": self.text}
        shaped["ts"] = self.ts
        if self.thread_ts is not None:
            shaped["thread_ts"] = self.thread_ts
        if self.bot_id is not None:
            shaped["bot_id"] = self.bot_id
        if self.files:
            shaped["files"] = self.files
        return shaped


class FakeFile(BaseModel):
    """A file someone uploaded, served at its ``url_private`` to the bot token."""

    id: str
    name: str
    mimetype: str
    data: bytes = Field(repr=False)
    status: int = 200
    """What a download answers: 200 (the bytes), or an error status such as 404."""
    delay_seconds: float = 0.0
    """How long a download waits before answering (a slow file)."""


class SuggestedPrompts(BaseModel):
    """What an ``assistant.threads.setSuggestedPrompts`` call set."""

    channel_id: str
    thread_ts: str | None
    title: str | None
    prompts: list[dict[str, str]]


class InjectedError(BaseModel):
    """What the next ``times`` calls of a method answer instead of succeeding."""

    error: str
    status: int = 200
    retry_after: int | None = None
    times: int | None = Field(default=1, description="None: every call from now on")


Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]

_caller: ContextVar[FakeInstall | None] = ContextVar("fake_slack_caller", default=None)
"""The installation whose token made the call being answered (None: the single token)."""


def _blocks(value: Any) -> Any:
    """Blocks as sent: a JSON body carries a list, a form body a JSON string."""
    return json.loads(value) if isinstance(value, str) else value


def _valid_chunk(chunk: Any) -> bool:
    """A streaming chunk as documented: markdown text, or a task update with its fields."""
    if not isinstance(chunk, dict):
        return False
    if chunk.get("type") == "markdown_text":
        return isinstance(chunk.get("text"), str)
    if chunk.get("type") == "task_update":
        return (
            bool(chunk.get("id"))
            and bool(chunk.get("title"))
            and chunk.get("status") in TASK_STATUSES
        )
    return False


class FakeSlackWebAPI:
    """``async with FakeSlackWebAPI() as slack:`` then point a client at ``slack.base_url``."""

    def __init__(
        self,
        *,
        token: str = "xoxb-fake-token",
        app_token: str = "xapp-fake-app-token",
        team_id: str = "T0000TEST",
        bot_user_id: str = "U0000BOT",
        bot_id: str = "B0000BOT",
        streaming_available: bool = True,
        stream_lifetime: float | None = None,
        placeholder_texts: Iterable[str] = (),
        client_id: str = "1111.2222",
        client_secret: str = "fake-client-secret",
        token_lifetime: int | None = None,
    ) -> None:
        self.token = token
        self.client_id = client_id
        self.client_secret = client_secret
        self.token_lifetime = token_lifetime
        """Seconds an installation's token lives (token rotation); None: rotation is off."""
        self.installs: dict[str, FakeInstall] = {}
        """The app's installations, by workspace (an org-wide one by its enterprise)."""
        self._codes: dict[str, FakeInstall] = {}
        self.issued: list[str] = []
        """Every code, token and refresh token the OAuth side handed out, in order."""
        self.enterprise_id: str | None = None
        self.is_enterprise_install = False
        """Whether the events of the fake's single token come from an org-wide install."""
        self.app_token = app_token
        self.team_id = team_id
        self.bot_user_id = bot_user_id
        self.bot_id = bot_id
        self._latency_seconds = 0.0
        self._latency_changed = asyncio.Event()
        self.streaming_available = streaming_available
        self.stream_lifetime = stream_lifetime
        """Seconds a stream stays open; later calls get ``message_not_in_streaming_state``."""
        self.socket_url: str | None = None
        """The Socket Mode URL apps.connections.open hands out (None: this server's own)."""
        self.statuses: dict[tuple[str, str], str] = {}
        """The thinking status of each (channel, thread), as last set ("" cleared it)."""
        self.titles: dict[tuple[str, str], str] = {}
        """The title of each assistant (channel, thread)."""
        self.suggested_prompts: list[SuggestedPrompts] = []
        """Every set of suggested prompts, in order."""
        self.placeholder_texts = frozenset(placeholder_texts)
        """Texts of "thinking" placeholders: a message showing one is not final yet."""
        self.refused_block_types: set[str] = set()
        """Block types answered with ``invalid_blocks`` (a workspace without them)."""
        self.calls: list[RecordedCall] = []
        self.responses: list[dict[str, Any]] = []
        """What the bot posted to response URLs (``respond()``), in order."""
        self._response_ids = itertools.count(1)
        self.messages: dict[str, list[FakeMessage]] = {}
        self.files: dict[str, FakeFile] = {}
        self.file_downloads: list[str] = []
        """The id of each file downloaded with the bot token, in order."""
        self._file_ids = itertools.count(1)
        self._closing = asyncio.Event()
        self.users: dict[str, dict[str, Any]] = {}
        self._errors: dict[str, InjectedError] = {}
        self._held: dict[str, asyncio.Event] = {}
        self._last_micros = 0
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.base_url = ""
        self._socket: web.WebSocketResponse | None = None
        self._socket_connected = asyncio.Event()
        self._envelope_acks: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._envelope_ids = itertools.count(1)
        self._handlers: dict[str, Handler] = {
            "auth.test": self._auth_test,
            "oauth.v2.access": self._oauth_access,
            "chat.postMessage": self._post_message,
            "chat.update": self._update,
            "chat.delete": self._delete,
            "chat.startStream": self._start_stream,
            "chat.appendStream": self._append_stream,
            "chat.stopStream": self._stop_stream,
            "chat.postEphemeral": self._post_ephemeral,
            "conversations.replies": self._replies,
            "users.info": self._users_info,
            "assistant.threads.setStatus": self._set_status,
            "assistant.threads.setTitle": self._set_title,
            "assistant.threads.setSuggestedPrompts": self._set_suggested_prompts,
            "views.publish": self._ok,
            "views.open": self._open_view,
            "chat.getPermalink": self._permalink,
            "reactions.add": self._ok,
            "apps.connections.open": self._connections_open,
        }

    # -- lifecycle -------------------------------------------------------------------------
    async def __aenter__(self) -> FakeSlackWebAPI:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._dispatch)
        app.router.add_post("/respond/{id}", self._respond)
        app.router.add_get("/socket", self._socket_session)
        app.router.add_get("/files-pri/{team_file}/{name}", self._file)
        self._runner, root = await serve_locally(app, access_log=None)
        self.base_url = f"{root}/api/"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._closing.set()
        if self._socket is not None:
            await self._socket.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- what tests set up -----------------------------------------------------------------
    @property
    def latency_seconds(self) -> float:
        """How long every Web API call waits before it is answered (a slow Slack); lowering
        it shortens the wait of calls already waiting."""
        return self._latency_seconds

    @latency_seconds.setter
    def latency_seconds(self, seconds: float) -> None:
        self._latency_seconds = seconds
        self._latency_changed.set()
        self._latency_changed = asyncio.Event()

    def next_ts(self) -> str:
        """A fresh ts as Slack makes them: the wall-clock time, unique and increasing."""
        self._last_micros = max(self._last_micros + 1, time.time_ns() // 1000)
        seconds, micros = divmod(self._last_micros, 1_000_000)
        return f"{seconds}.{micros:06d}"

    def add_user_message(
        self,
        channel: str,
        text: str,
        *,
        user: str,
        thread_ts: str | None = None,
        files: list[dict[str, Any]] | None = None,
    ) -> FakeMessage:
        """A message a person wrote, so that ``conversations.replies`` can return it."""
        message = FakeMessage(
            channel=channel,
            ts=self.next_ts(),
            text=text,
            user=user,
            thread_ts=thread_ts,
            files=files or [],
        )
        self.messages.setdefault(channel, []).append(message)
        return message

    def add_file(
        self,
        name: str,
        data: bytes,
        *,
        mimetype: str,
        user: str = "U0000ALICE",
        size: int | None = None,
        status: int = 200,
        delay_seconds: float = 0.0,
    ) -> dict[str, Any]:
        """Upload a file: the entry Slack puts in a message event's ``files`` (``size``, when
        given, is what the entry claims instead of the data's length)."""
        file_id = f"F{next(self._file_ids):07d}"
        self.files[file_id] = FakeFile(
            id=file_id,
            name=name,
            mimetype=mimetype,
            data=data,
            status=status,
            delay_seconds=delay_seconds,
        )
        root = f"{self.base_url.removesuffix('api/')}files-pri/{self.team_id}-{file_id}"
        created = int(time.time())
        return {
            "id": file_id,
            "created": created,
            "timestamp": created,
            "name": name,
            "title": name,
            "mimetype": mimetype,
            "filetype": name.rpartition(".")[2].lower(),
            "user": user,
            "editable": False,
            "size": len(data) if size is None else size,
            "mode": "hosted",
            "is_external": False,
            "is_public": False,
            "url_private": f"{root}/{name}",
            "url_private_download": f"{root}/download/{name}",
            "permalink": f"https://fake.slack.test/files/{user}/{file_id}/{name}",
        }

    def add_user(self, user_id: str, *, name: str, real_name: str, tz: str = "UTC") -> None:
        self.users[user_id] = {"id": user_id, "name": name, "real_name": real_name, "tz": tz}

    def fail(
        self,
        method: str,
        error: str,
        *,
        times: int | None = 1,
        status: int = 200,
        retry_after: int | None = None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` fail (every call when ``times`` is None)."""
        self._errors[method] = InjectedError(
            error=error, status=status, retry_after=retry_after, times=times
        )

    def hold(self, method: str) -> asyncio.Event:
        """Make calls of ``method`` wait until the returned event is set."""
        return self._held.setdefault(method, asyncio.Event())

    # -- what tests inspect ----------------------------------------------------------------
    def calls_to(self, method: str) -> list[RecordedCall]:
        return [call for call in self.calls if call.method == method]

    def bot_messages(self, channel: str | None = None) -> list[FakeMessage]:
        channels = [channel] if channel is not None else list(self.messages)
        return [
            message
            for name in channels
            for message in self.messages.get(name, [])
            if message.by_bot
        ]

    def final_messages(self, channel: str | None = None) -> list[FakeMessage]:
        """Bot messages that are done: not streaming any more, not a thinking placeholder."""
        return [
            message
            for message in self.bot_messages(channel)
            if not message.streaming and message.text not in self.placeholder_texts
        ]

    def find(self, channel: str, ts: str) -> FakeMessage | None:
        return next((m for m in self.messages.get(channel, []) if m.ts == ts), None)

    async def wait_for(
        self,
        condition: Callable[[], bool],
        *,
        within: float = 5.0,
        what: str = "condition",
    ) -> None:
        """Wait until ``condition()`` holds after some call; fail the test after ``within`` s."""
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(condition), within)
            except TimeoutError:
                raise AssertionError(
                    f"fake Slack: timed out waiting for {what}; calls: "
                    f"{[call.method for call in self.calls]}"
                ) from None

    def response_url(self) -> str:
        """A fresh response URL, as Slack puts in a slash command or a click."""
        return f"{self.base_url.removesuffix('api/')}respond/{next(self._response_ids)}"

    async def wait_for_responses(self, count: int, *, within: float = 5.0) -> list[dict[str, Any]]:
        await self.wait_for(
            lambda: len(self.responses) >= count, within=within, what=f"{count} response(s)"
        )
        return self.responses

    async def _respond(self, request: web.Request) -> web.Response:
        self.responses.append(await request.json())
        async with self._changed:
            self._changed.notify_all()
        return web.Response(text="ok")

    async def wait_for_final_messages(
        self, count: int, *, channel: str | None = None, within: float = 5.0
    ) -> list[FakeMessage]:
        await self.wait_for(
            lambda: len(self.final_messages(channel)) >= count,
            within=within,
            what=f"{count} final bot message(s)",
        )
        return self.final_messages(channel)

    # -- HTTP ------------------------------------------------------------------------------
    async def _dispatch(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args = await self._read_args(request)
        authorization = request.headers.get("Authorization", "")
        token = (
            authorization.removeprefix("Bearer ") if authorization.startswith("Bearer ") else None
        )
        self.calls.append(RecordedCall(method=method, args=args, token=token))
        async with self._changed:
            self._changed.notify_all()
        if method in self._held:
            await self._held[method].wait()
        await self._slow(time.monotonic())
        try:
            return await self._answer(method, request, args)
        finally:
            async with self._changed:
                self._changed.notify_all()

    async def _slow(self, since: float) -> None:
        """Wait until a call made at ``since`` is :attr:`latency_seconds` old."""
        while (left := since + self._latency_seconds - time.monotonic()) > 0:
            changed = self._latency_changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), left)

    async def _answer(
        self, method: str, request: web.Request, args: dict[str, Any]
    ) -> web.Response:
        authorization = request.headers.get("Authorization", "")
        if method == "oauth.v2.access":
            if not self._client_authenticated(authorization, args):
                return web.json_response({"ok": False, "error": "invalid_client_id"})
        elif not authorization.startswith("Bearer "):
            return web.json_response({"ok": False, "error": "not_authed"})
        else:
            refused = self._refused_token(method, authorization.removeprefix("Bearer "))
            if refused is not None:
                return web.json_response({"ok": False, "error": refused})
        injected = self._take_error(method)
        if injected is not None:
            headers = {}
            if injected.retry_after is not None:
                headers["Retry-After"] = str(injected.retry_after)
            return web.json_response(
                {"ok": False, "error": injected.error}, status=injected.status, headers=headers
            )
        if method in STREAM_METHODS and not self.streaming_available:
            return web.json_response({"ok": False, "error": "unknown_method"})
        handler = self._handlers.get(method)
        if handler is None:
            return web.json_response({"ok": False, "error": "unknown_method"})
        refused = {block.get("type") for block in _blocks(args.get("blocks")) or []}
        if refused & self.refused_block_types:
            return web.json_response({"ok": False, "error": "invalid_blocks"})
        return web.json_response(await handler(args))

    def _refused_token(self, method: str, token: str) -> str | None:
        """Why a call with ``token`` is refused (None: it is accepted); an installation's
        token also names the caller for the handler."""
        if method == "apps.connections.open":
            return None if token == self.app_token else "invalid_auth"
        if token == self.token:
            return None
        install = next((i for i in self.installs.values() if i.token == token), None)
        if install is None:
            return "invalid_auth"
        if install.expires_at is not None and install.expires_at <= time.time():
            return "token_expired"
        _caller.set(install)
        return None

    def _client_authenticated(self, authorization: str, args: dict[str, Any]) -> bool:
        """The app's credentials, as HTTP Basic auth (as slack_sdk sends them) or in the body."""
        if authorization.startswith("Basic "):
            decoded = base64.b64decode(authorization.removeprefix("Basic ")).decode()
            client_id, _, client_secret = decoded.partition(":")
        else:
            client_id, client_secret = args.get("client_id", ""), args.get("client_secret", "")
        return (client_id, client_secret) == (self.client_id, self.client_secret)

    @staticmethod
    async def _read_args(request: web.Request) -> dict[str, Any]:
        args: dict[str, Any] = dict(request.query)
        body = await request.text()
        if not body:
            return args
        if request.content_type == "application/json":
            args.update(json.loads(body))
        else:
            args.update(dict(parse_qsl(body, keep_blank_values=True)))
        return args

    def _take_error(self, method: str) -> InjectedError | None:
        injected = self._errors.get(method)
        if injected is None:
            return None
        if injected.times is not None:
            injected.times -= 1
            if injected.times <= 0:
                del self._errors[method]
        return injected

    async def _file(self, request: web.Request) -> web.StreamResponse:
        """``url_private``: the file to a bot token (the single one, or an installation's).
        Like Slack, a request without a valid token gets the sign-in page (HTML, status
        200), not the file."""
        file = self.files.get(request.match_info["team_file"].rpartition("-")[2])
        if file is None:
            return web.Response(status=404, text="file not found")
        authorization = request.headers.get("Authorization", "")
        token = authorization.removeprefix("Bearer ")
        if not authorization.startswith("Bearer ") or self._refused_token("files", token):
            return web.Response(
                text="<!DOCTYPE html><title>Sign in | Slack</title>", content_type="text/html"
            )
        self.file_downloads.append(file.id)
        if file.delay_seconds:
            with contextlib.suppress(TimeoutError):  # the fake closing ends the wait early
                await asyncio.wait_for(self._closing.wait(), file.delay_seconds)
        if file.status != 200:
            return web.Response(status=file.status, text="error")
        return web.Response(body=file.data, content_type=file.mimetype)

    # -- Socket Mode -----------------------------------------------------------------------
    async def wait_for_socket(self, *, within: float = 5.0) -> None:
        """Wait until the bot has opened its Socket Mode connection."""
        try:
            await asyncio.wait_for(self._socket_connected.wait(), within)
        except TimeoutError:
            raise AssertionError("fake Slack: the bot never connected in Socket Mode") from None

    async def send_envelope(
        self, kind: str, payload: dict[str, Any], *, within: float = 5.0
    ) -> dict[str, Any]:
        """Deliver ``payload`` over the socket (``events_api``, ``slash_commands``,
        ``interactive``) and return the bot's acknowledgement."""
        assert self._socket is not None, "no Socket Mode connection"
        envelope_id = f"envelope-{next(self._envelope_ids)}"
        acked = asyncio.get_running_loop().create_future()
        self._envelope_acks[envelope_id] = acked
        await self._socket.send_json(
            {
                "envelope_id": envelope_id,
                "type": kind,
                "payload": payload,
                "accepts_response_payload": kind != "events_api",
                "retry_attempt": 0,
                "retry_reason": "",
            }
        )
        try:
            return await asyncio.wait_for(acked, within)
        except TimeoutError:
            raise AssertionError(f"fake Slack: {envelope_id} was never acknowledged") from None
        finally:
            self._envelope_acks.pop(envelope_id, None)

    async def _connections_open(self, args: dict[str, Any]) -> dict[str, Any]:
        own = self.base_url.replace("http://", "ws://").replace("/api/", "/socket")
        return {"ok": True, "url": self.socket_url or own}

    async def _socket_session(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._socket = socket
        await socket.send_json({"type": "hello", "num_connections": 1})
        self._socket_connected.set()
        async for message in socket:
            if message.type is not WSMsgType.TEXT:
                continue
            ack = json.loads(message.data)
            waiting = self._envelope_acks.get(str(ack.get("envelope_id")))
            if waiting is not None and not waiting.done():
                waiting.set_result(ack)
        self._socket_connected.clear()
        return socket

    # -- methods ---------------------------------------------------------------------------
    async def _ok(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True}

    async def _auth_test(self, args: dict[str, Any]) -> dict[str, Any]:
        """Who the token belongs to: the single token's workspace, or an installation's."""
        install = _caller.get()
        answer = {
            "ok": True,
            "url": "https://fake.slack.test/",
            "team": "Fake Team",
            "user": "bot",
            "team_id": self.team_id if install is None else install.team_id,
            "user_id": self.bot_user_id if install is None else install.bot_user_id,
            "bot_id": self.bot_id if install is None else install.bot_id,
            "is_enterprise_install": install is not None and install.org_wide,
        }
        if install is not None and install.enterprise_id is not None:
            answer["enterprise_id"] = install.enterprise_id
        return answer

    # -- OAuth -----------------------------------------------------------------------------
    def approve_install(
        self,
        team_id: str,
        *,
        installer: str,
        enterprise_id: str | None = None,
        org_wide: bool = False,
    ) -> str:
        """``installer`` clicks *Allow* on Slack's authorize page for ``team_id`` (with
        ``org_wide``, an org admin for the whole org ``team_id`` names): the code Slack
        appends to the redirect URL, for the app to exchange at ``oauth.v2.access``."""
        code = f"code-{secrets.token_hex(8)}"
        self.issued.append(code)
        self._codes[code] = FakeInstall(
            team_id=team_id,
            enterprise_id=team_id if org_wide else enterprise_id,
            bot_user_id=f"U{team_id[1:]}BOT",
            bot_id=f"B{team_id[1:]}BOT",
            installer=installer,
            org_wide=org_wide,
        )
        return code

    def uninstall(self, team_id: str) -> FakeInstall:
        """The workspace removes the app: its token stops working at once."""
        return self.installs.pop(team_id)

    def workspace(self, team_id: str, *, org: str | None = None) -> FakeWorkspace:
        """This fake as the app installed in ``team_id`` (or, org-wide, in ``org``) sees
        it, for building the events of workspace ``team_id``."""
        return FakeWorkspace(self, self.installs[org or team_id], team_id=team_id)

    async def _oauth_access(self, args: dict[str, Any]) -> dict[str, Any]:
        """``oauth.v2.access``: a code for the installation's tokens, or (token rotation)
        a refresh token for new ones; the old token then stops working."""
        if args.get("grant_type") == "refresh_token":
            install = next(
                (i for i in self.installs.values() if i.refresh_token == args.get("refresh_token")),
                None,
            )
            if install is None:
                return {"ok": False, "error": "invalid_refresh_token"}
        else:
            install = self._codes.pop(str(args.get("code", "")), None)
            if install is None:
                return {"ok": False, "error": "invalid_code"}
        self._issue_tokens(install)
        self.installs[install.team_id] = install
        answer: dict[str, Any] = {
            "ok": True,
            "app_id": "A0000APP",
            "access_token": install.token,
            "token_type": "bot",
            "scope": "chat:write,im:history",
            "bot_user_id": install.bot_user_id,
            "team": None
            if install.org_wide
            else {"id": install.team_id, "name": f"Team {install.team_id}"},
            "enterprise": (
                None
                if install.enterprise_id is None
                else {"id": install.enterprise_id, "name": "Fake Org"}
            ),
            "authed_user": {"id": install.installer},
            "is_enterprise_install": install.org_wide,
        }
        if install.refresh_token is not None:
            answer |= {"refresh_token": install.refresh_token, "expires_in": self.token_lifetime}
        return answer

    def _issue_tokens(self, install: FakeInstall) -> None:
        rotating = self.token_lifetime is not None
        prefix = "xoxe.xoxb-" if rotating else "xoxb-"
        install.token = f"{prefix}{install.team_id}-{secrets.token_hex(8)}"
        if self.token_lifetime is not None:
            install.refresh_token = f"xoxe-1-{secrets.token_hex(12)}"
            install.expires_at = time.time() + self.token_lifetime
        self.issued += [token for token in (install.token, install.refresh_token) if token]

    def _bot_message(self, channel: str, text: str, thread_ts: str | None) -> FakeMessage:
        install = _caller.get()
        message = FakeMessage(
            channel=channel,
            ts=self.next_ts(),
            text=text,
            user=self.bot_user_id if install is None else install.bot_user_id,
            bot_id=self.bot_id if install is None else install.bot_id,
            thread_ts=thread_ts or None,
        )
        self.messages.setdefault(channel, []).append(message)
        return message

    async def _post_message(self, args: dict[str, Any]) -> dict[str, Any]:
        text = str(args.get("text", ""))
        if not args.get("channel"):
            return {"ok": False, "error": "channel_not_found"}
        if not text and not args.get("blocks"):
            return {"ok": False, "error": "no_text"}
        if len(text) > TEXT_LIMIT:
            return {"ok": False, "error": "msg_too_long"}
        message = self._bot_message(args["channel"], text, args.get("thread_ts"))
        message.blocks = _blocks(args.get("blocks"))
        return _message_reply(message)

    async def _update(self, args: dict[str, Any]) -> dict[str, Any]:
        message = self.find(str(args.get("channel")), str(args.get("ts")))
        if message is None or not message.by_bot:
            return {"ok": False, "error": "message_not_found"}
        text = str(args.get("text", ""))
        if len(text) > TEXT_LIMIT:
            return {"ok": False, "error": "msg_too_long"}
        message.text = text
        message.streaming = False
        if args.get("blocks") is not None:
            message.blocks = _blocks(args["blocks"])
        return {"ok": True, "channel": message.channel, "ts": message.ts, "text": text}

    async def _delete(self, args: dict[str, Any]) -> dict[str, Any]:
        message = self.find(str(args.get("channel")), str(args.get("ts")))
        if message is None or not message.by_bot:
            return {"ok": False, "error": "message_not_found"}
        self.messages[message.channel].remove(message)
        return {"ok": True, "channel": message.channel, "ts": message.ts}

    @staticmethod
    def _chunks(args: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The chunks a streaming call carries (None when one is not as documented)."""
        chunks = _blocks(args.get("chunks")) or []
        if not isinstance(chunks, list) or not all(_valid_chunk(chunk) for chunk in chunks):
            return None
        return chunks

    @staticmethod
    def _streamed_text(args: dict[str, Any], chunks: list[dict[str, Any]]) -> str | None:
        """The text a streaming call carries, from ``markdown_text`` and markdown chunks."""
        text = str(args.get("markdown_text") or "")
        text += "".join(c["text"] for c in chunks if c["type"] == "markdown_text")
        if len(text) > MARKDOWN_CHUNK_LIMIT:
            return None
        return text

    def _stream_into(self, message: FakeMessage, args: dict[str, Any]) -> dict[str, Any] | None:
        """Add a streaming call's text and task updates to ``message``; an error, if any."""
        chunks = self._chunks(args)
        if chunks is None:
            return {"ok": False, "error": "invalid_chunks"}
        text = self._streamed_text(args, chunks)
        if text is None:
            return {"ok": False, "error": "msg_too_long"}
        message.text += text
        for chunk in chunks:
            if chunk["type"] == "task_update":
                message.tasks[chunk["id"]] = chunk
        return None

    async def _start_stream(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = str(args.get("channel", ""))
        if not args.get("thread_ts"):
            return {"ok": False, "error": "invalid_arguments"}
        if not channel.startswith("D") and not (
            args.get("recipient_team_id") and args.get("recipient_user_id")
        ):
            return {"ok": False, "error": "missing_recipient_user_id"}
        install = _caller.get()
        message = FakeMessage(
            channel=channel,
            ts="",
            user=self.bot_user_id if install is None else install.bot_user_id,
            bot_id=self.bot_id if install is None else install.bot_id,
            thread_ts=str(args["thread_ts"]),
        )
        error = self._stream_into(message, args)
        if error is not None:
            return error
        message.ts = self.next_ts()
        message.streaming = True
        message.started_at = time.monotonic()
        self.messages.setdefault(channel, []).append(message)
        return {"ok": True, "channel": channel, "ts": message.ts}

    def expire_streams(self) -> None:
        """End every open stream now, as Slack does to a stream left open too long: its
        message keeps what it showed, and stream calls on it fail from now on."""
        for messages in self.messages.values():
            for message in messages:
                message.streaming = False

    def _streaming_message(self, args: dict[str, Any]) -> FakeMessage | dict[str, Any]:
        message = self.find(str(args.get("channel")), str(args.get("ts")))
        if message is None:
            return {"ok": False, "error": "message_not_found"}
        lifetime = self.stream_lifetime
        if message.streaming and lifetime is not None and message.started_at is not None:
            message.streaming = time.monotonic() - message.started_at < lifetime
        if not message.streaming:
            return {"ok": False, "error": "message_not_in_streaming_state"}
        return message

    def _streamed(self, args: dict[str, Any]) -> FakeMessage | dict[str, Any]:
        """The streaming message with this call's chunks added, or Slack's error."""
        message = self._streaming_message(args)
        if isinstance(message, dict):
            return message
        return self._stream_into(message, args) or message

    async def _append_stream(self, args: dict[str, Any]) -> dict[str, Any]:
        message = self._streamed(args)
        if isinstance(message, dict):
            return message
        return {"ok": True, "channel": message.channel, "ts": message.ts}

    async def _stop_stream(self, args: dict[str, Any]) -> dict[str, Any]:
        message = self._streamed(args)
        if isinstance(message, dict):
            return message
        message.streaming = False
        message.blocks = _blocks(args.get("blocks"))
        return _message_reply(message)

    async def _set_status(self, args: dict[str, Any]) -> dict[str, Any]:
        channel, thread_ts = str(args.get("channel_id") or ""), str(args.get("thread_ts") or "")
        if not channel or not thread_ts or "status" not in args:
            return {"ok": False, "error": "invalid_arguments"}
        loading = _blocks(args.get("loading_messages")) or []
        if not isinstance(loading, list) or len(loading) > LOADING_MESSAGES_LIMIT:
            return {"ok": False, "error": "invalid_arguments"}
        if not all(isinstance(line, str) and line for line in loading):
            return {"ok": False, "error": "invalid_arguments"}
        self.statuses[(channel, thread_ts)] = str(args["status"])
        return {"ok": True}

    async def _set_title(self, args: dict[str, Any]) -> dict[str, Any]:
        channel, thread_ts = str(args.get("channel_id") or ""), str(args.get("thread_ts") or "")
        if not channel or not thread_ts or not args.get("title"):
            return {"ok": False, "error": "invalid_arguments"}
        self.titles[(channel, thread_ts)] = str(args["title"])
        return {"ok": True}

    async def _set_suggested_prompts(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = str(args.get("channel_id") or "")
        prompts = _blocks(args.get("prompts"))
        if not channel or not isinstance(prompts, list):
            return {"ok": False, "error": "invalid_arguments"}
        if not 0 < len(prompts) <= SUGGESTED_PROMPTS_LIMIT:
            return {"ok": False, "error": "invalid_arguments"}
        for prompt in prompts:
            if not isinstance(prompt, dict) or set(prompt) != {"title", "message"}:
                return {"ok": False, "error": "invalid_arguments"}
            if not all(isinstance(value, str) and value for value in prompt.values()):
                return {"ok": False, "error": "invalid_arguments"}
        self.suggested_prompts.append(
            SuggestedPrompts(
                channel_id=channel,
                thread_ts=args.get("thread_ts"),
                title=args.get("title"),
                prompts=prompts,
            )
        )
        return {"ok": True}

    async def _post_ephemeral(self, args: dict[str, Any]) -> dict[str, Any]:
        if not args.get("channel") or not args.get("user"):
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True, "message_ts": self.next_ts()}

    async def _open_view(self, args: dict[str, Any]) -> dict[str, Any]:
        view = args.get("view")
        if isinstance(view, str):
            view = json.loads(view)
        if not args.get("trigger_id"):
            return {"ok": False, "error": "invalid_trigger_id"}
        if not isinstance(view, dict) or view.get("type") != "modal":
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True, "view": {**view, "id": f"V{self.next_ts().replace('.', '')}"}}

    async def _permalink(self, args: dict[str, Any]) -> dict[str, Any]:
        channel, ts = str(args.get("channel", "")), str(args.get("message_ts", ""))
        if not channel or not ts:
            return {"ok": False, "error": "invalid_arguments"}
        if not any(message.ts == ts for message in self.messages.get(channel, [])):
            return {"ok": False, "error": "message_not_found"}
        return {"ok": True, "channel": channel, "permalink": permalink(channel, ts)}

    async def _replies(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = str(args.get("channel", ""))
        root = str(args.get("ts", ""))
        thread = [
            message.as_slack()
            for message in self.messages.get(channel, [])
            if message.ts == root or message.thread_ts == root
        ]
        if not thread:
            return {"ok": False, "error": "thread_not_found"}
        return {"ok": True, "messages": thread, "has_more": False}

    async def _users_info(self, args: dict[str, Any]) -> dict[str, Any]:
        user = self.users.get(str(args.get("user", "")))
        if user is None:
            return {"ok": False, "error": "user_not_found"}
        return {"ok": True, "user": {**user, "profile": {"real_name": user["real_name"]}}}


def permalink(channel: str, ts: str) -> str:
    """The link ``chat.getPermalink`` gives for the message ``ts`` of ``channel``."""
    return f"https://fake.slack.test/archives/{channel}/p{ts.replace('.', '')}"


def _message_reply(message: FakeMessage) -> dict[str, Any]:
    """Slack's answer to a method that posted or finished a message."""
    return {"ok": True, "channel": message.channel, "ts": message.ts, "message": message.as_slack()}


class FakeWorkspace:
    """The fake as seen by one workspace the app is installed in: its team, bot and
    token, for building that workspace's events (see :mod:`bot.simulator.slack_people`);
    everything else is the fake's."""

    def __init__(
        self, fake: FakeSlackWebAPI, install: FakeInstall, *, team_id: str | None = None
    ) -> None:
        self._fake = fake
        self.install = install
        self.team_id = team_id or install.team_id
        self.enterprise_id = install.enterprise_id
        self.is_enterprise_install = install.org_wide
        self.bot_user_id = install.bot_user_id
        self.bot_id = install.bot_id

    @property
    def token(self) -> str:
        return self.install.token

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fake, name)
