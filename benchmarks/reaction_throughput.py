"""``reaction_throughput_ratio``: votes per second into memory, against Bolt's own speed.

Signed ``reaction_added`` events (👍 by the askers, each on a different answer in the
ledger) go through the real HTTP server and Bolt app into the store; each one's
200 comes only after its vote is committed, and the clock stops at the later of the last
200 and the last commit (the same moment, unless a vote is acknowledged before it is
stored). Commits are counted where the bot hands the vote to the store, which returns
once the vote's transaction has committed. The baseline is the same app with a no-op
``reaction_added`` listener registered ahead of the bot's own (so its votes are neither
committed nor waited for), so the ratio is the share of Bolt's throughput the durable
vote path keeps. A vote refused with a 503 (not committed within 2 s) is counted and
printed, not timed. The events come from another process (:mod:`benchmarks.load`), a
bounded number with bounded concurrency.

``reaction_throughput_ratio_postgres`` is the same, with the bot's store in a new schema of
the PostgreSQL server the tests use (:mod:`tests.support.postgres_scratch`); the target is the
embedded default's, and this figure is printed beside it.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from contextlib import AsyncExitStack
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
from bot.assistant.voting import Votes
from bot.composition import Components, wake_for
from bot.listeners import Services
from memory import VoteEvent, VoteOutcome, VoteRecorder
from tests.support.postgres_scratch import scratch_schema

__all__ = ["FIGURES", "NAME", "Round", "VoteCounter", "run"]

NAME = "reaction_throughput"
BACKENDS = ("sqlite", "postgres")
FIGURES = ("reaction_throughput_ratio", "reaction_throughput_ratio_postgres")

CONCURRENCY = 20
WARM_UP = 300
SETTLE_TIMEOUT_SECONDS = 120.0
REFUSED = 503
"""The status of a vote not committed within its bound: Slack delivers it again."""
ASKERS = tuple(f"U{number:04d}ASKER" for number in range(CONCURRENCY))
"""Who asked, and now votes: as many people as connections, their votes interleaved. (On
PostgreSQL one person's votes take turns on a lock of theirs; one person alone casting
thousands of votes a second would measure that lock, not the store.)"""


class VoteCounter(VoteRecorder):
    """Stands between the bot's votes and the store: notes when each vote that counted
    came back committed."""

    def __init__(self, store: VoteRecorder) -> None:
        self.commits: list[float] = []
        self._changed = asyncio.Event()
        self._store = store

    async def apply_vote(self, event: VoteEvent) -> VoteOutcome:
        outcome = await self._store.apply_vote(event)
        if outcome.applied:
            self.commits.append(time.perf_counter())
            self._changed.set()
        return outcome

    async def committed(self, count: int) -> float:
        """When the ``count``-th vote was committed (waiting for it, within a bound)."""
        async with asyncio.timeout(SETTLE_TIMEOUT_SECONDS):
            while len(self.commits) < count:
                self._changed.clear()
                await self._changed.wait()
        return self.commits[count - 1]


class Round(BaseModel):
    """One timed run: votes acknowledged a second, the votes refused with a 503, and the
    CPU milliseconds each event cost the bot's process and the load generator's."""

    per_second: float
    refused: int
    bot_cpu_ms: float
    load_cpu_ms: float


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
    components: Components,
    load: LoadGenerator,
    requests: list[SignedRequest],
    *,
    no_op: bool,
) -> Round:
    """Acknowledged votes a second. A 503 (a vote not committed within its bound) is an
    outcome, counted and left out of the rate; any other refusal stops the run."""
    counter = VoteCounter(services.memory)
    wake = wake_for(components.reflection_worker, components.reflection.wake)
    services.votes = Votes(counter, wake, services.observer)
    cpu_before = time.process_time()
    result = await load.send(requests, concurrency=CONCURRENCY)
    unexpected = set(result.statuses) - {200, REFUSED}
    if unexpected:
        raise RuntimeError(f"the bot refused some events: {result.statuses}")
    acknowledged = result.statuses.get(200, 0)
    finished = result.finished_at
    if not no_op and acknowledged:
        finished = max(finished, await counter.committed(acknowledged))
    return Round(
        per_second=acknowledged / (finished - result.started_at),
        refused=result.statuses.get(REFUSED, 0),
        bot_cpu_ms=(time.process_time() - cpu_before) * 1000 / len(requests),
        load_cpu_ms=result.cpu_seconds * 1000 / len(requests),
    )


async def _events_per_second(count: int, *, no_op: bool, backend: str) -> Round:
    """Votes a second after a warm-up (connections open, Bolt's auth.test cached...), into
    a new SQLite file or a new PostgreSQL schema."""
    with tempfile.TemporaryDirectory(prefix="bench-reactions-") as directory:
        async with AsyncExitStack() as stack:
            settings = None
            if backend == "postgres":
                settings = {"bot_db_url": await stack.enter_async_context(scratch_schema())}
            bench = await stack.enter_async_context(
                bot_under_test(
                    Path(directory) / "bot.db",
                    before_start=_no_op_reactions if no_op else None,
                    settings=settings,
                )
            )
            services = _services(bench)
            each = -(-(WARM_UP + count) // len(ASKERS))
            ledgers = [
                await record_answers(
                    services.memory, each, team_id=bench.fake_slack.team_id, person=asker
                )
                for asker in ASKERS
            ]
            events = [
                reaction_event(asker, channel, ts)
                for answers in zip(*ledgers, strict=True)
                for asker, (channel, ts) in zip(ASKERS, answers, strict=True)
            ][: WARM_UP + count]
            requests = signed_events(bench.slack, events)
            components = bench.server.bot.components
            assert components is not None, "the bot is not running"
            async with LoadGenerator(bench.server.url) as load:
                warm_up, measured = requests[:WARM_UP], requests[WARM_UP:]
                await _votes_per_second(services, components, load, warm_up, no_op=no_op)
                return await _votes_per_second(services, components, load, measured, no_op=no_op)


def _median(rounds: list[Round], field: str) -> float:
    return statistics.median(getattr(round_, field) for round_ in rounds)


def _ratio(backend: str, count: int, rounds: int) -> Figure:
    baselines: list[Round] = []
    apps: list[Round] = []
    for _ in range(rounds):  # alternate, so a noisy neighbour slows both alike
        baselines.append(asyncio.run(_events_per_second(count, no_op=True, backend=backend)))
        apps.append(asyncio.run(_events_per_second(count, no_op=False, backend=backend)))
    baseline = _median(baselines, "per_second")
    app = _median(apps, "per_second")
    spread = ", ".join(
        f"{a.per_second / b.per_second:.2f}" for a, b in zip(apps, baselines, strict=True)
    )
    refused = sum(round_.refused for round_ in apps)
    bot_busy = baseline * _median(baselines, "bot_cpu_ms") / 1000
    return Figure(
        name=FIGURES[BACKENDS.index(backend)],
        value=app / baseline,
        unit="ratio",
        detail=f"app {app:.0f} ev/s, no-op baseline {baseline:.0f} ev/s (medians of"
        f" {rounds} alternating rounds of {count} events after {WARM_UP} to warm up,"
        f" {CONCURRENCY} connections; ratio per round {spread};"
        f" {refused} of {rounds * count} votes refused with a 503); CPU ms per event in the"
        f" bot's process {_median(apps, 'bot_cpu_ms'):.3f} (no-op"
        f" {_median(baselines, 'bot_cpu_ms'):.3f}, its process {bot_busy:.0%} busy), in the"
        f" load generator {_median(apps, 'load_cpu_ms'):.3f} (no-op"
        f" {_median(baselines, 'load_cpu_ms'):.3f})",
        # The target is the embedded default's; PostgreSQL's figure is printed beside it.
        target=Target(comparison=Comparison.AT_LEAST, bound=0.9) if backend == "sqlite" else None,
    )


def run(quick: bool) -> list[Figure]:
    count, rounds = (1_000, 2) if quick else (4_000, 5)
    return [_ratio(backend, count, rounds) for backend in BACKENDS]
