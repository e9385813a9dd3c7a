"""What people write never reaches the log, at any level, third-party loggers included.

``python -m bot`` runs at ``LOG_LEVEL=DEBUG`` against the fakes while people talk to it:
DMs, a mention and a reply in its thread, votes by reaction and by button, the reasons
for a 👎 (a reply in its thread, the form), ``/memory``, a lesson drawn from a 👎, and a
model server that rejects a request quoting the prompt back.
Afterwards the whole log is searched for every question and answer, and for the tokens
and the signing secret. A background job that fails on a row it cannot read logs where it
failed (its frames), not the exception's message quoting the row.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from bot.server import EVENTS_PATH
from bot.simulator import FakeLLMServer, ScriptedReply
from bot.simulator.slack_people import SlackPeople
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI
from memory import MemoryConfig, open_store
from tests.support.harness import ALICE, BOB, GENERAL, SIGNING_SECRET, dm_channel
from tests.support.oauth import install
from tests.support.process import fakes_env, local_url, run_bot, wait_until_healthy

LLM_KEY = "sk-test-llm-key-never-logged"
REJECTED = "Which zebrafish runbook covers the quokka failover?"
NOW = "2026-11-23T12:00:00.000000+00:00"
QUESTIONS = (
    "How do I rotate the marmoset staging password?",
    "What does the axolotl deploy script do?",
    "Where is the pangolin dashboard?",
    "And the narwhal alerts, who gets them?",
)
REASONS = ("it locked the wombat account", "the capybara vault was the wrong one")


def debug_env(fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, db: Path) -> dict[str, str]:
    return fakes_env(fake_slack, fake_llm, db=db, LLM_API_KEY=LLM_KEY, LOG_LEVEL="DEBUG")


@asynccontextmanager
async def bot_process(env: dict[str, str], tmp_path: Path) -> AsyncIterator[str]:
    """``python -m bot`` with ``env``, healthy: its URL; stopped by SIGTERM on exit, which
    it must survive cleanly. Its log is ``tmp_path / "bot.log"``."""
    log_file = tmp_path / "bot.log"
    process = await run_bot(env=env, cwd=tmp_path, log_file=log_file)
    try:
        url = local_url(env)
        await wait_until_healthy(url, process)
        yield url
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 30)
        assert process.returncode == 0, log_file.read_text()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@pytest.fixture
async def talked_to(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> AsyncIterator[str]:
    """Run the bot at DEBUG, have people talk to it, stop it; yield its whole log."""
    env = debug_env(fake_slack, fake_llm, tmp_path / "bot.db")
    async with bot_process(env, tmp_path) as url, httpx.AsyncClient(timeout=10.0) as http:
        await converse(SlackPeople(f"{url}{EVENTS_PATH}", fake_slack, http), fake_llm)
    yield (tmp_path / "bot.log").read_text()


async def converse(people: SlackPeople, fake_llm: FakeLLMServer) -> None:
    fake = people.fake
    fake_llm.script(ScriptedReply.error(400, message=f"prompt too long: {REJECTED}"))
    await people.dm(REJECTED)
    [notice] = await fake.wait_for_final_messages(1, channel=dm_channel(ALICE))
    assert REJECTED not in notice.text

    await people.dm(QUESTIONS[0])
    answers = await fake.wait_for_final_messages(2, channel=dm_channel(ALICE))
    await people.react(answers[-1], reaction="-1")
    await give_reasons(people, answers[-1])

    mention = await people.mention(QUESTIONS[1], user=BOB)
    [in_thread] = await fake.wait_for_final_messages(1, channel=GENERAL)
    await people.react(in_thread, user=BOB)
    await people.say(QUESTIONS[2], user=BOB, thread_ts=mention.ts)
    replies = await fake.wait_for_final_messages(2, channel=GENERAL)
    clicked = await people.click(replies[-1], action_id="answer_feedback", value="up", user=BOB)
    assert clicked.status_code == 200

    await people.dm(QUESTIONS[3])
    answers = await fake.wait_for_final_messages(3, channel=dm_channel(ALICE))
    listed = await people.command("/memory", channel=dm_channel(ALICE))
    assert QUESTIONS[0] in listed.text  # the list shows it to Alice; the log must not
    await fake_llm.wait_for_requests(6)  # the answers, and the lesson of the 👎


async def give_reasons(people: SlackPeople, answer: FakeMessage) -> None:
    """Alice says why she 👎'd ``answer``: in its thread, then in the form the bot offers."""
    fake = people.fake
    await people.dm(REASONS[0], thread_ts=answer.thread_ts)
    await fake.wait_for(lambda: len(fake.calls_to("chat.postEphemeral")) == 2, what="thanks")
    [asked] = [call.args for call in fake.calls_to("chat.postEphemeral") if call.args.get("blocks")]
    button = asked["blocks"][0]["accessory"]
    await people.click_in_private_note(
        asked["channel"], action_id=button["action_id"], value=button["value"]
    )
    await fake.wait_for(lambda: bool(fake.calls_to("views.open")), what="the form")
    form = fake.calls_to("views.open")[0].args["view"]
    [block] = form["blocks"]
    typed = {"type": "plain_text_input", "value": REASONS[1]}
    submitted = await people.submit_view(
        form, {block["block_id"]: {block["element"]["action_id"]: typed}}
    )
    assert submitted.status_code == 200


