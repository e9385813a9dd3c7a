"""``reaction_throughput_ratio``: votes per second into memory, against Bolt's own speed.

Signed ``reaction_added`` events (👍 by the askers, each on a different answer in the
ledger) go through the real HTTP server and Bolt app into the store; each one's
200 comes only after its vote is committed, and the clock stops at the later of the last
200 and the last commit (the same moment, unless a vote is acknowledged before it is
stored). Commits are counted where the bot hands the vote to the store, which returns
once the vote's transaction has committed. The baseline is the same app with a no-op
``reaction_added`` listener registered ahead of the bot's own (so its votes are neither
committed nor waited for), so the ratio is the share of Bolt's throughput the durable
vote path keeps: information only, as on 2 cores that baseline already keeps the bot's
process at a full core, so nothing committed before its 200 comes near it.

``reaction_throughput_ratio_commit`` is the target: the bot's votes a second over those of
the physical floor of "a 200 means it is stored", the same app with a ``reaction_added``
listener whose middleware commits one row to the same store for each event before Bolt
acknowledges it (a claim of a key naming the event, :meth:`memory.MemoryStore.claim`: one
transaction, one row). ``vote_cpu_ms`` is the CPU the bot's process spends on each vote,
Bolt and the HTTP server included, and the filing of its episode in recall's index, which
the store does after the vote's commit, in batches (:mod:`memory.sql.vote_queue`). A vote
refused with a 503 (not committed within 2 s) is counted and printed, not timed. The events
come from another process (:mod:`benchmarks.load`), a bounded number with bounded
concurrency.

The ``_postgres`` figures are the same, with the bot's store in a new schema of the
PostgreSQL server the tests use (:mod:`tests.support.postgres_scratch`).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from benchmarks.harness import Figure, Target, bot_under_test, reaction_event
from benchmarks.load import LoadGenerator, SignedRequest, signed_events
from bot.app import Bot
from bot.assistant.voting import Votes
from bot.composition import Components, wake_for
from bot.listeners import Services
from memory import VoteEvent, VoteOutcome, VoteRecorder
from tests.support.answers import record_answers
from tests.support.postgres_scratch import scratch_schema

__all__ = ["FIGURES", "NAME", "Round", "VoteCounter", "run"]

NAME = "reaction_throughput"
BACKENDS = ("sqlite", "postgres")
FIGURES = tuple(
    f"{figure}{'' if backend == 'sqlite' else '_postgres'}"
    for backend in BACKENDS
    for figure in ("reaction_throughput_ratio", "reaction_throughput_ratio_commit", "vote_cpu_ms")
)
COMMIT_TARGETS = {"sqlite": 0.8, "postgres": 0.7}
"""``reaction_throughput_ratio_commit`` at least, per backend."""
VOTE_CPU_TARGET_MS = 1.0
"""``vote_cpu_ms_postgres`` at most."""

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


class Listener(StrEnum):
    """What handles the benchmark's ``reaction_added`` events."""

    VOTE = "vote"
    """The bot's own listener: the vote, committed before the 200."""
    NO_OP = "no-op"
    """A listener that does nothing, ahead of the bot's."""
    COMMIT = "commit"
    """A listener ahead of the bot's whose middleware commits one row before the 200."""


async def _ignore_reaction(event: dict[str, Any]) -> None:
    return None


def _no_op_reactions(bot: Bot) -> None:
    bot.app.event("reaction_added")(_ignore_reaction)


def _commit_reactions(bot: Bot) -> None:
    """Each event claims a key naming it in the bot's store, one row committed, before
    Bolt acknowledges it (as the vote's middleware commits the vote)."""

    async def commit_row(body: dict[str, Any], next_: Callable[[], Awaitable[None]]) -> None:
        services = bot.services
        assert services is not None, "the bot is not running"
        event = body["event"]
        key = f"bench:{event['user']}:{event['item']['channel']}:{event['item']['ts']}"
        await services.memory.claim(key, at=datetime.now(UTC))
        await next_()

    bot.app.event("reaction_added", middleware=[commit_row])(_ignore_reaction)


_REGISTER: dict[Listener, Callable[[Bot], None] | None] = {
    Listener.VOTE: None,
    Listener.NO_OP: _no_op_reactions,
    Listener.COMMIT: _commit_reactions,
}


