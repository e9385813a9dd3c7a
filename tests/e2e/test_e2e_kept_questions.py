"""A question Slack got its 200 for is answered even when the process answering it is
killed with SIGKILL mid-answer: once, by the restarted process (SQLite) or by another
replica (PostgreSQL); and ``/forget`` erases a question not answered yet, so it is never
answered after all."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

from bot.answering import IncomingMessage
from bot.answering.kept_questions import GAVE_UP, TOO_LATE
from bot.config import Settings
from bot.server import EVENTS_PATH
from bot.simulator import FakeLLMServer
from bot.simulator.model import ScriptedReply
from bot.simulator.slack_people import SlackPeople
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI
from memory import MemoryConfig, NewQuestion, PendingQuestion, open_store
from tests.e2e.tcp_proxy import TcpProxy
from tests.stored import disk_bytes
from tests.support.harness import ALICE, SignedSlack, dm_channel, start_bot
from tests.support.oauth import ANSWERING_METHODS, install, oauth_settings, workspace_slack
from tests.support.process import fakes_env, local_url, run_bot, wait_until_healthy
from tests.support.replicas import Replica, running_replicas

HELD = ScriptedReply.answer("never shown", delay_seconds=300)
"""The model's answer to the first question, held until the test ends."""
LEASE_SECONDS = 2
BURST = 40


class Bot:
    """``python -m bot`` on one database, started, killed and started again."""

    def __init__(
        self, env: dict[str, str], tmp_path: Path, fake: FakeSlackWebAPI, http: httpx.AsyncClient
    ) -> None:
        self.env = env
        self.tmp_path = tmp_path
        self.log = tmp_path / "bot.log"
        self.process: asyncio.subprocess.Process | None = None
        self.people = SlackPeople(f"{local_url(env)}{EVENTS_PATH}", fake, http)

    async def start(self) -> SlackPeople:
        self.process = await run_bot(env=self.env, cwd=self.tmp_path, log_file=self.log)
        await wait_until_healthy(local_url(self.env), self.process, within=60)
        return self.people

    async def kill(self) -> None:
        assert self.process is not None
        self.process.kill()  # SIGKILL: nothing runs after it
        await self.process.wait()

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(self.process.wait(), 30)

    async def end(self) -> None:
        """Kill it if it still runs (a test that failed half-way)."""
        if self.process is not None and self.process.returncode is None:
            await self.kill()


MakeBot = Callable[..., Bot]
"""A :class:`Bot` whose environment has these values besides the fakes'."""


@pytest.fixture
async def make_bot(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, http: httpx.AsyncClient
) -> AsyncIterator[MakeBot]:
    made: list[Bot] = []

    def make(**values: str) -> Bot:
        made.append(Bot(fakes_env(fake_slack, fake_llm, **values), tmp_path, fake_slack, http))
        return made[-1]

    try:
        yield make
    finally:
        for bot in made:
            await bot.end()


@pytest.fixture
def bot(make_bot: MakeBot, tmp_path: Path) -> Bot:
    """The bot on a SQLite file."""
    return make_bot(BOT_DB_PATH=str(tmp_path / "bot.db"))


def asked(fake_llm: FakeLLMServer, question: str) -> int:
    """How many times the model was asked ``question`` (by any process)."""
    return sum(1 for request in fake_llm.requests if question in str(request["messages"][-1]))


async def one_answer(fake_slack: FakeSlackWebAPI, channel: str, *, settle: float) -> FakeMessage:
    """The one answer in ``channel``, once it is there and ``settle`` seconds more showed
    no second one."""
    await fake_slack.wait_for_final_messages(1, channel=channel, within=60)
    await asyncio.sleep(settle)
    [answer] = fake_slack.final_messages(channel)
    return answer


async def answers_in_all(fake_slack: FakeSlackWebAPI, count: int, *, within: float) -> None:
    """Wait until ``count`` answers are there in all channels."""
    await fake_slack.wait_for(
        lambda: len(fake_slack.final_messages()) >= count, within=within, what=f"{count} answers"
    )


