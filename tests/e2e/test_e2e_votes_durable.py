"""A 200 for a vote means it is stored: in the database before Slack hears back, and still
there after the process is killed with SIGKILL right after the 200."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from bot.app import Bot
from bot.config import Settings
from bot.listeners.deadline import STORE_WITHIN_SECONDS
from bot.server import EVENTS_PATH, SocketModeServer
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI
from memory import (
    EpisodeStatus,
    MemoryConfig,
    MemoryStore,
    VoteEvent,
    VoteOutcome,
    open_store,
)
from tests.support.answers import record_answers
from tests.support.harness import (
    ALICE,
    FAST_RETRIES,
    SignedSlack,
    dm_channel,
    event_envelope,
    message_event,
    reaction_event,
    sign,
)
from tests.support.process import fakes_env, local_url, run_bot, wait_until_healthy

BURST = 120
CONCURRENCY = 16


async def votes_in_file(db_file: Path, user: str = ALICE) -> dict[int, str]:
    """What another process opening the database now finds: episode id -> vote."""
    store = await open_store(str(db_file), MemoryConfig())
    try:
        export = await store.export_user(user)
    finally:
        await store.close()
    return {vote.episode_id: vote.vote for vote in export.votes}


def delay_votes(store: MemoryStore, monkeypatch: pytest.MonkeyPatch, seconds: float = 0.3) -> None:
    """Each vote takes ``store`` ``seconds`` more: an acknowledgement that does not wait for
    the commit would reach the client well before it."""
    apply_vote = store.apply_vote

    async def slowly(event: VoteEvent) -> VoteOutcome:
        await asyncio.sleep(seconds)
        return await apply_vote(event)

    monkeypatch.setattr(store, "apply_vote", slowly)


async def fail_to_store(*_: object) -> None:
    """The store's ``apply_vote`` while the database is locked."""
    raise TimeoutError("database is locked")


