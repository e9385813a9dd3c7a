"""A soak test, on demand: replicas on PostgreSQL under mixed traffic, with faults injected.

    python -m benchmarks.soak [--minutes 30] [--replicas 3] [--rate 2.0]

Starts the fake Slack Web API and the fake model on 127.0.0.1, ``--replicas`` bot processes
(``python -m bot``) sharing a throwaway PostgreSQL schema (``TEST_POSTGRES_URL``, as the
tests), and sends them, for ``--minutes``, signed requests at ``--rate`` a second as a
load balancer would (round robin, the next replica when one refuses): DM questions, 👍/👎
on answers, ``/memory``, ``/forget`` and Slack's retries of questions already delivered,
each to another replica than the first. A request that gets no 200 is sent again, as
Slack does (up to three times, a second apart, to the next replica).

Every five minutes (``--cycle``) the same faults come round: a replica is killed (SIGKILL)
and started again 15 s later; the database ends every connection of the bots
(``pg_terminate_backend``); the model hangs for 40 s (longer than ``LLM_TIMEOUT_SECONDS``);
Slack answers every call 2 s late for 40 s.

It prints a line a minute (requests, 5xx, connection errors, acknowledgement latency
percentiles, time to the reply) and, at the end, what was lost: a question acknowledged
with a 200 that got neither an answer nor a notice saying why (one its asker's later
``/forget`` erased before any replica answered it is counted apart), a vote acknowledged
that the store does not hold, an answer given twice. It is not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import logging
import random
import signal
import sys
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import httpx

from benchmarks.harness import BENCH_DIR, percentile
from bot.server import EVENTS_PATH
from bot.simulator import FakeLLMServer
from bot.simulator.slack_people import SlackPeople, dm_channel, reaction_event
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI
from bot.slack.streaming import THINKING_PLACEHOLDER
from memory import EpisodeStatus, MemoryConfig, open_store
from tests.support.postgres_scratch import (
    end_connections,
    named_connections,
    scratch_schema,
)
from tests.support.process import fakes_env, local_url, run_bot, wait_until_healthy

PEOPLE = [f"U{n:04d}SOAK" for n in range(40)]
CYCLE_SECONDS = 300.0
SLACK_RETRIES = 3
DRAIN_SECONDS = 90.0
MIX = {"question": 50, "vote": 22, "memory": 10, "retry": 14, "forget": 4}


@dataclass
class Replica:
    env: dict[str, str]
    log: Path
    process: asyncio.subprocess.Process | None = None

    @property
    def url(self) -> str:
        return local_url(self.env)

    async def start(self) -> None:
        self.process = await run_bot(env=self.env, cwd=self.log.parent, log_file=self.log)
        await wait_until_healthy(self.url, self.process, within=60)

    def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            await self.process.wait()


@dataclass
class Minute:
    requests: int = 0
    server_errors: int = 0
    refused: int = 0
    ack_ms: list[float] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)


@dataclass
class Question:
    person: str
    message: FakeMessage
    event_id: str
    acked_at: float
    replica: int


@dataclass
class Soak:
    fake: FakeSlackWebAPI
    llm: FakeLLMServer
    replicas: list[Replica]
    http: httpx.AsyncClient
    started: float = field(default_factory=time.monotonic)
    minutes: dict[int, Minute] = field(default_factory=lambda: defaultdict(Minute))
    questions: list[Question] = field(default_factory=list)
    unacknowledged: Counter[str] = field(default_factory=Counter)
    votes: dict[str, tuple[str, str, float]] = field(default_factory=dict)
    """Each acknowledged vote, by the thread of the answer it is on (the question's ts, as
    the episode keeps it): (person, reaction, when)."""
    forgotten: dict[str, float] = field(default_factory=dict)
    _next: itertools.count[int] = field(default_factory=itertools.count)

    def minute(self) -> Minute:
        return self.minutes[int((time.monotonic() - self.started) // 60)]

    def people_at(self, index: int) -> SlackPeople:
        return SlackPeople(f"{self.replicas[index].url}{EVENTS_PATH}", self.fake, self.http)

    async def deliver(
        self, build: str | None, *, form: str | None = None, retry_of: int | None = None
    ) -> int | None:
        """Send one request as Slack would: again to the next replica after a non-200.
        The replica that acknowledged it, or None when none did."""
        start = next(self._next) if retry_of is None else retry_of + 1
        for attempt in range(SLACK_RETRIES + 1):
            index = (start + attempt) % len(self.replicas)
            people = self.people_at(index)
            minute = self.minute()
            minute.requests += 1
            sent = time.monotonic()
            retried = attempt if attempt or retry_of is not None else None
            try:
                if form is not None:
                    response = await people.post(
                        form, content_type="application/x-www-form-urlencoded"
                    )
                else:
                    assert build is not None
                    response = await people.post(build, retry_num=retried)
            except httpx.TransportError:
                minute.refused += 1
            else:
                if response.status_code == 200:
                    minute.ack_ms.append((time.monotonic() - sent) * 1000)
                    return index
                if response.status_code >= 500:
                    minute.server_errors += 1
            await asyncio.sleep(1.0 if attempt else 0.05)
        return None

    async def ask(self, person: str) -> None:
        people = self.people_at(0)
        text = f"soak question {uuid.uuid4().hex[:8]} from {person}?"
        message = self.fake.add_user_message(dm_channel(person), text, user=person)
        event_id = f"Ev{uuid.uuid4().hex[:10].upper()}"
        body = json.dumps(
            people.envelope(people.message_event(message, channel_type="im"), event_id=event_id)
        )
        replica = await self.deliver(body)
        if replica is None:
            self.unacknowledged["question"] += 1
            return
        self.questions.append(Question(person, message, event_id, time.monotonic(), replica))

    async def retry_a_question(self) -> None:
        """Slack's retry of a question already acknowledged, at another replica."""
        if not self.questions:
            return
        question = random.choice(self.questions[-50:])
        people = self.people_at(0)
        event = people.message_event(question.message, channel_type="im")
        body = json.dumps(people.envelope(event, event_id=question.event_id))
        await self.deliver(body, retry_of=question.replica)

    async def vote(self, person: str) -> None:
        answers = [
            m
            for m in self.fake.final_messages(dm_channel(person))
            if m.text.startswith("Answer:") and m.thread_ts not in self.votes
        ]
        if not answers:
            return
        answer = random.choice(answers)
        reaction = random.choice(["+1", "-1"])
        people = self.people_at(0)
        body = json.dumps(
            people.envelope(reaction_event(self.fake, answer, user=person, reaction=reaction))
        )
        if await self.deliver(body) is None:
            self.unacknowledged["vote"] += 1
            return
        self.votes[str(answer.thread_ts)] = (person, reaction, time.monotonic())

    async def command(self, person: str, command: str) -> None:
        people = self.people_at(0)
        form = _command_form(people, command, person)
        if await self.deliver(None, form=form) is None:
            self.unacknowledged[command] += 1
        elif command == "/forget":
            self.forgotten[person] = time.monotonic()


