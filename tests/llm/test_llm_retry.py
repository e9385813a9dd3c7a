"""The retry loop and Retry-After parsing, with a recorded sleep instead of real waiting."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.agent.provider import ModelUnavailable
from bot.llm.retry import (
    RetryableFailure,
    RetryPolicy,
    backoff_delay,
    retry_after_seconds,
    run_with_retries,
)

NOW = datetime(2026, 11, 23, 9, 0, 0, tzinfo=UTC)


class FakeTime:
    """A clock that only moves when the retry loop sleeps; records every sleep."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Attempts:
    """An attempt that raises the given failures in turn, then succeeds; counts its calls."""

    def __init__(self, *failures: RetryableFailure) -> None:
        self.remaining = list(failures)
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.remaining:
            raise self.remaining.pop(0)
        return "ok"


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


async def test_retries_until_success_with_exponential_backoff() -> None:
    time = FakeTime()
    attempt = Attempts(RetryableFailure("503"), RetryableFailure("503"))
    policy = RetryPolicy(max_attempts=5, base_delay=1.0, max_delay=100.0)

    result = await run_with_retries(
        policy, attempt, sleep=time.sleep, clock=time.clock, jitter=lambda: 0.0
    )

    assert result == "ok"
    assert time.sleeps == [0.5, 1.0]


async def test_waits_as_long_as_retry_after_asks_when_that_is_longer() -> None:
    time = FakeTime()
    attempt = Attempts(RetryableFailure("429", retry_after=7.0))

    await run_with_retries(RetryPolicy(base_delay=0.1), attempt, sleep=time.sleep, clock=time.clock)

    assert time.sleeps == [7.0]


async def test_gives_up_after_max_attempts() -> None:
    time = FakeTime()
    attempt = Attempts(*[RetryableFailure("503")] * 10)

    with pytest.raises(ModelUnavailable, match="after 3 attempts"):
        await run_with_retries(
            RetryPolicy(max_attempts=3), attempt, sleep=time.sleep, clock=time.clock
        )

    assert attempt.calls == 3
    assert len(time.sleeps) == 2


async def test_gives_up_before_a_wait_that_would_end_past_the_budget() -> None:
    time = FakeTime()
    attempt = Attempts(*[RetryableFailure("503")] * 10)
    policy = RetryPolicy(max_attempts=10, total_budget_seconds=10.0, base_delay=2.0)

    with pytest.raises(ModelUnavailable, match="budget"):
        await run_with_retries(
            policy, attempt, sleep=time.sleep, clock=time.clock, jitter=lambda: 0.999
        )

    assert time.sleeps and sum(time.sleeps) <= 10.0
    assert attempt.calls == len(time.sleeps) + 1


async def test_other_errors_pass_through_untouched() -> None:
    async def attempt() -> str:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        await run_with_retries(RetryPolicy(), attempt)
