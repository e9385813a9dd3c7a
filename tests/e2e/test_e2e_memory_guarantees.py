"""What memory promises people, checked through the real app over HTTP: privacy across
conversations, forgetting down to the bytes on disk, durability, and no lost votes."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import httpx
import pytest

from bot.assistant import EXPERIENCE_HEADING
from bot.config import Settings
from bot.listeners.commands import forget as forget_command
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from memory import EpisodeStatus, ForgetReport
from tests.support.harness import ALICE, BOB, GENERAL, SignedSlack, dm_channel, start_bot
from tests.support.held import command_past_the_store

SECRET_QUESTION = "How do I reach the payroll vault from the quokka jumpbox?"
RELATED = "remind me how to get into the payroll vault"


async def taught_in_dm(slack: SignedSlack, question: str, *, user: str = ALICE) -> None:
    """``user`` asks in their DM and validates the answer with 👍."""
    await slack.vote(await slack.ask_in_dm(question, user=user), user=user)


async def test_a_dm_memory_never_reaches_a_channel_or_another_person(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    await taught_in_dm(slack, SECRET_QUESTION, user=ALICE)

    await slack.mention(f"{RELATED} (channel)", user=ALICE, channel=GENERAL)
    await slack.dm(f"{RELATED} (bob)", user=BOB)
    await slack.answers(1, channel=GENERAL)
    await slack.answers(1, channel=dm_channel(BOB))
    await slack.dm(RELATED, user=ALICE)
    await slack.answers(2, channel=dm_channel(ALICE))

    alice_dm = fake_llm.prompt_for(RELATED)
    assert EXPERIENCE_HEADING in alice_dm and "quokka" in alice_dm
    for elsewhere in (f"{RELATED} (channel)", f"{RELATED} (bob)"):
        prompt = fake_llm.prompt_for(elsewhere)
        assert "quokka" not in prompt
        assert EXPERIENCE_HEADING not in prompt


async def test_forget_from_slack_leaves_no_bytes_on_disk_while_the_bot_runs(
    slack: SignedSlack, db_file: Path
) -> None:
    await taught_in_dm(slack, SECRET_QUESTION, user=ALICE)
    await taught_in_dm(slack, "Where is the lunch menu for the zebrafish team?", user=BOB)

    response = await slack.command("/forget", user=ALICE, channel=dm_channel(ALICE))
    assert response.status_code == 200

    files = [db_file, db_file.with_name(db_file.name + "-wal")]
    files.append(db_file.with_name(db_file.name + "-shm"))
    on_disk = b"".join(path.read_bytes() for path in files if path.exists())
    for word in (b"quokka", b"payroll", b"jumpbox", ALICE.encode()):
        assert word not in on_disk, word
    assert b"zebrafish" in on_disk, "other people's memories stay"


async def test_memories_survive_a_restart(
    settings: Settings, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    async with httpx.AsyncClient(timeout=10.0) as http:
        first = await start_bot(settings)
        try:
            await taught_in_dm(SignedSlack(first, fake_slack, http), SECRET_QUESTION)
        finally:
            await first.stop()

        second = await start_bot(settings)
        try:
            slack = SignedSlack(second, fake_slack, http)
            await slack.dm(RELATED)
            await slack.answers(2, channel=dm_channel(ALICE))
        finally:
            await second.stop()

    prompt = fake_llm.prompt_for(RELATED)
    assert EXPERIENCE_HEADING in prompt
    assert "quokka" in prompt


async def test_many_reactions_at_once_lose_no_vote(slack: SignedSlack) -> None:
    people = [f"U0000P{number:03d}" for number in range(12)]
    await asyncio.gather(
        *(
            slack.dm(f"question {number} about ferries", user=person)
            for number, person in enumerate(people)
        )
    )
    await slack.answers(len(people))
    answers = {person: slack.fake.final_messages(dm_channel(person))[0] for person in people}

    await asyncio.gather(
        *(
            slack.react(answers[person], user=person, reaction="+1" if n % 2 else "-1")
            for n, person in enumerate(people)
        )
    )
    await slack.settled()

    services = slack.services
    for n, person in enumerate(people):
        [episode] = await services.memory.list_episodes(person)
        expected = EpisodeStatus.SUCCESS if n % 2 else EpisodeStatus.FAILURE
        assert episode.status is expected, person


async def test_a_slow_forget_is_acknowledged_at_once_then_confirmed_with_counts(
    slack: SignedSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    await taught_in_dm(slack, SECRET_QUESTION)
    services = slack.services
    acknowledged, confirmation = await command_past_the_store(  # a large store's index rewrite
        slack, monkeypatch, command="/forget", listener=forget_command, verb="forget_user"
    )
    assert acknowledged == {"text": forget_command.ERASING, "response_type": "ephemeral"}
    assert confirmation["text"].startswith("Done: I erased everything I kept about you (")
    assert confirmation["response_type"] == "ephemeral"
    assert await services.memory.list_episodes(ALICE) == []


async def test_a_failed_forget_says_so_and_what_to_do(
    slack: SignedSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = slack.services

    async def broken(user_id: str) -> ForgetReport:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(services.memory, "forget_user", broken)

    response = await slack.command("/forget", user=ALICE)

    assert response.status_code == 200
    assert response.json() == {"text": forget_command.FORGET_FAILED, "response_type": "ephemeral"}
