"""``/forget`` of one person while others keep recalling and voting: how long the erasure
takes, and what the recalls and votes that ran meanwhile waited (their p99), next to the
same traffic's p99 just before, with nothing being erased.

The store is the SQLite one with one database thread, so an erasure holds up every other
call for its whole length: the p99 of the traffic during it is what people notice.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from pydantic import BaseModel

from benchmarks.harness import percentile
from benchmarks.recall import queries
from benchmarks.stores import exchanges
from memory import MemoryConfig, MemoryStore, NewExchange, VoteEvent, open_store

__all__ = ["ForgetUnderLoad", "forget_under_load"]

QUIET_CALLS = 300
"""Recalls and votes each, timed before the erasure as the baseline."""
BALLOTS = 2_000
"""Pending answers recorded for the voters, more than the traffic can use up."""


class ForgetUnderLoad(BaseModel):
    """The erasure and the traffic around it, in milliseconds."""

    forget_ms: float
    erased: int
    recalls_ms: list[float]
    votes_ms: list[float]
    quiet_recalls_ms: list[float]
    quiet_votes_ms: list[float]

    def line(self, kind: str) -> str:
        during, quiet = (
            (self.recalls_ms, self.quiet_recalls_ms)
            if kind == "recalls"
            else (self.votes_ms, self.quiet_votes_ms)
        )
        return (
            f"{kind} p99 {percentile(during, 0.99):.1f} ms during it ({len(during)} calls),"
            f" {percentile(quiet, 0.99):.1f} ms before it"
        )


def _ballots(count: int) -> list[tuple[NewExchange, VoteEvent]]:
    """Answers on messages no store has seen, to be voted on during the measurement."""
    pairs = []
    for index, (exchange, vote) in enumerate(exchanges(count)):
        ts = f"{1_900_000_000 + index}.000400"
        pairs.append(
            (
                exchange.model_copy(update={"message_ts": [ts]}),
                vote.model_copy(update={"message_ts": ts}),
            )
        )
    return pairs


async def _traffic(
    store: MemoryStore, votes: list[VoteEvent], *, calls: int, until: asyncio.Task[object] | None
) -> tuple[list[float], list[float]]:
    """One recall loop and one vote loop side by side, each call timed: ``calls`` of each,
    or, given ``until``, as many as start before it is done."""
    recall_ms: list[float] = []
    vote_ms: list[float] = []
    requests = queries(calls if until is None else 10_000)

    def more(done: int) -> bool:
        return done < calls if until is None else not until.done()

    async def recalling() -> None:
        for request in requests:
            if not more(len(recall_ms)):
                return
            started = time.perf_counter()
            await store.recall(request)
            recall_ms.append((time.perf_counter() - started) * 1000)

    async def voting() -> None:
        for vote in votes:
            if not more(len(vote_ms)):
                return
            started = time.perf_counter()
            await store.apply_vote(vote)
            vote_ms.append((time.perf_counter() - started) * 1000)

    await asyncio.gather(recalling(), voting())
    return recall_ms, vote_ms


async def forget_under_load(path: Path, user: str) -> ForgetUnderLoad:
    """Forget ``user`` in the store at ``path`` while recalls and votes run."""
    store = await open_store(str(path), MemoryConfig())
    try:
        ballots = _ballots(BALLOTS)
        for exchange, _ in ballots:
            await store.record_exchange(exchange)
        votes = [vote for _, vote in ballots]
        quiet_recalls, quiet_votes = await _traffic(
            store, votes[:QUIET_CALLS], calls=QUIET_CALLS, until=None
        )
        started = time.perf_counter()
        forgetting = asyncio.create_task(store.forget_user(user))
        recalls, during_votes = await _traffic(
            store, votes[QUIET_CALLS:], calls=0, until=forgetting
        )
        report = await forgetting
        forget_ms = (time.perf_counter() - started) * 1000
        return ForgetUnderLoad(
            forget_ms=forget_ms,
            erased=report.total,
            recalls_ms=recalls,
            votes_ms=during_votes,
            quiet_recalls_ms=quiet_recalls,
            quiet_votes_ms=quiet_votes,
        )
    finally:
        await store.close()
