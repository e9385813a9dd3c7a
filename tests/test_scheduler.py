"""The background scheduler: jobs run on time or when woken, and a failure is seen in full
(its traceback) without the text of the exception, which may quote people."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.scheduler import Scheduler

SECRET = "zanzibar-quokka"


def parse_the_answer(text: str) -> int:
    return int(text)  # a programming error: the text is not a number


async def test_a_failing_job_logs_its_traceback_without_people_s_text_and_runs_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    runs = 0
    ran_twice = asyncio.Event()

    async def broken() -> None:
        nonlocal runs
        runs += 1
        if runs == 2:
            ran_twice.set()
        parse_the_answer(f"the person wrote {SECRET}")

    scheduler = Scheduler()
    scheduler.add("broken", broken, every_seconds=0.01, at_start=True)
    with caplog.at_level(logging.ERROR, logger="bot.scheduler"):
        scheduler.start()
        await asyncio.wait_for(ran_twice.wait(), 5)
        await scheduler.stop()

    assert "background job broken failed" in caplog.text
    assert "in parse_the_answer <- " in caplog.text and "in broken" in caplog.text
    assert "ValueError" in caplog.text
    assert SECRET not in caplog.text


async def test_a_job_waits_its_interval_unless_woken() -> None:
    ran = asyncio.Event()

    async def job() -> None:
        ran.set()

    scheduler = Scheduler()
    handle = scheduler.add("job", job, every_seconds=3600)
    scheduler.start()
    await asyncio.sleep(0.05)
    assert not ran.is_set()

    handle.wake()
    await asyncio.wait_for(ran.wait(), 5)
    await scheduler.stop()


async def test_a_job_with_more_work_runs_again_at_once() -> None:
    batches = [3, 2, 1, 0]
    done = asyncio.Event()

    async def job() -> bool:
        left = batches.pop(0)
        if not batches:
            done.set()
        return left > 0

    scheduler = Scheduler()
    scheduler.add("drain", job, every_seconds=3600, at_start=True)
    scheduler.start()
    await asyncio.wait_for(done.wait(), 5)
    await scheduler.stop()


async def test_stop_ends_a_job_in_the_middle_of_a_run() -> None:
    started = asyncio.Event()

    async def hangs() -> None:
        started.set()
        await asyncio.Event().wait()

    scheduler = Scheduler()
    scheduler.add("hangs", hangs, every_seconds=3600, at_start=True)
    scheduler.start()
    await asyncio.wait_for(started.wait(), 5)

    async with asyncio.timeout(5):
        await scheduler.stop()
