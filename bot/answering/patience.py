"""Waiting out a database that is briefly away (a restart, a failover) instead of dropping
what Slack was already told is received.

A question is acknowledged before it is answered, and Slack never sends an acknowledged
event again: if the store cannot be reached then, the question must wait for it. The
store's reads and claims are idempotent, so they are tried again with a growing pause,
for a bounded time; after that the caller tells the person.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from memory import StoreClosed, StoreError

__all__ = ["STORE_UNAVAILABLE", "when_the_store_answers"]

log = logging.getLogger(__name__)

T = TypeVar("T")

STORE_UNAVAILABLE = (
    "I couldn't reach my memory database, so I couldn't answer. Please ask again in a few minutes."
)
FIRST_PAUSE_SECONDS = 0.25
LONGEST_PAUSE_SECONDS = 4.0


async def when_the_store_answers(call: Callable[[], Awaitable[T]], *, within: float) -> T:
    """``call()``, tried again while the store fails, for up to ``within`` seconds; then its
    :class:`memory.StoreError` is raised. A closed store (shutting down) is not waited for."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    pause = FIRST_PAUSE_SECONDS
    while True:
        try:
            return await call()
        except StoreClosed:
            raise
        except StoreError as error:
            if loop.time() + pause > deadline:
                raise
            log.warning(
                "the memory store failed (%s); trying again in %.2f s", type(error).__name__, pause
            )
        await asyncio.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE_SECONDS)