def _command_form(people: SlackPeople, command: str, person: str) -> str:
    return urlencode(
        {
            "team_id": people.fake.team_id,
            "channel_id": dm_channel(person),
            "user_id": person,
            "command": command,
            "text": "",
            "response_url": people.fake.response_url(),
            "trigger_id": "123.456.abc",
        }
    )


async def traffic(soak: Soak, until: float, rate: float) -> None:
    actions = list(MIX)
    weights = list(MIX.values())
    running: set[asyncio.Task[None]] = set()
    while time.monotonic() < until:
        action = random.choices(actions, weights)[0]
        person = random.choice(PEOPLE)
        if action == "question":
            work = soak.ask(person)
        elif action == "vote":
            work = soak.vote(person)
        elif action == "retry":
            work = soak.retry_a_question()
        else:
            work = soak.command(person, f"/{action}")
        task = asyncio.ensure_future(work)
        running.add(task)
        task.add_done_callback(running.discard)
        await asyncio.sleep(random.expovariate(rate))
    if running:
        await asyncio.wait(running)


async def faults(soak: Soak, until: float, application_name: str, cycle: float) -> None:
    """The cycle of faults, every ``cycle`` seconds, until ``until``."""
    cycle_start = time.monotonic()
    while True:
        for share, fault in (
            (0.2, "replica killed"),
            (0.4, "database connections ended"),
            (0.6, "model hangs 40 s"),
            (0.8, "Slack 2 s late for 40 s"),
        ):
            wait = cycle_start + share * cycle - time.monotonic()
            if time.monotonic() + max(wait, 0) + 45 > until:
                return
            await asyncio.sleep(max(wait, 0))
            soak.minute().faults.append(fault)
            if fault == "replica killed":
                victim = random.randrange(len(soak.replicas))
                soak.replicas[victim].kill()
                await asyncio.sleep(15)
                await soak.replicas[victim].start()
            elif fault == "database connections ended":
                ended = await end_connections(application_name)
                soak.minute().faults[-1] += f" ({ended})"
            elif fault == "model hangs 40 s":
                soak.llm.latency_seconds = 40.0
                await asyncio.sleep(40)
                soak.llm.latency_seconds = 0.0
            else:
                soak.fake.latency_seconds = 2.0
                await asyncio.sleep(40)
                soak.fake.latency_seconds = 0.0
        cycle_start += cycle


