"""The composition root: everything the bot runs on, built once from settings.

The server (:class:`bot.app.Bot`), the CLI (:mod:`bot.admin`, ``python -m bot forget``), the
playground and the benchmarks all build through here; nothing else constructs a store, an
LLM client, the provider or the agent. :mod:`bot.app` only wires Bolt to what this builds.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
from slack_sdk.web.async_client import AsyncWebClient

from bot.agent import Agent, GuardPolicy, LoopMemory, Provider
from bot.answering import AnswerService, BotIdentity, WaitingLine
from bot.answering.attachments import ImageIntake, VisionSettings
from bot.assistant import build_agent
from bot.assistant.forgetting import Forgetting
from bot.assistant.lessons import LLMEpisodeSummarizer, LLMFailureReflector, LLMImportanceScorer
from bot.assistant.reasons import Reasons
from bot.assistant.voting import Votes
from bot.config import AdminSettings
from bot.llm import (
    ModelStatus,
    OpenAICompatibleProvider,
    RetryPolicy,
    build_llm_client,
    probe_model,
)
from bot.observability import BotMetrics, ModelRequests, Observer
from bot.scheduler import Job, JobRun, Scheduler
from bot.slack.directory import WebApiDirectory
from bot.slack.files import SlackFileDownloader
from memory import (
    ConsolidationReport,
    Consolidator,
    EpisodeStatus,
    MemoryStore,
    WorkingMemory,
    open_store,
)
from memory.learning import ReflectionWorker

__all__ = [
    "PURGE_INTERVAL_SECONDS",
    "REFLECTION_RETRY",
    "Components",
    "consolidate_now",
    "open_components",
    "open_database",
    "open_llm_client",
    "open_model",
    "probe_configured_model",
    "reflection_run",
    "wake_for",
]

log = logging.getLogger(__name__)

PURGE_INTERVAL_SECONDS = 3600.0
"""How often expired ledger entries (and the pending exchanges nobody can vote on) go, and
the full-text index is tidied (:meth:`memory.MemoryStore.tidy_index`)."""
REFLECTION_RETRY = timedelta(minutes=5)
"""How often reflection retries what the model could not handle (a vote wakes it at once)."""


@dataclass(frozen=True)
class Components:
    """What the bot runs on, built by :func:`open_components` and closed when it exits."""

    settings: AdminSettings
    store: MemoryStore
    provider: Provider
    agent: Agent
    working_memory: WorkingMemory
    """Per-thread notes of running conversations (dropped by ``/forget``)."""
    consolidator: Consolidator
    votes: Votes
    reasons: Reasons
    """Why a person 👎'd an answer: whom to ask, and keeping what they say."""
    forgetting: Forgetting
    observer: Observer
    """Logs one line per answer, vote and erasure, and counts them in its metrics."""
    scheduler: Scheduler
    """Reflection, consolidation and the ledger purge; the server starts and stops it."""
    reflection: Job
    reflection_worker: ReflectionWorker
    """What the ``reflection`` job runs."""

    def answering(
        self,
        client: AsyncWebClient,
        identity: BotIdentity,
        *,
        line: WaitingLine,
        store_patience_seconds: float,
    ) -> AnswerService:
        """The answering service over a connected Slack client, as the bot identified,
        its questions waiting in ``line``, each waiting up to ``store_patience_seconds``
        for an unreachable database."""
        return AnswerService(
            client=client,
            memory=self.store,
            agent=self.agent,
            directory=WebApiDirectory(client),
            identity=identity,
            working_memory=self.working_memory,
            reasons=self.reasons,
            recall_limit=self.settings.recall_top_k,
            recall_token_budget=self.settings.recall_token_budget,
            line=line,
            store_patience_seconds=store_patience_seconds,
            observer=self.observer,
            images=self.image_intake(client),
        )

    def image_intake(self, client: AsyncWebClient) -> ImageIntake:
        """What turns attached files into a turn's images, downloaded from ``client``'s
        Slack (``LLM_VISION`` and its limits)."""
        settings = self.settings
        return ImageIntake(
            VisionSettings(
                enabled=settings.llm_vision,
                max_images=settings.llm_max_images,
                max_image_bytes=settings.llm_max_image_bytes,
            ),
            SlackFileDownloader(
                api_url=client.base_url, timeout_seconds=settings.image_download_timeout_seconds
            ),
        )


@asynccontextmanager
async def open_database(
    settings: AdminSettings, *, existing: bool = False
) -> AsyncIterator[MemoryStore]:
    """The store at ``BOT_DB_URL`` or ``BOT_DB_PATH``, closed on exit: what the server
    builds on, and all the admin commands (:mod:`bot.admin`) need (``existing``: never
    create the SQLite file)."""
    store = await open_store(settings.store_url(), settings.memory_config(), existing=existing)
    try:
        yield store
    finally:
        await store.close()


