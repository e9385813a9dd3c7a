"""``/forget`` of one person while others keep recalling and voting: how long the erasure
takes, and what the recalls and votes that ran meanwhile waited (their p99), next to the
same traffic's p99 just before, with nothing being erased.

The store is the SQLite one with one database thread, so an erasure holds up every other
call for its whole length: the p99 of the traffic during it is what people notice.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel

from benchmarks.harness import percentile
from benchmarks.recall import queries
from benchmarks.stores import newcomers
from memory import MemoryConfig, MemoryStore, RecallRequest, VoteEvent, open_store

__all__ = ["ForgetUnderLoad", "Traffic", "forget_under_load"]

T = TypeVar("T")

QUIET_CALLS = 300
"""Recalls and votes each, timed before the erasure as the baseline."""
DURING_CALLS = 1_000
"""Recalls ready for the time of the erasure, more than can run during it."""
BALLOTS = 2_000
"""Pending answers recorded for the voters, more than the traffic can use up."""


class Traffic(BaseModel):
    """How long each recall and each vote took, in milliseconds."""

    recalls_ms: list[float]
    votes_ms: list[float]

    def of(self, kind: Literal["recalls", "votes"]) -> list[float]:
        return self.recalls_ms if kind == "recalls" else self.votes_ms


class ForgetUnderLoad(BaseModel):
    """The erasure, in milliseconds, and the traffic during it and just before it."""

    forget_ms: float
    erased: int
    during: Traffic
    quiet: Traffic

    def line(self, kind: Literal["recalls", "votes"]) -> str:
        during, quiet = self.during.of(kind), self.quiet.of(kind)
        return (
            f"{kind} p99 {percentile(during, 0.99):.1f} ms during it ({len(during)} calls),"
            f" {percentile(quiet, 0.99):.1f} ms before it"
        )


async def _traffic(
    store: MemoryStore,
    requests: list[RecallRequest],
    votes: list[VoteEvent],
    *,
    calls: int,
    until: asyncio.Task[object] | None,
) -> Traffic:
    """One recall loop and one vote loop side by side, each call timed: ``calls`` of each,
    or, given ``until``, as many as start before it is done."""
    recall_ms: list[float] = []
    vote_ms: list[float] = []

    def more(done: int) -> bool:
        return done < calls if until is None else not until.done()

    async def timing(
        call: Callable[[T], Awaitable[object]], args: list[T], into: list[float]
    ) -> None:
        for arg in args:
            if not more(len(into)):
                return
            started = time.perf_counter()
            await call(arg)
            into.append((time.perf_counter() - started) * 1000)

    await asyncio.gather(
        timing(store.recall, requests, recall_ms), timing(store.apply_vote, votes, vote_ms)
    )
    return Traffic(recalls_ms=recall_ms, votes_ms=vote_ms)


async def forget_under_load(path: Path, user: str, *, turn: int = 0) -> ForgetUnderLoad:
    """Forget ``user`` in the store at ``path`` while recalls and votes run (``turn``
    numbers the calls on one store, whose voters each need messages of their own)."""
    store = await open_store(str(path), MemoryConfig())
    try:
        ballots = newcomers(BALLOTS, first_ts=1_900_000_000 + turn * BALLOTS)
        for exchange, _ in ballots:
            await store.record_exchange(exchange)
        votes = [vote for _, vote in ballots]
        requests = queries(QUIET_CALLS + DURING_CALLS)  # built before the clock starts
        quiet = await _traffic(
            store, requests[:QUIET_CALLS], votes[:QUIET_CALLS], calls=QUIET_CALLS, until=None
        )
        started = time.perf_counter()
        forgetting = asyncio.create_task(store.forget_user(user))
        during = await _traffic(
            store, requests[QUIET_CALLS:], votes[QUIET_CALLS:], calls=0, until=forgetting
        )
        report = await forgetting
        forget_ms = (time.perf_counter() - started) * 1000
        return ForgetUnderLoad(forget_ms=forget_ms, erased=report.total, during=during, quiet=quiet)
    finally:
        await store.close()