async def test_a_reactions_200_comes_after_its_vote_is_in_the_database(
    slack: SignedSlack, db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = await slack.ask_in_dm("how do I rotate the staging password?")
    delay_votes(slack.services.memory, monkeypatch)

    await slack.react(answer, reaction="-1")  # asserts the 200; no waiting for the bot

    [(episode_id, vote)] = (await votes_in_file(db_file)).items()
    assert vote == "down"
    [episode] = await slack.services.memory.list_episodes(ALICE, limit=5)
    assert (episode.id, episode.status) == (episode_id, EpisodeStatus.FAILURE)


async def test_a_feedback_clicks_200_comes_after_its_vote_is_in_the_database(
    slack: SignedSlack, db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = await slack.ask_in_dm("what does the deploy script do?")
    delay_votes(slack.services.memory, monkeypatch)

    response = await slack.click(answer, action_id="answer_feedback", value="up")

    assert response.status_code == 200
    assert list((await votes_in_file(db_file)).values()) == ["up"]


async def test_a_vote_the_store_cannot_take_gets_503_and_no_ack_so_slack_retries(
    slack: SignedSlack, db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = await slack.ask_in_dm("where are the runbooks?")

    monkeypatch.setattr(slack.services.memory, "apply_vote", fail_to_store)
    body = json.dumps(
        slack.envelope(reaction_event(slack.fake, answer, reaction="+1"), event_id="EvRetried")
    )

    assert (await slack.post(body)).status_code == 503
    monkeypatch.undo()
    assert (await slack.post(body)).status_code == 200  # Slack's retry
    assert list((await votes_in_file(db_file)).values()) == ["up"]


async def test_a_feedback_click_the_store_cannot_take_gets_503_and_no_ack(
    slack: SignedSlack, db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = await slack.ask_in_dm("where is the on-call calendar?")
    monkeypatch.setattr(slack.services.memory, "apply_vote", fail_to_store)

    refused = await slack.click(answer, action_id="answer_feedback", value="down")

    assert (refused.status_code, refused.text) == (503, "")
    monkeypatch.undo()
    assert (await slack.click(answer, action_id="answer_feedback", value="down")).status_code == 200
    assert list((await votes_in_file(db_file)).values()) == ["down"]


async def test_a_vote_not_committed_in_time_gets_503_before_slacks_3_seconds_then_counts_once(
    slack: SignedSlack, db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = await slack.ask_in_dm("who owns the pager?")
    delay_votes(slack.services.memory, monkeypatch, seconds=STORE_WITHIN_SECONDS + 1)
    body = json.dumps(
        slack.envelope(reaction_event(slack.fake, answer, reaction="+1"), event_id="EvSlowStore")
    )

    started = time.monotonic()
    assert (await slack.post(body)).status_code == 503
    assert time.monotonic() - started < 3.0
    monkeypatch.undo()
    assert (await slack.post(body, retry_num=1)).status_code == 200
    assert list((await votes_in_file(db_file)).values()) == ["up"]


@asynccontextmanager
async def answered_over_socket_mode(
    settings: Settings, fake_slack: FakeSlackWebAPI
) -> AsyncIterator[tuple[MemoryStore, FakeMessage]]:
    """The bot over Socket Mode, once it has answered a DM of Alice's: its store and the
    answer; stopped on exit."""
    server = SocketModeServer(
        Bot(settings, llm_retry=FAST_RETRIES), app_token=fake_slack.app_token, grace_seconds=5
    )
    await server.start()
    try:
        await fake_slack.wait_for_socket()
        message = fake_slack.add_user_message(dm_channel(ALICE), "over the socket", user=ALICE)
        question = message_event(fake_slack, message, channel_type="im")
        await fake_slack.send_envelope(
            "events_api", event_envelope(fake_slack, question, event_id="EvQ")
        )
        [answer] = await fake_slack.wait_for_final_messages(1, channel=dm_channel(ALICE))
        services = server.bot.services
        assert services is not None
        yield services.memory, answer
    finally:
        await server.stop()


async def test_over_socket_mode_the_ack_of_a_vote_comes_after_its_commit(
    settings: Settings, fake_slack: FakeSlackWebAPI, db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with answered_over_socket_mode(settings, fake_slack) as (memory, answer):
        delay_votes(memory, monkeypatch)
        reaction = reaction_event(fake_slack, answer, reaction="-1")

        await fake_slack.send_envelope(
            "events_api", event_envelope(fake_slack, reaction, event_id="EvV")
        )

        assert list((await votes_in_file(db_file)).values()) == ["down"]


async def test_over_socket_mode_a_vote_the_store_cannot_take_is_not_acknowledged(
    settings: Settings, fake_slack: FakeSlackWebAPI, db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with answered_over_socket_mode(settings, fake_slack) as (memory, answer):
        monkeypatch.setattr(memory, "apply_vote", fail_to_store)
        vote = event_envelope(fake_slack, reaction_event(fake_slack, answer), event_id="EvV")

        with pytest.raises(AssertionError, match="never acknowledged"):
            await fake_slack.send_envelope("events_api", vote, within=STORE_WITHIN_SECONDS + 1)
        monkeypatch.undo()
        await fake_slack.send_envelope("events_api", vote)  # Slack's retry

        assert list((await votes_in_file(db_file)).values()) == ["up"]


# -- kill -9 -------------------------------------------------------------------------------


async def record_answers_before_start(db_file: Path, team_id: str, count: int) -> dict[str, int]:
    """``count`` answers to Alice in her DM, recorded before the bot starts: ts -> episode."""
    store: MemoryStore = await open_store(str(db_file), MemoryConfig())
    try:
        answers = await record_answers(store, count, team_id=team_id, person=ALICE)
    finally:
        await store.close()
    return {ts: episode.id for ts, episode in answers}


class Burst:
    """Signed ``reaction_added`` events, sent with bounded concurrency; which got a 200."""

    def __init__(self, fake: FakeSlackWebAPI, url: str, answers: dict[str, int]) -> None:
        self._fake = fake
        self._url = f"{url}{EVENTS_PATH}"
        self._answers = answers
        self.acknowledged: set[int] = set()
        self.ack = asyncio.Condition()

    def _body(self, index: int, ts: str) -> str:
        event = {
            "type": "reaction_added",
            "user": ALICE,
            "reaction": "+1" if index % 3 else "-1",
            "item_user": self._fake.bot_user_id,
            "item": {"type": "message", "channel": dm_channel(ALICE), "ts": ts},
            "event_ts": ts,
        }
        return json.dumps(event_envelope(self._fake, event, event_id=f"EvBurst{index}"))

    async def send(self) -> None:
        gate = asyncio.Semaphore(CONCURRENCY)
        async with httpx.AsyncClient(timeout=10.0) as http:

            async def one(index: int, ts: str) -> None:
                body = self._body(index, ts)
                async with gate:
                    try:
                        response = await http.post(
                            self._url,
                            content=body,
                            headers={"Content-Type": "application/json", **sign(body)},
                        )
                    except httpx.TransportError:
                        return  # the process was killed: no 200, so Slack would retry
                if response.status_code == 200:
                    async with self.ack:
                        self.acknowledged.add(self._answers[ts])
                        self.ack.notify_all()

            await asyncio.gather(
                *(one(index, ts) for index, ts in enumerate(self._answers)),
            )

    async def wait_for_acks(self, count: int) -> None:
        async with self.ack:
            await self.ack.wait_for(lambda: len(self.acknowledged) >= count)


@pytest.fixture
def bot_environment(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> dict[str, str]:
    return fakes_env(fake_slack, fake_llm, db=tmp_path / "bot.db")


@pytest.fixture
async def killed_processes() -> AsyncIterator[list[asyncio.subprocess.Process]]:
    processes: list[asyncio.subprocess.Process] = []
    yield processes
    for process in processes:
        if process.returncode is None:
            process.kill()
            await process.wait()


@pytest.mark.parametrize("kill_after", [1, 40], ids=["at-the-first-200", "mid-burst"])
async def test_every_acknowledged_vote_survives_kill_9_and_a_restart(
    tmp_path: Path,
    fake_slack: FakeSlackWebAPI,
    bot_environment: dict[str, str],
    killed_processes: list[asyncio.subprocess.Process],
    kill_after: int,
) -> None:
    db_file = Path(bot_environment["BOT_DB_PATH"])
    url = local_url(bot_environment)
    answers = await record_answers_before_start(db_file, fake_slack.team_id, BURST)
    log_file = tmp_path / "bot.log"
    process = await run_bot(env=bot_environment, cwd=tmp_path, log_file=log_file)
    killed_processes.append(process)
    await wait_until_healthy(url, process)

    burst = Burst(fake_slack, url, answers)
    sending = asyncio.create_task(burst.send())
    await asyncio.wait_for(burst.wait_for_acks(kill_after), 30)
    process.send_signal(signal.SIGKILL)
    await process.wait()
    await asyncio.wait_for(sending, 30)
    acknowledged = set(burst.acknowledged)
    assert kill_after <= len(acknowledged) < BURST, "the kill did not land mid-burst"

    restarted = await run_bot(env=bot_environment, cwd=tmp_path, log_file=log_file)
    killed_processes.append(restarted)
    await wait_until_healthy(url, restarted)
    restarted.send_signal(signal.SIGTERM)
    await asyncio.wait_for(restarted.wait(), 30)
    assert restarted.returncode == 0, log_file.read_text()

    stored = await votes_in_file(db_file)
    assert acknowledged <= set(stored), f"lost {len(acknowledged - set(stored))} votes"
    store = await open_store(str(db_file), MemoryConfig())
    try:
        statuses = {e.id: e.status for e in await store.list_episodes(ALICE, limit=BURST)}
    finally:
        await store.close()
    assert all(statuses[episode] is not EpisodeStatus.PENDING for episode in acknowledged)