async def test_a_questions_200_comes_after_it_is_kept_in_the_database(
    slack: SignedSlack, db_file: Path, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "who signs the release notes?"
    fake_llm.script(ScriptedReply.answer("in a moment", delay_seconds=2))
    receive_question = slack.services.memory.receive_question

    async def slowly(*args: Any, **kwargs: Any) -> PendingQuestion | None:
        await asyncio.sleep(0.3)  # an acknowledgement not waiting for it comes well before
        return await receive_question(*args, **kwargs)

    monkeypatch.setattr(slack.services.memory, "receive_question", slowly)

    await slack.dm(question)  # asserts the 200; no waiting for the bot

    store = await open_store(str(db_file), MemoryConfig())
    try:
        tomorrow = datetime.now(UTC) + timedelta(days=1)
        [kept] = await store.take_questions(now=tomorrow, lease=timedelta(0), limit=5)
    finally:
        await store.close()
    assert IncomingMessage.model_validate_json(kept.payload).text == question


async def test_a_question_killed_mid_answer_is_answered_once_by_the_restarted_process(
    bot: Bot, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    question = "where is the quokka deploy runbook?"
    people = await bot.start()
    fake_llm.script(HELD)
    await people.dm(question)  # its 200: Slack will not send it again
    await fake_llm.wait_for_requests(1)

    await bot.kill()
    assert fake_slack.final_messages(dm_channel(ALICE)) == []
    await bot.start()

    answer = await one_answer(fake_slack, dm_channel(ALICE), settle=2.0)
    assert answer.text == f"Answer: {question}"
    assert answer.thread_ts is not None, "answered in the thread under the question"
    assert asked(fake_llm, question) == 2, "asked once by each process"
    await bot.stop()
    store = await open_store(str(tmp_path / "bot.db"), MemoryConfig())
    try:
        tomorrow = datetime.now(UTC) + timedelta(days=1)
        left = await store.take_questions(now=tomorrow, lease=timedelta(minutes=1), limit=9)
    finally:
        await store.close()
    assert left == [], "the answered question is finished"
    assert "quokka" not in bot.log.read_text(), "a question's text is never logged"


async def test_forget_erases_a_question_not_answered_yet_so_it_is_never_answered(
    bot: Bot, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    people = await bot.start()
    fake_llm.script(HELD)
    message = fake_slack.add_user_message(dm_channel(ALICE), "wombat key rotated?", user=ALICE)
    event = people.message_event(message, channel_type="im")
    await people.send_event(event, event_id="Ev0WOMBAT")
    await fake_llm.wait_for_requests(1)

    response = await people.command("/forget", user=ALICE, channel=dm_channel(ALICE))
    assert response.status_code == 200
    assert "1 unanswered question" in response.text
    assert b"wombat" not in disk_bytes(tmp_path / "bot.db"), "no trace of it on disk"
    await bot.kill()
    await bot.start()
    await people.send_event(event, event_id="Ev0WOMBAT", retry_num=1)  # Slack's retry, late

    await asyncio.sleep(3.0)  # the restarted process takes up what it finds at once
    assert fake_slack.final_messages(dm_channel(ALICE)) == []
    assert len(fake_llm.requests) == 1


@pytest.fixture
def two_replicas(
    database_url: str,
    tmp_path: Path,
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
) -> AbstractAsyncContextManager[list[Replica]]:
    """Two bot processes on the test's PostgreSQL database, with a short lease."""

    def env() -> dict[str, str]:
        lease = str(LEASE_SECONDS)
        return fakes_env(
            fake_slack, fake_llm, BOT_DB_URL=database_url, QUESTION_LEASE_SECONDS=lease
        )

    return running_replicas(2, tmp_path, env)


async def test_a_replica_killed_mid_answer_leaves_its_question_to_another_answering_it_once(
    two_replicas: AbstractAsyncContextManager[list[Replica]],
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    http: httpx.AsyncClient,
) -> None:
    question = "how do I restart the numbat queue?"
    async with two_replicas as (first, second):
        people = SlackPeople(f"{first.url}{EVENTS_PATH}", fake_slack, http)
        fake_llm.script(HELD)
        await people.dm(question)
        await fake_llm.wait_for_requests(1)
        await asyncio.sleep(2 * LEASE_SECONDS)  # the first replica renews its lease meanwhile
        assert asked(fake_llm, question) == 1, "no other replica took it while it was held"

        first.process.kill()
        await first.process.wait()

        answer = await one_answer(fake_slack, dm_channel(ALICE), settle=2 * LEASE_SECONDS)
        assert answer.text == f"Answer: {question}"
        assert asked(fake_llm, question) == 2
        assert second.process.returncode is None, second.log.read_text()
        assert "taking up question" in second.log.read_text()


async def keep_before_the_bot_starts(
    db_file: Path, fake_slack: FakeSlackWebAPI, text: str, *, asked_ago: timedelta, takes: int
) -> None:
    """Alice's DM ``text``, kept ``asked_ago`` by a process that died, then taken up (and
    abandoned by their processes too) ``takes`` more times."""
    message = fake_slack.add_user_message(dm_channel(ALICE), text, user=ALICE)
    incoming = IncomingMessage(
        event_id="Ev0KEPT",
        team_id=fake_slack.team_id,
        channel_id=message.channel,
        user_id=ALICE,
        text=text,
        ts=message.ts,
        is_dm=True,
        reply_in_thread=True,
    )
    received = datetime.now(UTC) - asked_ago
    kept = NewQuestion(
        team_id=incoming.team_id,
        user_id=ALICE,
        received_at=received,
        payload=incoming.model_dump_json(),
    )
    store = await open_store(str(db_file), MemoryConfig())
    try:
        assert await store.receive_question(kept, *incoming.dedupe_keys, lease=timedelta(0))
        for _ in range(takes):
            later = datetime.now(UTC) + timedelta(seconds=1)
            assert await store.take_questions(now=later, lease=timedelta(0), limit=1)
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("asked_ago", "takes", "notice"),
    [
        (timedelta(hours=1), 0, TOO_LATE),
        (timedelta(seconds=5), 3, GAVE_UP),
    ],
    ids=["too_late", "too_many_attempts"],
)
async def test_a_question_taken_up_too_late_or_too_often_is_not_answered_and_its_asker_told(
    settings: Settings,
    db_file: Path,
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    asked_ago: timedelta,
    takes: int,
    notice: str,
) -> None:
    await keep_before_the_bot_starts(
        db_file, fake_slack, "what was the capybara release date?", asked_ago=asked_ago, takes=takes
    )
    server = await start_bot(settings)
    try:
        [told] = await fake_slack.wait_for_final_messages(1, channel=dm_channel(ALICE), within=30)
    finally:
        await server.stop()

    assert told.text == notice
    assert fake_llm.requests == []
    store = await open_store(str(db_file), MemoryConfig())
    try:
        tomorrow = datetime.now(UTC) + timedelta(days=1)
        assert await store.take_questions(now=tomorrow, lease=timedelta(0), limit=1) == []
    finally:
        await store.close()


async def test_a_question_acknowledged_while_the_database_was_away_is_kept_once_it_is_back(
    make_bot: MakeBot, database_url: str, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    question = "who rotates the dingo certificates?"
    lease = {"QUESTION_LEASE_SECONDS": str(LEASE_SECONDS)}
    host = urlsplit(database_url)
    async with TcpProxy(host.hostname or "127.0.0.1", host.port or 5432) as proxy:
        through = urlunsplit(host._replace(netloc=f"{host.username}@127.0.0.1:{proxy.port}"))
        first = make_bot(BOT_DB_URL=through, **lease)
        people = await first.start()
        fake_llm.script(HELD)
        await proxy.down()
        await people.dm(question)  # acknowledged though the database is away
        await proxy.up()
        await fake_llm.wait_for_requests(1)  # kept once it was back, then answered
        await first.kill()
    assert "could not be kept before its acknowledgement" in first.log.read_text()

    await make_bot(BOT_DB_URL=database_url, **lease).start()
    answer = await one_answer(fake_slack, dm_channel(ALICE), settle=2 * LEASE_SECONDS)
    assert answer.text == f"Answer: {question}"
    assert asked(fake_llm, question) == 2


async def test_kills_in_a_burst_of_questions_leave_each_answered_exactly_once(
    bot: Bot, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    people = [f"U{n:04d}BURST" for n in range(BURST)]
    fake_llm.latency_seconds = 0.4
    slack = await bot.start()
    await asyncio.gather(*(slack.dm(f"burst question {n}?", user=p) for n, p in enumerate(people)))

    for answered in (BURST // 4, BURST // 2):  # killed twice, mid-burst, and started again
        await answers_in_all(fake_slack, answered, within=60)
        await bot.kill()
        await bot.start()

    await answers_in_all(fake_slack, BURST, within=120)
    await asyncio.sleep(2.0)  # a second answer, were there one, would show by now
    for n, person in enumerate(people):
        [answer] = fake_slack.final_messages(dm_channel(person))
        assert answer.text == f"Answer: burst question {n}?"


async def test_a_replica_killed_in_a_burst_leaves_every_question_answered_once_by_the_other(
    two_replicas: AbstractAsyncContextManager[list[Replica]],
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    http: httpx.AsyncClient,
) -> None:
    people = [f"U{n:04d}SPREE" for n in range(BURST // 2)]
    fake_llm.latency_seconds = 0.4
    async with two_replicas as replicas:
        slack = [
            SlackPeople(f"{replica.url}{EVENTS_PATH}", fake_slack, http) for replica in replicas
        ]
        await asyncio.gather(
            *(slack[n % 2].dm(f"spree question {n}?", user=p) for n, p in enumerate(people))
        )
        await answers_in_all(fake_slack, len(people) // 4, within=60)
        replicas[0].process.kill()
        await replicas[0].process.wait()

        await answers_in_all(fake_slack, len(people), within=120)
        await asyncio.sleep(2 * LEASE_SECONDS)  # a second answer, were there one, would show
        assert replicas[1].process.returncode is None, replicas[1].log.read_text()
    for n, person in enumerate(people):
        [answer] = fake_slack.final_messages(dm_channel(person))
        assert answer.text == f"Answer: spree question {n}?"


async def test_a_workspaces_question_taken_up_is_answered_with_that_workspaces_token(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, http: httpx.AsyncClient
) -> None:
    settings = oauth_settings(fake_slack, fake_llm, database=str(tmp_path / "bot.db"))
    question = "where does the wallaby team deploy?"
    first = await start_bot(settings)
    try:
        workspace = await install(http, first, fake_slack, "T0000ONE", installer=ALICE)
        fake_llm.script(HELD)
        await workspace_slack(first, workspace, http).dm(question)
        await fake_llm.wait_for_requests(1)
    finally:
        await first.stop()  # the held answer is abandoned, its question let go

    fake_slack.calls.clear()
    second = await start_bot(settings)
    try:
        answer = await one_answer(fake_slack, dm_channel(ALICE), settle=1.0)
    finally:
        await second.stop()
    assert answer.text == f"Answer: {question}"
    assert answer.user == workspace.bot_user_id
    tokens = {call.token for call in fake_slack.calls if call.method in ANSWERING_METHODS}
    assert tokens == {workspace.token}


async def test_a_forget_at_another_replica_erases_the_question_a_killed_one_held(
    two_replicas: AbstractAsyncContextManager[list[Replica]],
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    http: httpx.AsyncClient,
) -> None:
    async with two_replicas as (first, second):
        at_first, at_second = (
            SlackPeople(f"{replica.url}{EVENTS_PATH}", fake_slack, http)
            for replica in (first, second)
        )
        fake_llm.script(HELD)
        message = fake_slack.add_user_message(dm_channel(ALICE), "wombat rotation?", user=ALICE)
        event = at_first.message_event(message, channel_type="im")
        await at_first.send_event(event, event_id="Ev0WOMBAT")
        await fake_llm.wait_for_requests(1)
        first.process.kill()
        await first.process.wait()

        response = await at_second.command("/forget", user=ALICE, channel=dm_channel(ALICE))
        assert "1 unanswered question" in response.text
        await at_second.send_event(event, event_id="Ev0WOMBAT", retry_num=1)  # Slack's retry

        await asyncio.sleep(3 * LEASE_SECONDS)  # the killed replica's lease has run out
        assert fake_slack.final_messages(dm_channel(ALICE)) == []
        assert len(fake_llm.requests) == 1