def reply_to(fake: FakeSlackWebAPI, question: Question) -> list[FakeMessage]:
    return [
        m
        for m in fake.final_messages(question.message.channel)
        if m.thread_ts == question.message.ts
    ]


def report_minutes(soak: Soak) -> None:
    replies: dict[int, list[float]] = defaultdict(list)
    for question in soak.questions:
        for reply in reply_to(soak.fake, question)[:1]:
            shown = float(reply.ts) - (time.time() - time.monotonic())
            minute = int((question.acked_at - soak.started) // 60)
            replies[minute].append(max(shown - question.acked_at, 0.0))
    print(
        "minute requests 5xx refused ack_p50_ms ack_p95_ms ack_p99_ms reply_p50_s reply_p95_s"
        " faults"
    )
    for number in sorted(soak.minutes):
        m = soak.minutes[number]
        acks = m.ack_ms or [0.0]
        waits = replies.get(number) or [0.0]
        print(
            f"{number:>6} {m.requests:>8} {m.server_errors:>3} {m.refused:>7}"
            f" {percentile(acks, 0.5):>10.1f} {percentile(acks, 0.95):>10.1f}"
            f" {percentile(acks, 0.99):>10.1f} {percentile(waits, 0.5):>11.2f}"
            f" {percentile(waits, 0.95):>11.2f} {'; '.join(m.faults)}"
        )


async def report_losses(soak: Soak, database_url: str) -> int:
    """Print what was lost; the number of losses."""
    answered = told = erased = lost = twice = 0
    notices: Counter[str] = Counter()
    for question in soak.questions:
        replies = reply_to(soak.fake, question)
        if not replies and soak.forgotten.get(question.person, -1.0) > question.acked_at:
            erased += 1  # its asker's /forget erased it before any replica answered it
            continue
        if not replies:
            lost += 1
            continue
        if len([r for r in replies if r.text.startswith("Answer:")]) > 1:
            twice += 1
        if replies[0].text.startswith("Answer:"):
            answered += 1
        else:
            told += 1
            notices[replies[0].text[:60]] += 1
    store = await open_store(database_url, MemoryConfig())
    checked = wrong = 0
    try:
        asked = {q.message.ts: q.acked_at for q in soak.questions}
        by_person: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for ts, (person, reaction, _) in soak.votes.items():
            # A /forget after the question erased its answer (a vote on it is refused).
            if soak.forgotten.get(person, -1.0) < asked[ts]:
                by_person[person].append((ts, reaction))
        for person, cast in by_person.items():
            episodes = await store.list_episodes(person, statuses=frozenset(EpisodeStatus))
            status_of = {e.thread_ts: e.status for e in episodes}
            for ts, reaction in cast:
                checked += 1
                expected = EpisodeStatus.SUCCESS if reaction == "+1" else EpisodeStatus.FAILURE
                if status_of.get(ts) != expected:
                    wrong += 1
                    print(
                        f"  vote {reaction} by {person} on {ts}: the store has {status_of.get(ts)}"
                    )
    finally:
        await store.close()
    print(
        f"questions acknowledged {len(soak.questions)}: answered {answered}, told why {told},"
        f" erased by a later /forget before an answer {erased}, LOST {lost},"
        f" answered twice {twice}"
    )
    for notice, count in notices.most_common():
        print(f"  notice x{count}: {notice}…")
    print(f"votes acknowledged and checked in the store {checked}: LOST or wrong {wrong}")
    print(
        f"never acknowledged after {SLACK_RETRIES} retries (Slack keeps trying): "
        f"{dict(soak.unacknowledged) or 'none'}"
    )
    for number, replica in enumerate(soak.replicas):
        errors = [line for line in replica.log.read_text().splitlines() if " ERROR " in line]
        print(f"replica {number}: {len(errors)} ERROR line(s) in {replica.log}")
    return lost + twice + wrong


async def soak(minutes: float, replicas: int, rate: float, cycle: float) -> int:
    directory = BENCH_DIR / "soak"
    directory.mkdir(parents=True, exist_ok=True)
    application_name = f"soak-{uuid.uuid4().hex[:8]}"
    async with (
        FakeSlackWebAPI(placeholder_texts={THINKING_PLACEHOLDER}) as fake,
        FakeLLMServer() as llm,
        scratch_schema() as schema_url,
        httpx.AsyncClient(timeout=10.0) as http,
    ):
        url = named_connections(schema_url, application_name)
        started = []
        for number in range(replicas):
            env = fakes_env(
                fake,
                llm,
                BOT_DB_URL=url,
                LLM_TIMEOUT_SECONDS="10",
                LLM_RETRY_BUDGET_SECONDS="10",
                LOG_LEVEL="WARNING",
            )
            log = directory / f"replica{number}.log"
            log.write_text("")
            started.append(Replica(env, log))
        run = Soak(fake, llm, started, http)
        try:
            for replica in started:
                await replica.start()
            print(f"{replicas} replicas on PostgreSQL; {minutes:g} minutes at {rate:g} req/s")
            until = time.monotonic() + minutes * 60
            await asyncio.gather(
                traffic(run, until, rate), faults(run, until, application_name, cycle)
            )
            with contextlib.suppress(AssertionError):  # some got no reply: reported below
                await fake.wait_for(
                    lambda: all(reply_to(fake, q) for q in run.questions),
                    within=DRAIN_SECONDS,
                    what="a reply to every question",
                )
            report_minutes(run)
            return await report_losses(run, schema_url)
        finally:
            for replica in started:
                await replica.stop()


def main() -> int:
    # The fakes' own servers log a traceback for each connection a killed replica dropped.
    logging.getLogger("aiohttp").setLevel(logging.CRITICAL)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--rate", type=float, default=2.0, help="requests a second")
    parser.add_argument("--cycle", type=float, default=CYCLE_SECONDS, help="seconds a fault cycle")
    args = parser.parse_args()
    losses = asyncio.run(soak(args.minutes, args.replicas, args.rate, args.cycle))
    return 1 if losses else 0


if __name__ == "__main__":
    sys.exit(main())
