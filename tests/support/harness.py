"""Driving the real bot like Slack does: signed HTTP requests, and waiting for its answers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypedDict, Unpack

import httpx

from bot.answering.service import REASON_THANKS
from bot.app import Bot
from bot.config import Settings
from bot.listeners import Services
from bot.llm import RetryPolicy
from bot.observability.model_health import MODEL_CHECK_SECONDS
from bot.server import EVENTS_PATH, HttpServer
from bot.simulator.model import FakeLLMServer
from bot.simulator.slack_people import (
    ALICE,
    BOB,
    GENERAL,
    SIGNING_SECRET,
    SlackPeople,
    dm_channel,
    event_envelope,
    message_event,
    reaction_event,
    sign,
)
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI

__all__ = [
    "ALICE",
    "BOB",
    "FAST_RETRIES",
    "GENERAL",
    "SIGNING_SECRET",
    "SignedSlack",
    "StartBot",
    "dm_channel",
    "event_envelope",
    "fakes_settings",
    "last_conversation",
    "message_event",
    "reaction_event",
    "running",
    "sign",
    "start_bot",
]

FAST_RETRIES = RetryPolicy(
    max_attempts=3, total_budget_seconds=2.0, base_delay=0.01, max_delay=0.05
)


async def start_bot(
    settings: Settings,
    *,
    purge_interval_seconds: float = 3600.0,
    model_check_seconds: float = MODEL_CHECK_SECONDS,
) -> HttpServer:
    """The real HTTP server on 127.0.0.1 (random port), retrying the model quickly."""
    bot = Bot(
        settings,
        llm_retry=FAST_RETRIES,
        purge_interval_seconds=purge_interval_seconds,
        model_check_seconds=model_check_seconds,
    )
    server = HttpServer(bot, host="127.0.0.1", port=0, grace_seconds=5.0)
    await server.start()
    return server


def fakes_settings(fake: FakeSlackWebAPI, llm: FakeLLMServer, **values: Any) -> Settings:
    """The bot's settings against the fake Slack and the fake model, read from no ``.env``;
    ``values`` add the rest (the bot token or OAuth client, the database) or replace these
    (a real model's ``llm_base_url`` and ``llm_model``, for ``benchmarks/learning.py``)."""
    defaults: dict[str, Any] = {
        "slack_signing_secret": SIGNING_SECRET,
        "slack_api_url": fake.base_url,
        "llm_base_url": llm.base_url,
        "llm_api_key": "test-llm-key",
        "llm_model": llm.model,
    }
    return Settings(_env_file=None, **{**defaults, **values})


def last_conversation(llm: FakeLLMServer) -> list[tuple[str, str]]:
    """The turns of the model's last request as (role, text), the system prompt aside."""
    return [
        (message["role"], message["content"])
        for message in llm.requests[-1]["messages"]
        if message["role"] != "system"
    ]


StartBot = Callable[..., Awaitable["SignedSlack"]]
"""Starts the bot with the settings it is given changed (keyword arguments): the
``bot_with`` fixture."""


@asynccontextmanager
async def running(
    settings: Settings, fake: FakeSlackWebAPI, http: httpx.AsyncClient, **changes: Any
) -> AsyncIterator[SignedSlack]:
    """The bot started with ``changes`` to ``settings``, as the fake workspace's people talk
    to it; stopped on exit."""
    server = await start_bot(settings.model_copy(update=changes))
    try:
        yield SignedSlack(server, fake, http)
    finally:
        await server.stop()


class DmOptions(TypedDict, total=False):
    """What :meth:`SlackPeople.dm` takes beside the text and who writes it."""

    thread_ts: str | None
    files: list[dict[str, Any]] | None


class SignedSlack(SlackPeople):
    """People of the fake workspace talking to the bot under test, and waiting on it."""

    def __init__(self, server: HttpServer, fake: FakeSlackWebAPI, http: httpx.AsyncClient) -> None:
        super().__init__(f"{server.url}{EVENTS_PATH}", fake, http)
        self.server = server

    @property
    def services(self) -> Services:
        """What the running bot's listeners use (its store, answering, in-flight work)."""
        services = self.server.bot.services
        assert services is not None, "the bot is not running"
        return services

    # -- waiting ---------------------------------------------------------------------------
    async def settled(self) -> None:
        """Wait until the bot has no answer or vote in flight."""
        await self.services.inflight.wait_idle()

    async def answers(
        self, count: int, *, channel: str | None = None, within: float = 10.0
    ) -> list[FakeMessage]:
        """Wait until ``count`` final bot messages exist (in ``channel``), then until the
        bot is idle, so ledger writes are done."""
        messages = await self.fake.wait_for_final_messages(count, channel=channel, within=within)
        await self.settled()
        return messages

    # -- asking and teaching ---------------------------------------------------------------
    async def ask_in_dm(
        self, text: str, *, user: str = ALICE, within: float = 10.0, **dm: Unpack[DmOptions]
    ) -> FakeMessage:
        """``user`` asks ``text`` in their DM, as :meth:`SlackPeople.dm` with ``dm``: the
        bot's one new answer there, once idle (waiting ``within`` seconds at most: a real
        model takes longer than the fake)."""
        return await self._one_new_answer(
            dm_channel(user), self.dm(text, user=user, **dm), within=within
        )

    async def ask_in_channel(
        self, text: str, *, user: str = ALICE, channel: str = GENERAL
    ) -> FakeMessage:
        """``user`` mentions the bot with ``text`` in ``channel``: its one new answer there."""
        return await self._one_new_answer(channel, self.mention(text, user=user, channel=channel))

    async def vote(self, answer: FakeMessage, *, user: str = ALICE, reaction: str = "+1") -> None:
        """``user`` reacts to ``answer``; returns once the bot is idle again."""
        await self.react(answer, user=user, reaction=reaction)
        await self.settled()

    async def reply_in_thread(
        self, answer: FakeMessage, text: str, *, user: str = ALICE, within: float = 10.0
    ) -> None:
        """``user`` writes ``text`` in the thread of ``answer``; returns once the bot has
        thanked them for it as the reason for their 👎, or answered it, and is idle (a
        reply that is only a reason gets no answer to wait for)."""
        channel = answer.channel
        before = (len(self.reasons_thanked()), len(self.fake.final_messages(channel)))
        if channel == dm_channel(user):
            await self.dm(text, user=user, thread_ts=answer.thread_ts)
        else:
            await self.say(text, user=user, channel=channel, thread_ts=answer.thread_ts)
        await self.fake.wait_for(
            lambda: (len(self.reasons_thanked()), len(self.fake.final_messages(channel))) != before,
            within=within,
            what="a thanks or an answer",
        )
        await self.settled()

    def reasons_thanked(self) -> list[dict[str, Any]]:
        """The private lines thanking someone for a 👎's reason, in order (their arguments)."""
        return [
            call.args
            for call in self.fake.calls_to("chat.postEphemeral")
            if call.args.get("text") == REASON_THANKS
        ]

    async def _one_new_answer(
        self, channel: str, asking: Awaitable[FakeMessage], *, within: float = 10.0
    ) -> FakeMessage:
        before = len(self.fake.final_messages(channel))
        await asking
        [answer] = (await self.answers(before + 1, channel=channel, within=within))[before:]
        return answer
