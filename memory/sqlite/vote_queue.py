"""Votes committed in groups: one transaction for every vote waiting when the database
thread comes free, each caller answered only once its own vote is committed.

A vote alone costs a transaction (and a new full-text index segment when it validates an
episode). Under a burst, votes queue for the single database thread anyway; taking all of
them at once makes one commit, one index segment and one thread hop serve the whole group.
A vote arriving while the thread is idle is applied at once, alone: grouping adds no wait.
Each vote keeps its own savepoint, so one that fails fails alone.

A vote leaves its episode's index entries to be filed later (see :mod:`memory.sqlite.fts`):
once no vote is waiting, the queue files them, :data:`FILING_BATCH` at a time, votes that
arrive meanwhile going first after each batch.
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial

from sqlite_utils import Database

from memory.config import MemoryConfig
from memory.models import VoteEvent, VoteOutcome
from memory.sqlite.connection import DatabaseThread, store_error
from memory.sqlite.fts import file_waiting
from memory.sqlite.votes import apply_vote

__all__ = ["FILING_BATCH", "VoteQueue", "apply_votes"]

logger = logging.getLogger(__name__)

FILING_BATCH = 64
"""Episodes filed in one transaction: a vote arriving meanwhile waits for at most one
batch (a few tens of milliseconds)."""

_Waiting = tuple[VoteEvent, "asyncio.Future[VoteOutcome]"]


def apply_votes(
    db: Database, events: list[VoteEvent], config: MemoryConfig
) -> list[VoteOutcome | Exception]:
    """Apply the votes in order, in one transaction; each vote's outcome, or the error that
    undid it (and it alone)."""
    results: list[VoteOutcome | Exception] = []
    with db.atomic():
        for event in events:
            try:
                results.append(apply_vote(db, event, config))
            except Exception as error:  # rolled back to its own savepoint
                results.append(store_error(error))
    return results


class VoteQueue:
    """Applies the votes of a store in groups, in the order they arrived."""

    def __init__(self, thread: DatabaseThread, config: MemoryConfig) -> None:
        self._thread = thread
        self._config = config
        self._waiting: list[_Waiting] = []
        self._draining: asyncio.Task[None] | None = None
        self._unfiled = False

    async def apply(self, event: VoteEvent) -> VoteOutcome:
        """Apply the vote; returns once the transaction holding it has committed."""
        outcome: asyncio.Future[VoteOutcome] = asyncio.get_running_loop().create_future()
        self._waiting.append((event, outcome))
        self._start()
        return await outcome

    def file_soon(self) -> None:
        """File whatever waits in the index queue (left by a run that stopped, say)."""
        self._unfiled = True
        self._start()

    def _start(self) -> None:
        if self._draining is None or self._draining.done():
            self._draining = asyncio.create_task(self._drain())

    async def settle(self) -> None:
        """Wait until every vote queued so far is applied (or has failed), and their
        episodes filed."""
        while self._draining is not None and not self._draining.done():
            await asyncio.shield(self._draining)

    async def _drain(self) -> None:
        while self._waiting or self._unfiled:
            if not self._waiting:
                await self._file()
                continue
            self._unfiled = True
            group, self._waiting = self._waiting, []
            events = [event for event, _ in group]
            try:
                results = await self._thread.run(
                    partial(apply_votes, events=events, config=self._config)
                )
            except Exception as error:  # the commit failed, or the store is closed
                results = [error] * len(group)
            for (_, outcome), result in zip(group, results, strict=True):
                if outcome.done():  # its caller stopped waiting (a 503): it counts anyway
                    continue
                if isinstance(result, Exception):
                    outcome.set_exception(result)
                else:
                    outcome.set_result(result)

    async def _file(self) -> None:
        """File one batch of the index queue; stop filing when it was the last one, or on
        an error (the queue stays, and the next vote or recall files it)."""
        try:
            waiting = await self._thread.run(partial(file_waiting, limit=FILING_BATCH))
        except Exception as error:  # the store is closed, or the database failed
            logger.warning("the index queue could not be filed (%s)", type(error).__name__)
            waiting = 0
        self._unfiled = waiting == FILING_BATCH
