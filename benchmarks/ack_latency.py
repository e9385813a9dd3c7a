"""``ack_p99_ms``: how fast Slack hears back while the bot is busy answering.

Slack retries an event it has not had a 200 for within 3 seconds, so acknowledging must
not wait on answering. Fifty people DM the bot at once and the fake LLM takes
longer than the measurement lasts to reply, so fifty answers are in flight (claimed, placeholder
posted, memory recalled, waiting on the model); meanwhile more events arrive (votes on
earlier answers, which write to the store, and further DMs) from another process at a
steady :data:`RATE` a second, whatever is still unanswered (open loop: a client that
waits for each answer before sending the next would measure its own queue, not the
bot), and each one's time to its HTTP 200 is measured. The figure is the p99 of those.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.harness import (
    BotUnderTest,
    Comparison,
    Figure,
    Target,
    bot_under_test,
    percentile,
    reaction_event,
    record_answers,
)
from benchmarks.load import blast, signed_events

__all__ = ["FIGURES", "NAME", "run"]

NAME = "ack_latency"
FIGURES = ("ack_p99_ms",)

IN_FLIGHT = 50
RATE = 200.0
"""Events a second while measuring: a busy workspace, about a third of what the bot can
take (see ``reaction_throughput_ratio``)."""
CONNECTIONS = 100
VOTER = "U0000VOTER"
FOLLOW_UP_EVERY = 10
"""One event in this many, while measuring, is a further DM (which starts another answer)."""


def _dm_event(bench: BotUnderTest, person: int, text: str) -> dict[str, Any]:
    user = f"U{person:07d}"
    message = bench.fake_slack.add_user_message(f"D{user[1:]}", text, user=user)
    return bench.slack.message_event(message, channel_type="im")


def _llm_seconds(events: int) -> float:
    """Long enough for the first answers to be in flight until every event was sent."""
    return 4.0 + events / RATE


async def _measure(events: int) -> tuple[list[float], int, int]:
    """Ack times (ms) of the events sent while answers were in flight, how many answers
    were in flight when that began, and how many had finished by the time it ended."""
    with tempfile.TemporaryDirectory(prefix="bench-acks-") as directory:
        async with bot_under_test(Path(directory) / "bot.db") as bench:
            services = bench.server.bot.services
            assert services is not None, "the bot is not running"
            votes = events - events // FOLLOW_UP_EVERY
            ledger = await record_answers(
                services.memory, votes, team_id=bench.fake_slack.team_id, person=VOTER
            )
            llm_seconds = _llm_seconds(events)
            bench.fake_llm.latency_seconds = llm_seconds
            questions = [_dm_event(bench, person, "How do I deploy?") for person in range(50)]
            opening = await blast(
                bench.server.url, signed_events(bench.slack, questions), concurrency=IN_FLIGHT
            )
            if not opening.all_ok:
                raise RuntimeError(f"the bot refused some questions: {opening.statuses}")
            await asyncio.wait_for(bench.fake_llm.wait_for_requests(IN_FLIGHT), llm_seconds)
            in_flight = IN_FLIGHT - len(bench.fake_slack.final_messages())
            mixed: list[dict[str, Any]] = []
            for index, (channel, ts) in enumerate(ledger):
                mixed.append(reaction_event(VOTER, channel, ts))
                if index % (FOLLOW_UP_EVERY - 1) == 0:
                    mixed.append(_dm_event(bench, IN_FLIGHT + index, "And to staging?"))
            measured = await blast(
                bench.server.url,
                signed_events(bench.slack, mixed),
                concurrency=CONNECTIONS,
                rate=RATE,
            )
            if not measured.all_ok:
                raise RuntimeError(f"the bot refused some events: {measured.statuses}")
            finished = len(bench.fake_slack.final_messages())
            asked = IN_FLIGHT + len(mixed) - len(ledger)
            await bench.fake_slack.wait_for_final_messages(asked, within=llm_seconds * 3)
            return measured.latencies_ms, in_flight, finished


def run(quick: bool) -> list[Figure]:
    events = 500 if quick else 3_000
    latencies, in_flight, finished = asyncio.run(_measure(events))
    return [
        Figure(
            name="ack_p99_ms",
            value=percentile(latencies, 0.99),
            unit="ms",
            detail=f"p50 {percentile(latencies, 0.5):.1f} ms, max {max(latencies):.1f} ms over"
            f" {len(latencies)} events (votes and DMs) at {RATE:.0f}/s sent while {in_flight}"
            f" answers were in flight; {finished} of them finished meanwhile",
            target=Target(comparison=Comparison.AT_MOST, bound=100),
        )
    ]
