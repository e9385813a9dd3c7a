"""Three bot processes in HTTP mode sharing one PostgreSQL database, as behind a load
balancer: events go to them round-robin, and Slack's retries reach another replica than
the first delivery. Exactly one answer per message; votes and forgets hold whichever
replica gets them; background work runs once, not once per replica."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from bot.assistant.lessons.reflector import REFLECTION_PROMPT
from bot.server import EVENTS_PATH
from bot.simulator import FakeLLMServer
from bot.simulator.slack_people import SlackPeople
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI
from memory import EpisodeStatus, MemoryConfig, MemoryStore, open_store
from tests.support.harness import ALICE, BOB, dm_channel
from tests.support.replicas import REPLICAS, Replica

CONSOLIDATION_SECONDS = 1.5


@pytest.fixture
def replica_env() -> dict[str, str]:
    return {"CONSOLIDATION_INTERVAL_HOURS": str(CONSOLIDATION_SECONDS / 3600)}


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[MemoryStore]:
    """The shared database, as an admin command would open it."""
    opened = await open_store(database_url, MemoryConfig())
    yield opened
    await opened.close()


class LoadBalancer:
    """Sends each request to the next replica; a retry to another one than the original."""

    def __init__(self, replicas: list[Replica], fake: FakeSlackWebAPI, http: httpx.AsyncClient):
        self.people = [SlackPeople(f"{r.url}{EVENTS_PATH}", fake, http) for r in replicas]
        self._next = itertools.cycle(range(len(replicas)))

    def next(self) -> SlackPeople:
        return self.people[next(self._next)]

    async def deliver_twice(self, event: dict[str, Any], event_id: str) -> None:
        """The first delivery and Slack's retry of it, at once, to two different replicas."""
        first = next(self._next)
        retry = (first + 1) % len(self.people)
        body = json.dumps(self.people[first].envelope(event, event_id=event_id))
        responses = await asyncio.gather(
            self.people[first].post(body), self.people[retry].post(body, retry_num=1)
        )
        assert [response.status_code for response in responses] == [200, 200]


def _consolidation_runs(replicas: list[Replica]) -> int:
    """Consolidations run so far, by all replicas (each logs one line a run)."""
    return sum(replica.log.read_text().count("consolidated") for replica in replicas)


def _last_user_text(request: dict[str, Any]) -> str:
    users = [m["content"] for m in request["messages"] if m["role"] == "user"]
    return str(users[-1]) if users else ""


async def _final(fake: FakeSlackWebAPI, count: int, channel: str) -> list[FakeMessage]:
    return await fake.wait_for_final_messages(count, channel=channel, within=30)


async def test_replicas_answer_once_count_votes_forget_and_share_background_work(
    replicas: list[Replica],
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    http: httpx.AsyncClient,
    store: MemoryStore,
) -> None:
    balancer = LoadBalancer(replicas, fake_slack, http)

    # Six questions, each delivered twice at once (Slack's retry reaching another replica).
    for n, user in enumerate([ALICE, BOB] * 3):
        message = fake_slack.add_user_message(dm_channel(user), f"question {n}?", user=user)
        event = balancer.next().message_event(message, channel_type="im")
        await balancer.deliver_twice(event, event_id=f"Ev0REPLICA{n}")
    alice_answers = await _final(fake_slack, 3, dm_channel(ALICE))
    bob_answers = await _final(fake_slack, 3, dm_channel(BOB))
    await asyncio.sleep(1.0)  # a second answer, were there one, would show by now
    assert len(fake_slack.final_messages(dm_channel(ALICE))) == 3
    assert len(fake_slack.final_messages(dm_channel(BOB))) == 3
    asked = [r for r in fake_llm.requests if _last_user_text(r).startswith("question ")]
    assert len(asked) == 6, "each question reached the model once, across replicas"

    # Votes round-robin: Bob's 👎 on each of his answers, Alice's 👍 on hers.
    for answer in bob_answers:
        await balancer.next().react(answer, user=BOB, reaction="-1")
    for answer in alice_answers:
        await balancer.next().react(answer, user=ALICE, reaction="+1")
    bob_episodes = await store.list_episodes(BOB)
    assert {episode.status for episode in bob_episodes} == {EpisodeStatus.FAILURE}
    assert len(bob_episodes) == 3
    assert len(await store.list_episodes(ALICE)) == 3

    # Each 👎 gets one lesson, drawn by one replica (all three were woken or polled).
    async with asyncio.timeout(30):
        while True:
            if all(episode.lesson for episode in await store.list_episodes(BOB)):
                break
            await asyncio.sleep(0.2)
    reflections = [r for r in fake_llm.requests if r["messages"][0]["content"] == REFLECTION_PROMPT]
    assert len(reflections) == 3

    # /forget at one replica; a vote on an old answer at another changes nothing.
    response = await balancer.next().command("/forget", user=ALICE, channel=dm_channel(ALICE))
    assert response.status_code == 200
    await balancer.next().react(alice_answers[0], user=ALICE, reaction="-1")
    export = await store.export_user(ALICE)
    assert (export.episodes, export.ledger_entries, export.votes) == ([], 0, [])

    # Consolidation every 1.5 s on each of three replicas: one run per interval in all
    # (three per interval, were each replica to run its own).
    before = _consolidation_runs(replicas)
    await asyncio.sleep(4 * CONSOLIDATION_SECONDS)
    runs = _consolidation_runs(replicas) - before
    assert 1 <= runs <= 5, f"{runs} consolidation runs in 4 intervals on {REPLICAS} replicas"
    for replica in replicas:
        assert replica.process.returncode is None, replica.log.read_text()
