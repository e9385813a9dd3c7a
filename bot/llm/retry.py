"""Bounded retries with exponential backoff and jitter that honour ``Retry-After``."""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from pydantic import BaseModel, ConfigDict, Field

from bot.agent.provider import ModelUnavailable

__all__ = [
    "Retries",
    "RetryPolicy",
    "RetryableFailure",
    "backoff_delay",
    "retry_after_seconds",
]

logger = logging.getLogger(__name__)


class RetryPolicy(BaseModel):
    """How hard to try before declaring the model unavailable."""

    model_config = ConfigDict(frozen=True)

    max_attempts: int = Field(default=4, ge=1)
    total_budget_seconds: float = Field(
        default=20.0,
        ge=0,
        description="no retry starts later than this after the first attempt began",
    )
    base_delay: float = Field(default=0.5, ge=0, description="backoff before the first retry")
    max_delay: float = Field(default=8.0, ge=0, description="cap on the exponential backoff")


class RetryableFailure(Exception):
    """One attempt failed in a way another attempt may fix (429, 5xx, connection trouble);
    ``cause`` is the transport's error, if one was raised."""

    def __init__(
        self, reason: str, *, retry_after: float | None = None, cause: BaseException | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.__cause__ = cause


def retry_after_seconds(value: str | None, *, now: datetime | None = None) -> float | None:
    """Parse a ``Retry-After`` header: delay-seconds or an HTTP date; ``None`` if absent or bad."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(seconds, 0.0) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


def backoff_delay(policy: RetryPolicy, retry_number: int, *, jitter: float) -> float:
    """Exponential backoff with "equal jitter": half the step is fixed, half is random.

    ``retry_number`` counts from 1; ``jitter`` is a number in [0, 1)."""
    step = min(policy.max_delay, policy.base_delay * 2 ** (retry_number - 1))
    return step / 2 + step / 2 * jitter


@dataclass
class Retries:
    """The attempts at one request: after each failure that another attempt may fix, wait
    the backoff (or the server's ``Retry-After``, whichever is longer), or give up with
    :class:`ModelUnavailable` once ``max_attempts`` have failed, or as soon as the next wait
    would end past the budget."""

    policy: RetryPolicy
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    jitter: Callable[[], float] = random.random
    _failed: int = field(default=0, init=False)
    _started: float = field(init=False)

    def __post_init__(self) -> None:
        self._started = self.clock()

    async def after(self, failure: RetryableFailure) -> None:
        """Wait before the next attempt, or raise :class:`ModelUnavailable` if none is left."""
        self._failed += 1
        if self._failed >= self.policy.max_attempts:
            raise ModelUnavailable(
                f"{failure.reason}; gave up after {self._failed} attempts"
            ) from failure
        delay = max(
            backoff_delay(self.policy, self._failed, jitter=self.jitter()),
            failure.retry_after or 0.0,
        )
        if self.clock() - self._started + delay > self.policy.total_budget_seconds:
            raise ModelUnavailable(
                f"{failure.reason}; retry budget of {self.policy.total_budget_seconds:g}s exhausted"
            ) from failure
        logger.warning("LLM request failed (%s); retrying in %.2fs", failure.reason, delay)
        await self.sleep(delay)
