"""The model endpoint's state, checked every so often: a detail of ``/healthz`` and the
``bot_model_up`` metric, never a reason to be unready.

A replica whose model is down still records votes and serves ``/forget`` and ``/memory``
(none needs the model), and tells askers the model is unavailable; taking it out of the
load balancer would fail all of that too. So ``/readyz`` asks only the database, and the
model's state is reported here for operators and alerts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from pydantic import BaseModel

from bot.llm import ModelStatus
from bot.observability.metrics import BotMetrics

__all__ = ["MODEL_CHECK_SECONDS", "ModelHealth", "ModelReport"]

MODEL_CHECK_SECONDS = 30.0
"""How often each running bot asks the model endpoint for its models (``GET /models``)."""
NOT_CHECKED = "not checked yet"


class ModelReport(BaseModel):
    """What ``/healthz`` says of the model: ``ok``, or what is wrong, in a few words."""

    model: str
    model_endpoint: str
    """``LLM_BASE_URL`` without credentials."""
    model_checked_at: datetime | None


class ModelHealth:
    """The last answer of ``check`` (the probe of ``LLM_BASE_URL`` for ``LLM_MODEL``), kept
    for ``/healthz`` and mirrored in ``bot_model_up``."""

    def __init__(
        self, check: Callable[[], Awaitable[ModelStatus]], *, endpoint: str, metrics: BotMetrics
    ) -> None:
        self._check = check
        self._endpoint = endpoint
        self._metrics = metrics
        self._status: ModelStatus | None = None
        self._checked_at: datetime | None = None

    async def refresh(self) -> None:
        """Ask the endpoint now (the scheduler's ``model-check`` job)."""
        status = await self._check()
        self._status, self._checked_at = status, datetime.now(UTC)
        self._metrics.model_up.set(1 if status.ok else 0)

    def report(self) -> ModelReport:
        status = self._status
        state = NOT_CHECKED if status is None else status.problem or "ok"
        return ModelReport(
            model=state, model_endpoint=self._endpoint, model_checked_at=self._checked_at
        )