def test_no_question_answer_token_or_secret_is_in_the_debug_log(
    talked_to: str, fake_slack: FakeSlackWebAPI
) -> None:
    log = talked_to
    assert " DEBUG " in log, "DEBUG logging was not on"
    assert "ready as" in log
    for text in (REJECTED, *QUESTIONS, *REASONS):
        assert text not in log
        assert f"Answer: {text}" not in log
    words = (
        "zebrafish",
        "quokka",
        "marmoset",
        "axolotl",
        "pangolin",
        "narwhal",
        "wombat",
        "capybara",
    )
    for word in words:
        assert word not in log
    for secret in (fake_slack.token, SIGNING_SECRET, LLM_KEY):
        assert secret not in log
    assert "Traceback" not in log


async def test_a_background_job_s_failure_logs_its_frames_never_its_message(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    """A row the code cannot read (a programming error's stand-in) makes the reflection
    job raise with the row's text, a person's words and a token, in the exception's
    message: the DEBUG log shows where it failed, and none of that text."""
    database = tmp_path / "bot.db"
    store = await open_store(str(database), MemoryConfig())
    await store.close()
    unreadable = f"{QUESTIONS[0]} {fake_slack.token}"
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO episodes (team_id, channel_id, kind, requester_id, question, answer,"
            " status, created_at, validated_at) VALUES (?, ?, ?, ?, ?, ?, 'failure', ?, ?)",
            ["T1", "D1", unreadable, ALICE, QUESTIONS[1], QUESTIONS[2], NOW, NOW],
        )
    db.close()
    log_file = tmp_path / "bot.log"
    process = await run_bot(
        env=debug_env(fake_slack, fake_llm, database),
        cwd=tmp_path,
        log_file=log_file,
    )
    try:
        async with asyncio.timeout(30):
            while "background job reflection failed" not in log_file.read_text():
                assert process.returncode is None, log_file.read_text()
                await asyncio.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()

    log = log_file.read_text()
    [failure] = [line for line in log.splitlines() if "background job reflection failed" in line]
    assert "ValueError (message withheld) at " in failure
    assert "memory/rows.py:" in failure and " in episodes_awaiting_reflection <- " in failure
    assert "bot/scheduler.py:" in failure
    for text in QUESTIONS[:3]:
        assert text not in log
    for word in ("marmoset", "axolotl", "pangolin"):
        assert word not in log
    for secret in (fake_slack.token, SIGNING_SECRET, LLM_KEY):
        assert secret not in log


async def test_oauth_mode_logs_no_code_token_refresh_token_or_client_secret(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    """Distributed: a workspace installs the bot, its rotating token is refreshed at each
    event, a person asks and votes, the workspace uninstalls; at DEBUG, nothing of it."""
    fake_slack.token_lifetime = 60  # refreshed at every event: two hours is Bolt's margin
    env = debug_env(fake_slack, fake_llm, tmp_path / "bot.db") | {
        "SLACK_BOT_TOKEN": "",
        "SLACK_CLIENT_ID": fake_slack.client_id,
        "SLACK_CLIENT_SECRET": fake_slack.client_secret,
    }
    async with bot_process(env, tmp_path) as url, httpx.AsyncClient(timeout=10.0) as http:
        workspace = await install(http, url, fake_slack, "T0000ONE", installer=ALICE)
        people = SlackPeople(f"{url}{EVENTS_PATH}", workspace, http)  # type: ignore[arg-type]
        await people.dm(QUESTIONS[0])
        [answer] = await fake_slack.wait_for_final_messages(1, channel=dm_channel(ALICE))
        await people.react(answer, reaction="-1")
        await people.send_event({"type": "app_uninstalled"})
    log = (tmp_path / "bot.log").read_text()
    assert " DEBUG " in log and "OAuth" in log
    assert len(fake_slack.issued) >= 5, "a code, then a token and a refresh token, twice"
    for secret in (*fake_slack.issued, fake_slack.client_secret, SIGNING_SECRET, LLM_KEY):
        assert secret not in log
    assert "marmoset" not in log