async def _votes_per_second(
    services: Services,
    components: Components,
    load: LoadGenerator,
    requests: list[SignedRequest],
    *,
    listener: Listener,
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
    if listener is Listener.VOTE and acknowledged:
        finished = max(finished, await counter.committed(acknowledged))
    await services.memory.settle()  # the votes' episodes filed: part of what a vote costs
    return Round(
        per_second=acknowledged / (finished - result.started_at),
        refused=result.statuses.get(REFUSED, 0),
        bot_cpu_ms=(time.process_time() - cpu_before) * 1000 / len(requests),
        load_cpu_ms=result.cpu_seconds * 1000 / len(requests),
    )


async def _events_per_second(count: int, *, listener: Listener, backend: str) -> Round:
    """Votes a second after a warm-up (connections open, Bolt's auth.test cached...), into
    a new SQLite file or a new PostgreSQL schema."""
    async with AsyncExitStack() as stack:
        settings = None
        if backend == "postgres":
            settings = {"bot_db_url": await stack.enter_async_context(scratch_schema())}
        bench = await stack.enter_async_context(
            bot_under_test(before_start=_REGISTER[listener], settings=settings)
        )
        services = bench.slack.services
        each = -(-(WARM_UP + count) // len(ASKERS))
        ledgers = [
            await record_answers(
                services.memory, each, team_id=bench.fake_slack.team_id, person=asker
            )
            for asker in ASKERS
        ]
        events = [
            reaction_event(asker, episode.scope.channel_id, ts)
            for answers in zip(*ledgers, strict=True)
            for asker, (ts, episode) in zip(ASKERS, answers, strict=True)
        ][: WARM_UP + count]
        requests = signed_events(bench.slack, events)
        components = bench.server.bot.components
        assert components is not None, "the bot is not running"
        async with LoadGenerator(bench.server.url) as load:
            warm_up, measured = requests[:WARM_UP], requests[WARM_UP:]
            await _votes_per_second(services, components, load, warm_up, listener=listener)
            return await _votes_per_second(services, components, load, measured, listener=listener)


def _median(rounds: list[Round], field: str) -> float:
    return statistics.median(getattr(round_, field) for round_ in rounds)


def _figures(backend: str, count: int, rounds: int) -> list[Figure]:
    measured: dict[Listener, list[Round]] = {listener: [] for listener in Listener}
    for _ in range(rounds):  # alternate, so a noisy neighbour slows all alike
        for listener in (Listener.NO_OP, Listener.COMMIT, Listener.VOTE):
            measured[listener].append(
                asyncio.run(_events_per_second(count, listener=listener, backend=backend))
            )
    apps = measured[Listener.VOTE]
    app = _median(apps, "per_second")
    refused = sum(round_.refused for round_ in apps)
    suffix = "" if backend == "sqlite" else "_postgres"
    common = (
        f"medians of {rounds} alternating rounds of {count} events after {WARM_UP} to warm"
        f" up, {CONCURRENCY} connections; {refused} of {rounds * count} votes refused with a 503"
    )

    def ratio(baseline: Listener, name: str, target: Target | None) -> Figure:
        baselines = measured[baseline]
        per_second = _median(baselines, "per_second")
        spread = ", ".join(
            f"{a.per_second / b.per_second:.2f}" for a, b in zip(apps, baselines, strict=True)
        )
        busy = per_second * _median(baselines, "bot_cpu_ms") / 1000
        return Figure(
            name=f"{name}{suffix}",
            value=app / per_second,
            unit="ratio",
            detail=f"app {app:.0f} ev/s, {baseline} baseline {per_second:.0f} ev/s ({common};"
            f" ratio per round {spread}); CPU ms per event in the bot's process"
            f" {_median(apps, 'bot_cpu_ms'):.3f} ({baseline}"
            f" {_median(baselines, 'bot_cpu_ms'):.3f}, its process {busy:.0%} busy), in the"
            f" load generator {_median(apps, 'load_cpu_ms'):.3f} ({baseline}"
            f" {_median(baselines, 'load_cpu_ms'):.3f})",
            target=target,
        )

    return [
        ratio(Listener.NO_OP, "reaction_throughput_ratio", None),
        ratio(
            Listener.COMMIT,
            "reaction_throughput_ratio_commit",
            Target.at_least(COMMIT_TARGETS[backend]),
        ),
        Figure(
            name=f"vote_cpu_ms{suffix}",
            value=_median(apps, "bot_cpu_ms"),
            unit="ms",
            detail=f"CPU of the bot's process per vote, Bolt and HTTP included ({common});"
            f" per event with the commit-one-row listener"
            f" {_median(measured[Listener.COMMIT], 'bot_cpu_ms'):.3f} ms, no-op"
            f" {_median(measured[Listener.NO_OP], 'bot_cpu_ms'):.3f} ms",
            target=Target.at_most(VOTE_CPU_TARGET_MS) if backend == "postgres" else None,
        ),
    ]


def run(quick: bool) -> list[Figure]:
    count, rounds = (1_000, 2) if quick else (4_000, 5)
    return [figure for backend in BACKENDS for figure in _figures(backend, count, rounds)]
