"""``ack_p99_ms``: how fast Slack hears back while the bot is busy answering.

Slack retries an event it has not had a 200 for within 3 seconds, so acknowledging must
not wait on answering. Fifty people DM the bot at once and the fake LLM takes longer
than the measurement lasts to reply, so fifty answers stay in flight (claimed,
placeholder posted, memory recalled, waiting on the model). Meanwhile other events
arrive from another process at a steady :data:`RATE` a second, whatever is still
unanswered (open loop: a client that waits for each answer before sending the next
would measure its own queue, not the bot): votes on earlier answers, whose 200 comes only
once the vote is committed to the store (so their time includes the commit), and channel
chatter in threads the bot is not in, which it must look up before ignoring. Each one's
time to its HTTP 200 is measured; the figure is the p99 of those.
"""

from __future__ import annotations

import asyncio
from typing import Any

from benchmarks.harness import (
    BotUnderTest,
    Figure,
    Target,
    bot_under_test,
    percentile,
    reaction_event,
)
from benchmarks.load import LoadGenerator, LoadResult, signed_events
from tests.support.answers import record_answers

__all__ = ["FIGURES", "NAME", "run"]

NAME = "ack_latency"
FIGURES = ("ack_p99_ms",)

IN_FLIGHT = 50
RATE = 200.0
"""Events a second while measuring: a busy workspace, well under what the bot can take
(see ``reaction_throughput_ratio``)."""
CONNECTIONS = 100
VOTER = "U0000VOTER"
CHATTER_EVERY = 5
"""One event in this many is channel chatter; the others are votes."""
CHANNEL = "C0000CHATTER"


def _llm_seconds(events: int) -> float:
    """Long enough for the answers to stay in flight until every event was sent."""
    return 5.0 + events / RATE


def _question(bench: BotUnderTest, person: int) -> dict[str, Any]:
    user = f"U{person:07d}"
    message = bench.fake_slack.add_user_message(f"D{user[1:]}", "How do I deploy?", user=user)
    return bench.slack.message_event(message, channel_type="im")


def _chatter(bench: BotUnderTest, index: int) -> dict[str, Any]:
    root = bench.fake_slack.add_user_message(CHANNEL, "Lunch?", user="U0000CHAT")
    reply = bench.fake_slack.add_user_message(
        CHANNEL, f"Sure, {index} of us.", user="U0000CHAT", thread_ts=root.ts
    )
    return bench.slack.message_event(reply, channel_type="channel")


async def _measure(events: int) -> tuple[LoadResult, LoadResult, int, int]:
    """The opening questions' and the measured events' results, how many answers were in
    flight when measuring began, and how many of them had finished when it ended."""
    bounds = {"max_concurrent_answers": IN_FLIGHT, "max_concurrent_llm_calls": IN_FLIGHT}
    async with bot_under_test(settings=bounds) as bench:
        services = bench.slack.services
        ledger = await record_answers(
            services.memory, events, team_id=bench.fake_slack.team_id, person=VOTER
        )
        llm_seconds = _llm_seconds(events)
        bench.fake_llm.latency_seconds = llm_seconds
        mixed = [
            _chatter(bench, index)
            if index % CHATTER_EVERY == 0
            else reaction_event(VOTER, episode.scope.channel_id, ts)
            for index, (ts, episode) in enumerate(ledger)
        ]
        questions = [_question(bench, person) for person in range(IN_FLIGHT)]
        async with LoadGenerator(bench.server.url) as load:
            opening = await load.send(signed_events(bench.slack, questions), concurrency=IN_FLIGHT)
            await asyncio.wait_for(bench.fake_llm.wait_for_requests(IN_FLIGHT), llm_seconds)
            in_flight = IN_FLIGHT - len(bench.fake_slack.final_messages())
            measured = await load.send(
                signed_events(bench.slack, mixed), concurrency=CONNECTIONS, rate=RATE
            )
        finished = len(bench.fake_slack.final_messages())
        for result in (opening, measured):
            if not result.all_ok:
                raise RuntimeError(f"the bot refused some events: {result.statuses}")
        await bench.fake_slack.wait_for_final_messages(IN_FLIGHT, within=llm_seconds * 2)
        return opening, measured, in_flight, finished


def run(quick: bool) -> list[Figure]:
    events = 500 if quick else 3_000
    opening, measured, in_flight, finished = asyncio.run(_measure(events))
    latencies = measured.latencies_ms
    return [
        Figure(
            name="ack_p99_ms",
            value=percentile(latencies, 0.99),
            unit="ms",
            detail=f"p50 {percentile(latencies, 0.5):.1f} ms, max {max(latencies):.1f} ms over"
            f" {len(latencies)} votes and chatter at {RATE:.0f}/s while {in_flight} answers"
            f" were in flight ({finished} finished meanwhile); the {IN_FLIGHT} questions"
            f" themselves: p99 {percentile(opening.latencies_ms, 0.99):.1f} ms",
            target=Target.at_most(100),
        )
    ]
