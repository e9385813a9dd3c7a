"""Answers in flight: waited for, and abandoned only after the grace period."""

from __future__ import annotations

import asyncio

import pytest

from bot.answering import InFlight


async def test_wait_idle_returns_once_every_task_ended() -> None:
    inflight = InFlight()
    release = asyncio.Event()
    inflight.start(release.wait())
    inflight.start(release.wait())
    waiting = asyncio.create_task(inflight.wait_idle())
    await asyncio.sleep(0)
    assert not waiting.done()

    release.set()
    await waiting

    assert len(inflight) == 0


async def test_drain_lets_quick_tasks_finish_and_cancels_stuck_ones() -> None:
    inflight = InFlight()
    finished = asyncio.Event()

    async def quick() -> None:
        await asyncio.sleep(0)
        finished.set()

    stuck = inflight.start(asyncio.Event().wait())
    inflight.start(quick())

    abandoned = await inflight.drain(grace_seconds=0.05)

    assert abandoned == 1
    assert finished.is_set()
    assert stuck.cancelled()
    assert len(inflight) == 0


async def test_a_failing_task_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    inflight = InFlight()

    async def broken() -> None:
        raise RuntimeError("boom")

    inflight.start(broken())
    await inflight.wait_idle()

    assert len(inflight) == 0
    assert "answer task failed" in caplog.text


async def test_a_task_slack_did_not_answer_is_one_line_naming_the_cause(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inflight = InFlight()

    async def slack_hangs() -> None:
        raise TimeoutError

    inflight.start(slack_hangs())
    await inflight.wait_idle()

    [record] = caplog.records
    assert record.exc_info is None
    assert "Slack's Web API did not answer (timeout): check SLACK_API_URL" in record.getMessage()


async def test_drain_with_nothing_running_returns_at_once() -> None:
    assert await InFlight().drain(grace_seconds=10) == 0
