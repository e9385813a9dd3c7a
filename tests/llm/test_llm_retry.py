"""Retries and Retry-After parsing, with a recorded sleep instead of real waiting."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.agent.provider import ModelUnavailable
from bot.llm.retry import (
    Retries,
    RetryableFailure,
    RetryPolicy,
    backoff_delay,
    retry_after_seconds,
)

NOW = datetime(2026, 11, 23, 9, 0, 0, tzinfo=UTC)


class FakeTime:
    """A clock that only moves when the retries sleep; records every sleep."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("3", 3.0),
        ("0", 0.0),
        (" 1.5 ", 1.5),
        ("-4", 0.0),
        ("Mon, 23 Nov 2026 09:00:20 GMT", 20.0),
        ("Mon, 23 Nov 2026 08:59:00 GMT", 0.0),
        ("soon", None),
        ("nan", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_accepts_seconds_and_http_dates(header: str | None, expected: float) -> None:
    assert retry_after_seconds(header, now=NOW) == expected


@given(retry_number=st.integers(1, 30), jitter=st.floats(0, 1, exclude_max=True))
def test_backoff_grows_but_stays_between_half_step_and_the_cap(
    retry_number: int, jitter: float
) -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=8.0)
    step = min(8.0, 0.5 * 2 ** (retry_number - 1))

    delay = backoff_delay(policy, retry_number, jitter=jitter)

    assert step / 2 <= delay <= step


async def test_each_retry_waits_longer_than_the_one_before() -> None:
    time = FakeTime()
    policy = RetryPolicy(max_attempts=5, base_delay=1.0, max_delay=100.0)
    retries = Retries(policy, sleep=time.sleep, clock=time.clock, jitter=lambda: 0.0)

    await retries.after(RetryableFailure("503"))
    await retries.after(RetryableFailure("503"))

    assert time.sleeps == [0.5, 1.0]


async def test_waits_as_long_as_retry_after_asks_when_that_is_longer() -> None:
    time = FakeTime()
    retries = Retries(RetryPolicy(base_delay=0.1), sleep=time.sleep, clock=time.clock)

    await retries.after(RetryableFailure("429", retry_after=7.0))

    assert time.sleeps == [7.0]


async def test_gives_up_after_max_attempts() -> None:
    time = FakeTime()
    retries = Retries(RetryPolicy(max_attempts=3), sleep=time.sleep, clock=time.clock)
    await retries.after(RetryableFailure("503"))
    await retries.after(RetryableFailure("503"))

    with pytest.raises(ModelUnavailable, match="after 3 attempts") as raised:
        await retries.after(RetryableFailure("503"))

    assert len(time.sleeps) == 2
    assert isinstance(raised.value.__cause__, RetryableFailure)


async def test_gives_up_before_a_wait_that_would_end_past_the_budget() -> None:
    time = FakeTime()
    policy = RetryPolicy(max_attempts=10, total_budget_seconds=10.0, base_delay=2.0)
    retries = Retries(policy, sleep=time.sleep, clock=time.clock, jitter=lambda: 0.999)

    with pytest.raises(ModelUnavailable, match="budget"):
        for _ in range(10):
            await retries.after(RetryableFailure("503"))

    assert time.sleeps and sum(time.sleeps) <= 10.0
    assert len(time.sleeps) < 9, "it gave up on the budget, not on the attempts"
