"""Votes committed in groups, each caller answered once its vote is committed, and their
episodes filed a batch at a time beside them (memory/README.md, *Votes in groups* and *The
index queue*)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from memory.models import VoteEvent, VoteOutcome

logger = logging.getLogger(__name__)

FILING_BATCH = 64
"""Episodes filed a transaction: a vote arriving meanwhile waits one batch (tens of ms) at most."""
FILING_PAUSE_SECONDS = 0.05
"""How long without a vote before fewer than a batch are filed."""

Filing = Callable[[int], Awaitable[int]]
"""Files up to so many waiting episodes in one unit of work; how many were waiting."""


@dataclass(eq=False, repr=False)
class VoteQueue:
    """Applies the votes of a store in groups, in the order they arrived."""

    apply_votes: Callable[[list[VoteEvent]], Awaitable[list[VoteOutcome]]]
    filing: Filing | None = None
    _waiting: list[tuple[VoteEvent, asyncio.Future[VoteOutcome]]] = field(default_factory=list)
    _draining: asyncio.Task[None] | None = None
    _filing: asyncio.Task[None] | None = None
    _unfiled: int = 0
    """Votes applied since the last filing began: at most this many episodes wait for one."""
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when a vote arrives (or :meth:`settle` asks to file at once)."""
    _settling: int = 0
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
        if self.filing is not None:
            self._unfiled = FILING_BATCH
            self._start()

    def _start(self) -> None:
        if self._draining is None or self._draining.done():
            self._draining = asyncio.create_task(self._drain())

    async def settle(self) -> None:
        """Wait until every vote queued so far is applied (or failed) and its episode filed."""
        self._settling += 1
        self._arrived.set()
        try:
            while busy := [t for t in (self._draining, self._filing) if t and not t.done()]:
                await asyncio.shield(busy[0])
        finally:
            self._settling -= 1

    async def _drain(self) -> None:
        while self._waiting or self._unfiled:
            if self._waiting:
                await self._apply_waiting()
                if self._unfiled >= FILING_BATCH:
                    self._file()  # while the next group is applied: the backlog stays short
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
        if self.filing is not None:
            self._unfiled += len(group)
        results = await self._outcomes([event for event, _ in group])
        for (_, outcome), result in zip(group, results, strict=True):
            if outcome.done():  # its caller stopped waiting (a 503): it counts anyway
                continue
            if isinstance(result, Exception):
                outcome.set_exception(result)
            else:
                outcome.set_result(result)

    async def _outcomes(self, events: list[VoteEvent]) -> list[VoteOutcome | Exception]:
        """Each vote's outcome: all applied in one unit of work, or each alone if that fails."""
        try:
            return list(await self.apply_votes(events))
        except Exception as error:  # a vote failed, the commit did, or the store is closed
            if len(events) == 1:
                return [error]
        return [result for event in events for result in await self._outcomes([event])]

    def _file(self) -> asyncio.Task[None]:
        """The filing under way, or a new one, which covers every vote applied so far."""
        if self._filing is None or self._filing.done():
            self._unfiled = 0
            self._filing = asyncio.create_task(self._file_all())
        return self._filing

    async def _file_all(self) -> None:
        """File the index queue a batch at a time until less than a batch was waiting; stop
        on an error (the queue stays, and the next vote, recall or opening files it)."""
        assert self.filing is not None, "only votes that leave filing to later are filed"
        try:
            while await self.filing(FILING_BATCH) == FILING_BATCH:
                pass
        except Exception as error:  # the store is closed, or the database failed
            logger.warning("the index queue could not be filed (%s)", type(error).__name__)
