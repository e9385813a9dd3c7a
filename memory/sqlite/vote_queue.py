"""Votes committed in groups: one transaction for every vote waiting when the database
thread comes free, each caller answered only once its own vote is committed.

A vote alone costs a transaction (and a new full-text index segment when it validates an
episode). Under a burst, votes queue for the single database thread anyway; taking all of
them at once makes one commit, one index segment and one thread hop serve the whole group.
A vote arriving while the thread is idle is applied at once, alone: grouping adds no wait.
Each vote keeps its own savepoint, so one that fails fails alone.

A vote leaves its episode's index entries to be filed later (see :mod:`memory.sqlite.fts`),
:data:`FILING_BATCH` at a time: once that many votes were applied since the last filing, or
no vote came for :data:`FILING_PAUSE_SECONDS`; votes that arrive meanwhile go first after
each batch. Each filing writes a full-text segment, which every later search and erasure
reads until the upkeep merges it: a burst of votes, filed one by one as gaps between them
opened, left hundreds of tiny segments. Recall files its own conversation's waiting
episodes first, so what a vote validated is recalled at once all the same.
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
from memory.sqlite.transactions import transaction
from memory.sqlite.votes import apply_vote

__all__ = ["FILING_BATCH", "FILING_PAUSE_SECONDS", "VoteQueue", "apply_votes"]

logger = logging.getLogger(__name__)

FILING_BATCH = 64
"""Episodes filed in one transaction: a vote arriving meanwhile waits for at most one
batch (a few tens of milliseconds)."""
FILING_PAUSE_SECONDS = 0.05
"""How long without a vote before fewer than a batch are filed."""

_Waiting = tuple[VoteEvent, "asyncio.Future[VoteOutcome]"]


def apply_votes(
    db: Database, events: list[VoteEvent], config: MemoryConfig
) -> list[VoteOutcome | Exception]:
    """Apply the votes in order, in one transaction; each vote's outcome, or the error that
    undid it (and it alone)."""
    results: list[VoteOutcome | Exception] = []
    with transaction(db):
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
        self._unfiled = 0
        """Votes applied since the last filing: at most this many episodes wait for it."""
        self._arrived = asyncio.Event()
        """Set when a vote arrives (or :meth:`settle` asks to file at once)."""
        self._settling = 0
        """Callers of :meth:`settle` waiting: while there are any, filing does not pause."""

    async def apply(self, event: VoteEvent) -> VoteOutcome:
        """Apply the vote; returns once the transaction holding it has committed."""
        outcome: asyncio.Future[VoteOutcome] = asyncio.get_running_loop().create_future()
        self._waiting.append((event, outcome))
        self._arrived.set()
        self._start()
        return await outcome

    def file_soon(self) -> None:
        """File whatever waits in the index queue (left by a run that stopped, say)."""
        self._unfiled = FILING_BATCH
        self._start()

    def _start(self) -> None:
        if self._draining is None or self._draining.done():
            self._draining = asyncio.create_task(self._drain())

    async def settle(self) -> None:
        """Wait until every vote queued so far is applied (or has failed), and their
        episodes filed (at once, without the pause)."""
        self._settling += 1
        self._arrived.set()
        try:
            while self._draining is not None and not self._draining.done():
                await asyncio.shield(self._draining)
        finally:
            self._settling -= 1

    async def _drain(self) -> None:
        while self._waiting or self._unfiled:
            if self._waiting:
                await self._apply_waiting()
            elif self._unfiled >= FILING_BATCH or self._settling or not await self._more_votes():
                await self._file()

    async def _more_votes(self) -> bool:
        """Whether a vote arrives (or :meth:`settle` is called) within the pause."""
        self._arrived.clear()
        try:
            async with asyncio.timeout(FILING_PAUSE_SECONDS):
                await self._arrived.wait()
        except TimeoutError:
            return False
        return True

    async def _apply_waiting(self) -> None:
        group, self._waiting = self._waiting, []
        self._unfiled += len(group)
        applying = partial(apply_votes, events=[event for event, _ in group], config=self._config)
        try:
            results = await self._thread.run(applying)
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
        self._unfiled = FILING_BATCH if waiting == FILING_BATCH else 0
