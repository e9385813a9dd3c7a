"""Building the bot: the Bolt app and everything its listeners need, with a start/stop lifecycle."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime, timedelta

import aiohttp
import httpx
from slack_bolt.async_app import AsyncApp
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.agent import Provider
from bot.answering import AnswerService, BotIdentity
from bot.assistant import build_agent, render_experience
from bot.config import AdminSettings, Settings
from bot.learning import LLMEpisodeSummarizer, LLMFailureReflector, LLMImportanceScorer
from bot.listeners import Services, register
from bot.llm import OpenAICompatibleProvider, RetryPolicy, build_llm_client
from bot.slack.directory import WebApiDirectory
from memory import ConsolidationReport, Consolidator, MemoryStore, WorkingMemory, open_store
from memory.reflection import ReflectionWorker

__all__ = ["PURGE_INTERVAL_SECONDS", "Bot", "build_consolidator"]

log = logging.getLogger(__name__)

PURGE_INTERVAL_SECONDS = 3600.0
"""How often expired ledger entries (and the pending exchanges nobody can vote on) go."""


def build_consolidator(
    store: MemoryStore, provider: Provider, settings: AdminSettings
) -> Consolidator:
    """The consolidator the app runs every ``CONSOLIDATION_INTERVAL_HOURS`` (and
    ``python -m bot consolidate`` once). It looks back two intervals, so a run that was
    missed or late (a restart) loses nothing."""
    return Consolidator(
        store,
        LLMEpisodeSummarizer(provider),
        lookback=timedelta(hours=2 * settings.consolidation_interval_hours),
    )


def build_working_memory() -> WorkingMemory:
    """Per-thread notes: a thread idle for two hours is dropped; at most 16 notes of at
    most 800 characters each, so they cost the prompt a bounded few thousand tokens."""
    return WorkingMemory(ttl=timedelta(hours=2), max_keys_per_thread=16, max_value_chars=800)


class Bot:
    """The running bot: ``await bot.start()`` (auth.test, open the database), then serve
    ``bot.app``; ``await bot.stop(grace_seconds)`` lets answers in flight finish."""

    def __init__(
        self,
        settings: Settings,
        *,
        llm_retry: RetryPolicy | None = None,
        purge_interval_seconds: float = PURGE_INTERVAL_SECONDS,
    ) -> None:
        self.settings = settings
        self._llm_retry = llm_retry or RetryPolicy(
            total_budget_seconds=settings.llm_retry_budget_seconds
        )
        self._purge_interval = purge_interval_seconds
        self.app = AsyncApp(
            token=settings.slack_bot_token.get_secret_value(),
            signing_secret=settings.slack_signing_secret.get_secret_value(),
            process_before_response=False,
        )
        # Bolt builds its own client (handing it one makes Bolt warn whenever SLACK_BOT_TOKEN
        # is also in the environment); point it at SLACK_API_URL and let it retry.
        self.client: AsyncWebClient = self.app.client
        self.client.base_url = str(settings.slack_api_url)
        self.client.retry_handlers = [
            AsyncConnectionErrorRetryHandler(),
            AsyncRateLimitErrorRetryHandler(max_retry_count=2),
            AsyncServerErrorRetryHandler(max_retry_count=1),
        ]
        self.services: Services | None = None
        self._memory: MemoryStore | None = None
        self._llm_client: httpx.AsyncClient | None = None
        self._reflection: ReflectionWorker | None = None
        self._consolidator: Consolidator | None = None
        self._background: list[asyncio.Task[None]] = []
        self.purged = asyncio.Event()
        """Set after each ledger purge (tests clear it and wait for the next one)."""
        self.consolidated = asyncio.Event()
        """Set after each scheduled consolidation (tests clear it and wait for the next)."""

    @property
    def ready(self) -> bool:
        """True once Slack accepted the token and the database is open."""
        return self.services is not None

    async def start(self) -> None:
        # One connection pool for every Web API call: without a session the SDK opens (and,
        # against slack.com, TLS-handshakes) a new connection for each call.
        self.client.session = aiohttp.ClientSession()
        try:
            auth = await self.client.auth_test()
        except BaseException:
            await self._close_slack_session()
            raise
        identity = BotIdentity(
            user_id=str(auth["user_id"]), bot_id=auth.get("bot_id"), team_id=str(auth["team_id"])
        )
        settings = self.settings
        self._memory = await open_store(str(settings.bot_db_path), settings.memory_config())
        self._llm_client = build_llm_client(
            str(settings.llm_base_url),
            settings.llm_api_key.get_secret_value(),
            settings.llm_timeout_seconds,
        )
        provider = OpenAICompatibleProvider(
            self._llm_client, model=settings.llm_model, retry=self._llm_retry
        )
        self._reflection = ReflectionWorker(
            self._memory, LLMFailureReflector(provider), LLMImportanceScorer(provider)
        )
        self._consolidator = build_consolidator(self._memory, provider, settings)
        answering = AnswerService(
            client=self.client,
            memory=self._memory,
            agent=build_agent(provider, self._memory),
            directory=WebApiDirectory(self.client),
            identity=identity,
            render_experience=render_experience,
            recall_limit=settings.recall_top_k,
            recall_token_budget=settings.recall_token_budget,
            working_memory=build_working_memory(),
        )
        services = Services(
            answering=answering,
            memory=self._memory,
            identity=identity,
            reflection=self._reflection,
        )
        register(self.app, services)
        self._background = [
            asyncio.create_task(self._reflection.run_forever(), name="reflection"),
            asyncio.create_task(self._purge_forever(self._memory), name="ledger-purge"),
            asyncio.create_task(self._consolidate_forever(), name="consolidation"),
        ]
        self.services = services
        log.info("ready as %s in team %s", identity.user_id, identity.team_id)

    async def stop(self, grace_seconds: float = 10.0) -> None:
        """Finish (or abandon after ``grace_seconds``) answers in flight, then close."""
        services, self.services = self.services, None
        if services is not None:
            await services.inflight.drain(grace_seconds)
        if self._reflection is not None:
            await self._reflection.stop()
        for task in self._background:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._background = []
        if self._memory is not None:
            await self._memory.close()
            self._memory = None
        if self._llm_client is not None:
            await self._llm_client.aclose()
            self._llm_client = None
        await self._close_slack_session()

    async def _close_slack_session(self) -> None:
        session, self.client.session = self.client.session, None
        if session is not None:
            await session.close()

    async def consolidate(self) -> ConsolidationReport:
        """Turn recent rated answers into wisdom notes now (the schedule calls this too)."""
        if self._consolidator is None:
            raise RuntimeError("the bot is not started")
        report = await self._consolidator.consolidate(now=datetime.now(UTC))
        log.info(
            "consolidated %d conversation(s) into %d note(s); %d skipped",
            report.scopes,
            report.notes,
            report.skipped,
        )
        return report

    async def _consolidate_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.consolidation_interval_hours * 3600)
            try:
                await self.consolidate()
            except Exception as error:  # the store failed; people's text stays out of logs
                log.warning("consolidation failed (%s); trying next time", type(error).__name__)
                continue
            self.consolidated.set()

    async def _purge_forever(self, memory: MemoryStore) -> None:
        while True:
            await asyncio.sleep(self._purge_interval)
            try:
                purged = await memory.purge_expired(now=datetime.now(UTC))
            except Exception:
                log.exception("ledger purge failed; trying again next time")
                continue
            log.info("purged %d expired ledger row(s)", purged)
            self.purged.set()
