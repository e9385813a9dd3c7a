"""The one place background work runs: each job every so often, or sooner when woken.

A job that raises is logged with its full traceback on one line, the exception's message
left out (it may quote what people wrote; :func:`bot.logging_setup.exception_trace`), and
runs again at its next time: a programming error is seen at once and never retried
silently. Jobs stop when the scheduler stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.logging_setup import exception_trace

__all__ = ["Job", "JobRun", "Scheduler"]

log = logging.getLogger(__name__)

JobRun = Callable[[], Awaitable[bool | None]]
"""One run of a job; returning True asks for the next run at once (more work is waiting)."""


@dataclass(eq=False)
class Job:
    """A named piece of background work and when it runs."""

    name: str
    run: JobRun
    every_seconds: float
    at_start: bool = False
    """Run once as soon as the scheduler starts, rather than after the first interval."""
    _woken: asyncio.Event = field(default_factory=asyncio.Event, init=False, repr=False)

    def wake(self) -> None:
        """Run soon, without waiting for the rest of the interval."""
        self._woken.set()

    async def _wait(self) -> None:
        with contextlib.suppress(TimeoutError):
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a
            # cancellation that arrives as the event is set, and stop() then hangs.
            async with asyncio.timeout(self.every_seconds):
                await self._woken.wait()
        self._woken.clear()


class Scheduler:
    """Runs its jobs from :meth:`start` until :meth:`stop`."""

    def __init__(self) -> None:
        self._jobs: list[Job] = []
        self._tasks: list[asyncio.Task[None]] = []

    def add(self, name: str, run: JobRun, *, every_seconds: float, at_start: bool = False) -> Job:
        if every_seconds <= 0:
            raise ValueError("every_seconds must be positive")
        if self._tasks:
            raise RuntimeError("add jobs before the scheduler starts")
        job = Job(name, run, every_seconds, at_start)
        self._jobs.append(job)
        return job

    def start(self) -> None:
        self._tasks = [
            asyncio.get_running_loop().create_task(self._loop(job), name=job.name)
            for job in self._jobs
        ]

    async def stop(self) -> None:
        """Cancel every job (a run in progress stops at its next ``await``) and wait."""
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    @staticmethod
    async def _loop(job: Job) -> None:
        if not job.at_start:
            await job._wait()
        while True:
            try:
                again = await job.run()
            except Exception as error:
                log.error(
                    "background job %s failed; it runs again within %gs: %s",
                    job.name,
                    job.every_seconds,
                    exception_trace(error),
                )
                again = False
            if not again:
                await job._wait()
