"""Keeping track of answers being worked on, so shutdown can let them finish."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from bot.slack.unreachable import slack_unreachable

__all__ = ["InFlight"]

log = logging.getLogger(__name__)


class InFlight:
    """The set of running answer tasks: wait for them, or give up on them after a grace period."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    def __len__(self) -> int:
        return len(self._tasks)

    def start(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``work`` as a tracked task (it keeps running after the caller returns)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        self._idle.clear()
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        error = None if task.cancelled() else task.exception()
        if error is not None and (cause := slack_unreachable(error)) is not None:
            log.error("background work failed: %s", cause)  # one line, not a traceback
        elif error is not None:
            log.error("answer task failed", exc_info=error)
        if not self._tasks:
            self._idle.set()

    async def wait_idle(self) -> None:
        """Return once no tracked task is running."""
        await self._idle.wait()

    async def drain(self, grace_seconds: float) -> int:
        """Let running tasks finish within ``grace_seconds``; cancel the rest.

        Returns how many were abandoned. A cancelled answer stops at an ``await``: the store
        writes each row in one transaction, so the database stays consistent."""
        if not self._tasks:
            return 0
        _, pending = await asyncio.wait(set(self._tasks), timeout=grace_seconds)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)
            log.warning("abandoned %d answer(s) still running at shutdown", len(pending))
        return len(pending)
