"""Wiring Bolt to the bot: the AsyncApp, its Slack client, and the listeners over what
:mod:`bot.composition` builds, with a start/stop lifecycle."""

from __future__ import annotations

import logging
from contextlib import AsyncExitStack
from datetime import timedelta
from functools import partial

import aiohttp
from slack_bolt.async_app import AsyncApp
from slack_bolt.middleware.authorization.async_single_team_authorization import (
    AsyncSingleTeamAuthorization,
)
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.agent import GuardPolicy
from bot.answering import BotIdentity, InFlight, WaitingLine
from bot.answering.kept_questions import KeptQuestions, QuestionPolicy
from bot.composition import (
    PURGE_INTERVAL_SECONDS,
    Components,
    open_components,
    probe_configured_model,
)
from bot.config import Settings
from bot.listeners import Services, register
from bot.listeners.workspace import answering_for_kept
from bot.llm import RetryPolicy, describe_endpoint
from bot.oauth import StoreHandle, build_oauth_settings
from bot.oauth.revocations import RevokedTokens
from bot.observability import BotMetrics, Observer, slack_call_tracing
from bot.observability.model_health import MODEL_CHECK_SECONDS, ModelHealth

__all__ = ["Bot"]

log = logging.getLogger(__name__)

_EACH_WORKSPACE = BotIdentity(user_id="", bot_id=None, team_id="")
"""The answering service's identity in OAuth mode, never used as it is: each event is
answered as the bot of its own workspace (see :mod:`bot.listeners.workspace`)."""


