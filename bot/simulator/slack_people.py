"""People in a fake Slack workspace: what they do, sent to the bot as Slack sends it.

Signed HTTP requests (events, slash commands, button clicks) to the bot's events URL, with the
payloads of Slack's Events API and interactivity. The test suite, the benchmarks and the local
playground (``python -m bot.playground``) drive the real bot with it, next to
:class:`bot.simulator.slack_web_api.FakeSlackWebAPI` for the Web API side.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from dataclasses import KW_ONLY, dataclass, field
from typing import Any
from urllib.parse import urlencode

import httpx

from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI

__all__ = [
    "ALICE",
    "APP_ID",
    "BOB",
    "GENERAL",
    "SIGNING_SECRET",
    "SlackPeople",
    "dm_channel",
    "event_envelope",
    "message_event",
    "reaction_event",
    "sign",
]

SIGNING_SECRET = "test-signing-secret"
ALICE = "U0000ALICE"
BOB = "U0000BOB"
GENERAL = "C0000GENERAL"
APP_ID = "A0000APP"


def sign(
    body: str, *, secret: str = SIGNING_SECRET, timestamp: int | None = None
) -> dict[str, str]:
    """Slack's v0 signature headers for ``body``."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    base = f"v0:{stamp}:{body}".encode()
    digest = hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": f"v0={digest}"}


def dm_channel(user: str) -> str:
    return f"D{user[1:]}"


def event_envelope(
    fake: FakeSlackWebAPI, event: dict[str, Any], *, event_id: str
) -> dict[str, Any]:
    """An ``event_callback`` as the Events API delivers it (over HTTP or a socket)."""
    enterprise_id = fake.enterprise_id
    envelope: dict[str, Any] = {
        "token": "legacy-verification-token",
        "team_id": fake.team_id,
        "api_app_id": APP_ID,
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "authorizations": [
            {
                "enterprise_id": enterprise_id,
                "team_id": None if fake.is_enterprise_install else fake.team_id,
                "user_id": fake.bot_user_id,
                "is_bot": True,
                "is_enterprise_install": fake.is_enterprise_install,
            }
        ],
        "is_ext_shared_channel": False,
    }
    if enterprise_id is not None:
        envelope["enterprise_id"] = enterprise_id
    return envelope


def message_event(
    fake: FakeSlackWebAPI, message: FakeMessage, *, channel_type: str, subtype: str | None = None
) -> dict[str, Any]:
    """The ``message`` event Slack sends for ``message`` (``file_share``, with its
    ``files``, when it has attachments)."""
    event: dict[str, Any] = {
        "type": "message",
        "user": message.user,
        "text": message.text,
        "ts": message.ts,
        "team": fake.team_id,
        "channel": message.channel,
        "event_ts": message.ts,
        "channel_type": channel_type,
    }
    if message.thread_ts is not None:
        event["thread_ts"] = message.thread_ts
    if message.files:
        event.update(files=message.files, upload=False, subtype="file_share")
    if subtype is not None:
        event["subtype"] = subtype
    return event


def reaction_event(
    fake: FakeSlackWebAPI,
    message: FakeMessage,
    *,
    user: str = ALICE,
    reaction: str = "+1",
    added: bool = True,
) -> dict[str, Any]:
    """The ``reaction_added`` (or, ``added=False``, ``reaction_removed``) event of ``user``
    reacting to ``message``."""
    return {
        "type": "reaction_added" if added else "reaction_removed",
        "user": user,
        "reaction": reaction,
        "item_user": message.user,
        "item": {"type": "message", "channel": message.channel, "ts": message.ts},
        "event_ts": fake.next_ts(),
    }


