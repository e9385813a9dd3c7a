"""``reaction_throughput_ratio``: votes per second into memory, against Bolt's own speed.

Signed ``reaction_added`` events (👍 by the asker, each on a different answer in the
ledger) go through the real HTTP server and Bolt app into the SQLite store; each one's
200 comes only after its vote is committed, and the clock stops at the later of the last
200 and the last commit (the same moment, unless a vote is acknowledged before it is
stored). The baseline is the same app with a no-op ``reaction_added`` listener registered
ahead of the bot's own (so its votes are neither committed nor waited for), so the ratio
is the share of Bolt's throughput the durable vote path keeps. A vote refused with a 503
(not committed within 2 s) is counted and printed, not timed. The events come from
another process (:mod:`benchmarks.load`), a bounded number with bounded concurrency.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from benchmarks.harness import (
    BotUnderTest,
    Comparison,
    Figure,
    Target,
    bot_under_test,
    reaction_event,
    record_answers,
)
from benchmarks.load import LoadGenerator, SignedRequest, signed_events
from bot.app import Bot
from bot.listeners import Services
from bot.votes import Votes

__all__ = ["FIGURES", "NAME", "Round", "VoteCounter", "run"]

NAME = "reaction_throughput"
FIGURES = ("reaction_throughput_ratio",)

CONCURRENCY = 20
WARM_UP = 300
SETTLE_TIMEOUT_SECONDS = 120.0
REFUSED = 503
"""The status of a vote not committed within its bound: Slack delivers it again."""
ASKER = "U0000ASKER"


class VoteCounter:
    """Stands in for the reflection worker's wake-up, which the bot calls once a vote that
    validated an episode is committed; notes when each call came, and passes it on."""

    def __init__(self, forward_to: Callable[[], None]) -> None:
        self.commits: list[float] = []
        self._changed = asyncio.Event()
        self._forward_to = forward_to

    def wake(self) -> None:
        self.commits.append(time.perf_counter())
        self._changed.set()
        self._forward_to()

    async def committed(self, count: int) -> float:
        """When the ``count``-th vote was committed (waiting for it, within a bound)."""
        async with asyncio.timeout(SETTLE_TIMEOUT_SECONDS):
            while len(self.commits) < count:
                self._changed.clear()
                await self._changed.wait()
        return self.commits[count - 1]


class Round(BaseModel):
    """One timed run: votes acknowledged a second, and the votes refused with a 503."""

    per_second: float
    refused: int


def _no_op_reactions(bot: Bot) -> None:
    async def ignore_reaction(event: dict[str, Any]) -> None:
        return None

    bot.app.event("reaction_added")(ignore_reaction)


def _services(bench: BotUnderTest) -> Services:
    services = bench.server.bot.services
    assert services is not None, "the bot is not running"
    return services


async def _votes_per_second(
    services: Services,
    load: LoadGenerator,
    requests: list[SignedRequest],
    *,
    no_op: bool,
    reflection: Callable[[], None],
) -> Round:
    """Acknowledged votes a second. A 503 (a vote not committed within its bound) is an
    outcome, counted and left out of the rate; any other refusal stops the run."""
    counter = VoteCounter(reflection)
    services.votes = Votes(services.memory, counter.wake)
    result = await load.send(requests, concurrency=CONCURRENCY)
    unexpected = set(result.statuses) - {200, REFUSED}
    if unexpected:
        raise RuntimeError(f"the bot refused some events: {result.statuses}")
    acknowledged = result.statuses.get(200, 0)
    refused = result.statuses.get(REFUSED, 0)
    if no_op or not acknowledged:
        return Round(per_second=acknowledged / result.elapsed_seconds, refused=refused)
    finished = max(result.finished_at, await counter.committed(acknowledged))
    return Round(per_second=acknowledged / (finished - result.started_at), refused=refused)


async def _events_per_second(count: int, *, no_op: bool) -> Round:
    """Votes a second after a warm-up (connections open, Bolt's auth.test cached...)."""
    with tempfile.TemporaryDirectory(prefix="bench-reactions-") as directory:
        async with bot_under_test(
            Path(directory) / "bot.db", before_start=_no_op_reactions if no_op else None
        ) as bench:
            services = _services(bench)
            ledger = await record_answers(
                services.memory, WARM_UP + count, team_id=bench.fake_slack.team_id, person=ASKER
            )
            events = [reaction_event(ASKER, channel, ts) for channel, ts in ledger]
            requests = signed_events(bench.slack, events)
            components = bench.server.bot.components
            assert components is not None, "the bot is not running"
            reflection = components.reflection.wake
            async with LoadGenerator(bench.server.url) as load:
                await _votes_per_second(
                    services, load, requests[:WARM_UP], no_op=no_op, reflection=reflection
                )
                return await _votes_per_second(
                    services, load, requests[WARM_UP:], no_op=no_op, reflection=reflection
                )


def run(quick: bool) -> list[Figure]:
    count, rounds = (1_000, 2) if quick else (4_000, 5)
    baselines: list[float] = []
    apps: list[float] = []
    refused = 0
    for _ in range(rounds):  # alternate, so a noisy neighbour slows both alike
        baselines.append(asyncio.run(_events_per_second(count, no_op=True)).per_second)
        app_round = asyncio.run(_events_per_second(count, no_op=False))
        apps.append(app_round.per_second)
        refused += app_round.refused
    baseline = statistics.median(baselines)
    app = statistics.median(apps)
    spread = ", ".join(f"{a / b:.2f}" for a, b in zip(apps, baselines, strict=True))
    return [
        Figure(
            name="reaction_throughput_ratio",
            value=app / baseline,
            unit="ratio",
            detail=f"app {app:.0f} ev/s, no-op baseline {baseline:.0f} ev/s (medians of"
            f" {rounds} alternating rounds of {count} events after {WARM_UP} to warm up,"
            f" {CONCURRENCY} connections; ratio per round {spread};"
            f" {refused} of {rounds * count} votes refused with a 503)",
            target=Target(comparison=Comparison.AT_LEAST, bound=0.9),
        )
    ]