class Bot:
    """The running bot: ``await bot.start()`` (auth.test, build the components, start the
    background jobs), then serve ``bot.app``; ``await bot.stop(grace_seconds)`` lets answers
    in flight finish, then closes everything."""

    def __init__(
        self,
        settings: Settings,
        *,
        llm_retry: RetryPolicy | None = None,
        guard: GuardPolicy | None = None,
        purge_interval_seconds: float = PURGE_INTERVAL_SECONDS,
        model_check_seconds: float = MODEL_CHECK_SECONDS,
    ) -> None:
        self.settings = settings
        self._llm_retry = llm_retry
        self._guard = guard
        self._purge_interval = purge_interval_seconds
        self._installations = StoreHandle()
        """The store installations are kept in (OAuth mode), once it is open."""
        token = None if settings.oauth_mode else settings.slack_bot_token
        oauth = (
            build_oauth_settings(settings, self._installations, _api_client(settings))
            if settings.oauth_mode
            else None
        )
        self._authorize = None if oauth is None else oauth.authorize
        """Finds a workspace's bot token (OAuth mode), for the questions kept of it."""
        self.app = AsyncApp(
            # OAuth mode: each workspace's token, from its installation (a SLACK_BOT_TOKEN
            # also set is not used).
            token=None if token is None else token.get_secret_value(),
            signing_secret=settings.slack_signing_secret.get_secret_value(),
            oauth_settings=oauth,
            # Slack hears back once the listener returns, not before it runs: a listener
            # stores what a 200 promises (a vote, a question) in its own body, and hands
            # anything slow to a task (bot.listeners).
            process_before_response=True,
            # A request no listener takes goes to bot.listeners.errors (one line, 404)
            # instead of Bolt's warning, which quotes the payload.
            raise_error_for_unhandled_request=True,
        )
        # Bolt builds its own client (handing it one makes Bolt warn whenever SLACK_BOT_TOKEN
        # is also in the environment); point it at SLACK_API_URL and let it retry. Each
        # request's client (a workspace's token, in OAuth mode) is a copy of it.
        self.client: AsyncWebClient = self.app.client
        self.client.base_url = str(settings.slack_api_url)
        self.client.timeout = settings.slack_timeout_seconds
        self.client.retry_handlers = _retry_handlers()
        self.metrics = BotMetrics()
        """What ``GET /metrics`` shows."""
        self.observer = Observer(self.metrics)
        self.model_health = ModelHealth(
            lambda: probe_configured_model(settings),
            endpoint=describe_endpoint(str(settings.llm_base_url)),
            metrics=self.metrics,
        )
        """The model's state, checked every ``model_check_seconds``: ``/healthz`` shows it."""
        self._model_check_seconds = model_check_seconds
        self.services: Services | None = None
        self.components: Components | None = None
        self._resources = AsyncExitStack()

    @property
    def ready(self) -> bool:
        """True once Slack accepted the token and the database is open."""
        return self.services is not None

    async def start(self) -> None:
        # One connection pool for every Web API call: without a session the SDK opens (and,
        # against slack.com, TLS-handshakes) a new connection for each call. The SDK applies
        # its client's timeout only to sessions it makes itself, so this one carries it.
        self.client.session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=self.settings.slack_timeout_seconds),
            trace_configs=[slack_call_tracing(self.metrics)],
        )
        self._resources.push_async_callback(self._close_slack_session)
        try:
            identity = None if self.settings.oauth_mode else await self._identify()
            components = await self._resources.enter_async_context(
                open_components(
                    self.settings,
                    llm_retry=self._llm_retry,
                    guard=self._guard,
                    purge_interval_seconds=self._purge_interval,
                    observer=self.observer,
                )
            )
        except BaseException:
            await self._resources.aclose()
            raise
        self._installations.store = components.store
        kept = KeptQuestions(
            components.store,
            QuestionPolicy(
                lease=timedelta(seconds=self.settings.question_lease_seconds),
                max_attempts=self.settings.question_max_attempts,
                answer_within=timedelta(minutes=self.settings.question_answer_within_minutes),
            ),
            store_patience_seconds=self.settings.store_retry_seconds,
        )
        services = Services(
            answering=components.answering(
                self.client,
                identity or _EACH_WORKSPACE,
                line=WaitingLine(
                    self.settings.max_concurrent_answers,
                    max_waiting=self.settings.answer_queue_limit,
                    max_wait_seconds=self.settings.answer_wait_seconds,
                ),
                store_patience_seconds=self.settings.store_retry_seconds,
            ),
            memory=components.store,
            identity=identity,
            votes=components.votes,
            reasons=components.reasons,
            forgetting=components.forgetting,
            inflight=InFlight(),
            kept=kept,
            observer=self.observer,
            revoked=RevokedTokens(),
        )
        register(self.app, services)
        components.scheduler.add(
            "model-check",
            self.model_health.refresh,
            every_seconds=self._model_check_seconds,
            at_start=True,
        )
        answering_for = partial(answering_for_kept, services, self._authorize, self.client)
        components.scheduler.add(
            "kept-questions",
            lambda: kept.tend(answering_for, services.inflight.start),
            every_seconds=kept.policy.every_seconds,
            at_start=True,
        )
        components.scheduler.start()
        self._resources.push_async_callback(components.scheduler.stop)
        self.components, self.services = components, services
        if identity is None:
            log.info("ready for the workspaces that installed the app (OAuth)")
        else:
            log.info("ready as %s in team %s", identity.user_id, identity.team_id)

    async def _identify(self) -> BotIdentity:
        """Who the bot is in its one workspace (single-token mode), from ``auth.test``.

        Bolt's authorization middleware is handed the same answer: left to itself, it calls
        ``auth.test`` on the first request, before that request is acknowledged (Slack
        waits 3 s), and Bolt offers no setting for it."""
        auth = await self.client.auth_test()
        for middleware in self.app._async_middleware_list:
            if isinstance(middleware, AsyncSingleTeamAuthorization):
                middleware.auth_test_result = auth
        return BotIdentity(
            user_id=str(auth["user_id"]), bot_id=auth.get("bot_id"), team_id=str(auth["team_id"])
        )

    async def stop(self, grace_seconds: float = 10.0) -> None:
        """Finish (or abandon after ``grace_seconds``) answers in flight, let go of the
        questions left unanswered (another replica, or the next start, takes them up),
        then close."""
        services, self.services = self.services, None
        if services is not None:
            services.kept.stop_taking()
            await services.inflight.drain(grace_seconds)
            await services.kept.let_go()
        self.components = None
        await self._resources.aclose()

    async def _close_slack_session(self) -> None:
        session, self.client.session = self.client.session, None
        if session is not None:
            await session.close()


def _retry_handlers() -> list[AsyncRetryHandler]:
    return [
        AsyncConnectionErrorRetryHandler(),
        AsyncRateLimitErrorRetryHandler(max_retry_count=2),
        AsyncServerErrorRetryHandler(max_retry_count=1),
    ]


def _api_client(settings: Settings) -> AsyncWebClient:
    """A client without a token for ``SLACK_API_URL``: what refreshes rotated tokens."""
    return AsyncWebClient(
        base_url=str(settings.slack_api_url),
        timeout=settings.slack_timeout_seconds,
        retry_handlers=_retry_handlers(),
    )