@dataclass(eq=False)
class SlackPeople:
    """Does what people do in Slack, as Slack tells the bot: signed requests to
    ``events_url``. Their messages are also written into ``fake`` (the Web API stand-in),
    so the bot finds them when it reads a thread."""

    events_url: str
    fake: FakeSlackWebAPI
    http: httpx.AsyncClient
    _: KW_ONLY
    signing_secret: str = field(default=SIGNING_SECRET, repr=False)

    # -- raw requests ----------------------------------------------------------------------
    async def post(
        self,
        body: str,
        *,
        content_type: str = "application/json",
        retry_num: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        sent = {"Content-Type": content_type, **sign(body, secret=self.signing_secret)}
        if retry_num is not None:
            sent["X-Slack-Retry-Num"] = str(retry_num)
            sent["X-Slack-Retry-Reason"] = "http_timeout"
        sent.update(headers or {})
        return await self.http.post(self.events_url, content=body, headers=sent)

    def envelope(self, event: dict[str, Any], *, event_id: str | None = None) -> dict[str, Any]:
        """An ``event_callback`` as the Events API delivers it."""
        return event_envelope(
            self.fake, event, event_id=event_id or f"Ev{uuid.uuid4().hex[:10].upper()}"
        )

    async def send_event(
        self, event: dict[str, Any], *, event_id: str | None = None, retry_num: int | None = None
    ) -> httpx.Response:
        body = json.dumps(self.envelope(event, event_id=event_id))
        response = await self.post(body, retry_num=retry_num)
        assert response.status_code == 200, response.text
        return response

    # -- what people do --------------------------------------------------------------------
    def message_event(
        self, message: FakeMessage, *, channel_type: str, subtype: str | None = None
    ) -> dict[str, Any]:
        return message_event(self.fake, message, channel_type=channel_type, subtype=subtype)

    async def dm(
        self,
        text: str,
        *,
        user: str = ALICE,
        thread_ts: str | None = None,
        files: list[dict[str, Any]] | None = None,
    ) -> FakeMessage:
        """``user`` writes ``text`` in their DM with the bot, attaching ``files`` (entries
        of :meth:`FakeSlackWebAPI.add_file`)."""
        message = self.fake.add_user_message(
            dm_channel(user), text, user=user, thread_ts=thread_ts, files=files
        )
        await self.send_event(self.message_event(message, channel_type="im"))
        return message

    async def say(
        self, text: str, *, user: str = ALICE, channel: str = GENERAL, thread_ts: str | None = None
    ) -> FakeMessage:
        """``user`` writes in a channel without mentioning the bot (a ``message`` event)."""
        message = self.fake.add_user_message(channel, text, user=user, thread_ts=thread_ts)
        await self.send_event(self.message_event(message, channel_type="channel"))
        return message

    async def mention(
        self,
        text: str,
        *,
        user: str = ALICE,
        channel: str = GENERAL,
        thread_ts: str | None = None,
        also_as_message: bool = True,
        files: list[dict[str, Any]] | None = None,
    ) -> FakeMessage:
        """``user`` mentions the bot: Slack sends ``message`` and ``app_mention`` events
        (both with the ``files`` attached, if any)."""
        full_text = f"<@{self.fake.bot_user_id}> {text}"
        message = self.fake.add_user_message(
            channel, full_text, user=user, thread_ts=thread_ts, files=files
        )
        if also_as_message:
            await self.send_event(self.message_event(message, channel_type="channel"))
        mention: dict[str, Any] = {
            "type": "app_mention",
            "user": user,
            "text": full_text,
            "ts": message.ts,
            "team": self.fake.team_id,
            "channel": channel,
            "event_ts": message.ts,
        }
        if thread_ts is not None:
            mention["thread_ts"] = thread_ts
        if files:
            mention["files"] = files
        await self.send_event(mention)
        return message

    async def react(
        self, message: FakeMessage, *, user: str = ALICE, reaction: str = "+1", added: bool = True
    ) -> None:
        await self.send_event(
            reaction_event(self.fake, message, user=user, reaction=reaction, added=added)
        )

    def _org(self) -> dict[str, Any]:
        """The org fields of a command's form, on Enterprise Grid (Slack sends them then)."""
        org = self.fake.enterprise_id
        if org is None:
            return {}
        installed = str(self.fake.is_enterprise_install).lower()
        return {
            "enterprise_id": org,
            "enterprise_name": "Fake Org",
            "is_enterprise_install": installed,
        }

    async def command(
        self, command: str, *, user: str = ALICE, channel: str = GENERAL, text: str = ""
    ) -> httpx.Response:
        body = urlencode(
            {
                **self._org(),
                "token": "legacy-verification-token",
                "team_id": self.fake.team_id,
                "team_domain": "fake",
                "channel_id": channel,
                "channel_name": "general",
                "user_id": user,
                "user_name": user.lower(),
                "command": command,
                "text": text,
                "api_app_id": APP_ID,
                "response_url": self.fake.response_url(),
                "trigger_id": "123.456.abc",
            }
        )
        return await self.post(body, content_type="application/x-www-form-urlencoded")

    async def click(
        self,
        message: FakeMessage,
        *,
        action_id: str,
        value: str,
        user: str = ALICE,
        action_type: str = "button",
    ) -> httpx.Response:
        """``user`` clicks an element of ``message``: a ``block_actions`` payload (form)."""
        return await self._block_actions(
            message.channel,
            message.ts,
            {"message": message.as_slack()},
            action={"action_id": action_id, "block_id": "feedback", "type": action_type},
            value=value,
            user=user,
        )

    async def click_in_private_note(
        self, channel: str, *, action_id: str, value: str, user: str = ALICE
    ) -> httpx.Response:
        """``user`` clicks a button of an ephemeral message the bot sent them in
        ``channel``: a ``block_actions`` payload whose container is ephemeral (Slack sends
        no ``message`` then)."""
        return await self._block_actions(
            channel,
            self.fake.next_ts(),
            {},
            action={"action_id": action_id, "block_id": "ask", "type": "button"},
            value=value,
            user=user,
        )

    async def _block_actions(
        self,
        channel: str,
        message_ts: str,
        message: dict[str, Any],
        *,
        action: dict[str, str],
        value: str,
        user: str,
    ) -> httpx.Response:
        """A ``block_actions`` payload: ``action`` clicked with ``value`` in the message
        ``message_ts`` of ``channel``; ``message`` is the payload's ``{"message": ...}``,
        empty for an ephemeral message (Slack sends none then)."""
        payload = {
            "type": "block_actions",
            "user": {"id": user, "username": user.lower(), "team_id": self.fake.team_id},
            "api_app_id": APP_ID,
            "token": "legacy-verification-token",
            "container": {
                "type": "message",
                "message_ts": message_ts,
                "channel_id": channel,
                "is_ephemeral": not message,
            },
            "trigger_id": "123.456.abc",
            "team": {"id": self.fake.team_id, "domain": "fake"},
            "channel": {"id": channel, "name": "conversation"},
            **message,
            **self._interactive_org(),
            "response_url": self.fake.response_url(),
            "actions": [{**action, "value": value, "action_ts": self.fake.next_ts()}],
        }
        body = urlencode({"payload": json.dumps(payload)})
        return await self.post(body, content_type="application/x-www-form-urlencoded")

    def _interactive_org(self) -> dict[str, Any]:
        """The org fields of an interactive payload, on Enterprise Grid."""
        org = self.fake.enterprise_id
        if org is None:
            return {}
        return {
            "enterprise": {"id": org, "name": "Fake Org"},
            "is_enterprise_install": self.fake.is_enterprise_install,
        }

    async def submit_view(
        self, view: dict[str, Any], values: dict[str, Any], *, user: str = ALICE
    ) -> httpx.Response:
        """``user`` submits the modal ``view`` (as the bot opened it) with the input
        ``values`` (``{block_id: {action_id: {"type": ..., "value": ...}}}``): a
        ``view_submission`` payload (form)."""
        payload = {
            "type": "view_submission",
            "team": {"id": self.fake.team_id, "domain": "fake"},
            "user": {"id": user, "username": user.lower(), "team_id": self.fake.team_id},
            "api_app_id": APP_ID,
            "token": "legacy-verification-token",
            "trigger_id": "123.457.abd",
            "view": {
                **view,
                "id": view.get("id", "V0000FORM"),
                "team_id": self.fake.team_id,
                "app_id": APP_ID,
                "bot_id": self.fake.bot_id,
                "state": {"values": values},
                "hash": "1700000000.abcdefgh",
            },
            "response_urls": [],
            "is_enterprise_install": False,
            **self._interactive_org(),
        }
        body = urlencode({"payload": json.dumps(payload)})
        return await self.post(body, content_type="application/x-www-form-urlencoded")

    async def open_home(self, *, user: str = ALICE, tab: str = "home") -> None:
        """``user`` opens the bot's Home tab, or (``tab="messages"``) its Messages tab."""
        await self.send_event(
            {
                "type": "app_home_opened",
                "user": user,
                "channel": dm_channel(user),
                "tab": tab,
                "event_ts": self.fake.next_ts(),
            }
        )

    def assistant_thread_event(
        self, kind: str, *, user: str = ALICE, thread_ts: str, viewing: str = GENERAL
    ) -> dict[str, Any]:
        """``assistant_thread_started`` or ``assistant_thread_context_changed`` (the legacy
        assistant experience) for ``user``'s DM thread, while they view ``viewing``."""
        return {
            "type": kind,
            "assistant_thread": {
                "user_id": user,
                "context": {"channel_id": viewing, "team_id": self.fake.team_id},
                "channel_id": dm_channel(user),
                "thread_ts": thread_ts,
            },
            "event_ts": self.fake.next_ts(),
        }

    async def start_assistant_thread(self, *, user: str = ALICE) -> str:
        """``user`` opens a new assistant thread; returns its ts."""
        thread_ts = self.fake.next_ts()
        event = self.assistant_thread_event(
            "assistant_thread_started", user=user, thread_ts=thread_ts
        )
        await self.send_event(event)
        return thread_ts