@asynccontextmanager
async def open_llm_client(settings: AdminSettings) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client for ``LLM_BASE_URL`` with the key and timeout, closed on exit."""
    async with build_llm_client(
        str(settings.llm_base_url),
        settings.llm_api_key.get_secret_value(),
        settings.llm_timeout_seconds,
    ) as client:
        yield client


async def probe_configured_model(settings: AdminSettings) -> ModelStatus:
    """Whether ``LLM_BASE_URL`` answers and serves ``LLM_MODEL`` (start-up and ``/readyz``)."""
    async with open_llm_client(settings) as client:
        return await probe_model(client, settings.llm_model)


@asynccontextmanager
async def open_model(
    settings: AdminSettings,
    *,
    llm_retry: RetryPolicy | None = None,
    metrics: BotMetrics | None = None,
    limit: int | None = None,
) -> AsyncIterator[tuple[httpx.AsyncClient, OpenAICompatibleProvider, ModelRequests]]:
    """The LLM client for ``LLM_BASE_URL``, the provider over it (at most ``limit`` requests
    at once) and the measure of its requests; the client is closed on exit. ``llm_retry``
    defaults to retrying within ``LLM_RETRY_BUDGET_SECONDS``."""
    retry = llm_retry or RetryPolicy(total_budget_seconds=settings.llm_retry_budget_seconds)
    requests = ModelRequests(metrics)
    async with open_llm_client(settings) as client:
        provider = OpenAICompatibleProvider(
            client,
            model=settings.llm_model,
            retry=retry,
            temperature=settings.llm_temperature,
            seed=settings.llm_seed,
            limit=limit,
            measure=requests.measured,
        )
        yield client, provider, requests


@asynccontextmanager
async def open_components(
    settings: AdminSettings,
    *,
    llm_retry: RetryPolicy | None = None,
    guard: GuardPolicy | None = None,
    purge_interval_seconds: float = PURGE_INTERVAL_SECONDS,
    observer: Observer | None = None,
) -> AsyncIterator[Components]:
    """Open the store and the LLM client and build everything on them; close both on exit.

    ``llm_retry`` defaults to retrying within ``LLM_RETRY_BUDGET_SECONDS``, ``guard`` to
    every check of the tool guard on. The scheduler is built, not started. ``observer``
    (with its metrics) sees every model request, answer, vote and erasure."""
    observer = observer or Observer()
    async with (
        open_database(settings) as store,
        open_model(
            settings,
            llm_retry=llm_retry,
            metrics=observer.metrics,
            limit=settings.max_concurrent_llm_calls,
        ) as (_, provider, _),
    ):
        working_memory = build_working_memory()
        consolidator = build_consolidator(store, provider, settings)
        worker = ReflectionWorker(
            store,
            LLMFailureReflector(provider),
            LLMImportanceScorer(provider) if settings.recall_weight_importance > 0 else None,
            retry_interval=REFLECTION_RETRY,
        )

        consolidation_every = timedelta(hours=settings.consolidation_interval_hours)

        # Every replica sharing the store schedules these; take_turn lets one run each time.
        async def purge() -> None:
            if await store.take_turn(
                "ledger-purge", every=timedelta(seconds=purge_interval_seconds)
            ):
                purged = await store.purge_expired(now=datetime.now(UTC))
                log.info("purged %d expired ledger row(s)", purged)
                steps = 1
                while await store.tidy_index():  # short steps: other calls run between them
                    steps += 1
                log.info("tidied the full-text index in %d step(s)", steps)

        async def consolidate() -> None:
            if await store.take_turn("consolidation", every=consolidation_every):
                await consolidate_now(consolidator)

        scheduler = Scheduler()
        reflection = scheduler.add(
            "reflection",
            reflection_run(worker),
            every_seconds=REFLECTION_RETRY.total_seconds(),
            at_start=True,
        )
        scheduler.add("ledger-purge", purge, every_seconds=purge_interval_seconds)
        scheduler.add(
            "consolidation",
            consolidate,
            every_seconds=consolidation_every.total_seconds(),
        )
        yield Components(
            settings=settings,
            store=store,
            provider=provider,
            agent=build_agent(
                provider,
                store,
                guard=guard or GuardPolicy(),
                loop_memory=LoopMemory(),
                max_tokens=settings.llm_max_tokens,
            ),
            working_memory=working_memory,
            consolidator=consolidator,
            votes=Votes(store, wake_for(worker, reflection.wake), observer),
            reasons=Reasons(
                store,
                reflection.wake,
                ask=settings.ask_for_reasons,
                reply_window=timedelta(minutes=settings.reason_reply_minutes),
            ),
            forgetting=Forgetting(store, working_memory, observer),
            observer=observer,
            scheduler=scheduler,
            reflection=reflection,
            reflection_worker=worker,
        )


async def consolidate_now(consolidator: Consolidator) -> ConsolidationReport:
    """Turn recent rated answers into wisdom notes now (the schedule calls this too)."""
    report = await consolidator.consolidate(now=datetime.now(UTC))
    log.info(
        "consolidated %d conversation(s) into %d note(s); %d skipped",
        report.scopes,
        report.notes,
        report.skipped,
    )
    return report


def wake_for(
    worker: ReflectionWorker, wake_reflection: Callable[[], None]
) -> Callable[[EpisodeStatus], None]:
    """What a stored vote calls: wake reflection when the answer's new status gives the
    worker something to do (a burst of 👍 with importance unweighted gives it nothing, and
    each wake-up would cost a look at an empty queue)."""

    def wake(status: EpisodeStatus) -> None:
        if worker.has_work_for(status):
            wake_reflection()

    return wake


def reflection_run(worker: ReflectionWorker) -> JobRun:
    """The scheduler's reflection job: one batch, and at once another after a full one."""

    async def reflect() -> bool:
        report = await worker.run_once()
        return report.stored == worker.batch

    return reflect


def build_consolidator(
    store: MemoryStore, provider: Provider, settings: AdminSettings
) -> Consolidator:
    """Turns recent rated answers into wisdom notes every ``CONSOLIDATION_INTERVAL_HOURS``.
    It looks back two intervals, so a run that was missed or late (a restart) loses nothing."""
    return Consolidator(
        store,
        LLMEpisodeSummarizer(provider),
        lookback=timedelta(hours=2 * settings.consolidation_interval_hours),
    )


def build_working_memory() -> WorkingMemory:
    """Per-thread notes: a thread idle for two hours is dropped; at most 16 notes of at
    most 800 characters each, so they cost the prompt a bounded few thousand tokens."""
    return WorkingMemory(ttl=timedelta(hours=2), max_keys_per_thread=16, max_value_chars=800)
