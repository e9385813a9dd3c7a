"""The answering service on its own: a real store, an in-process model, fake Slack."""

from __future__ import annotations

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.answering import AnswerOutcome, AnswerService, BotIdentity, IncomingMessage
from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.slack.directory import WebApiDirectory
from memory import (
    EpisodeStatus,
    MemoryStore,
    NewExchange,
    WorkingMemory,
)
from tests.support.agent import ScriptedProvider, make_agent

DM = "D0000ALICE"
ALICE = "U0000ALICE"
ALL_STATUSES = frozenset(EpisodeStatus)


def service(
    fake_slack: FakeSlackWebAPI, store: MemoryStore, *script: str | Exception
) -> AnswerService:
    client = AsyncWebClient(token=fake_slack.token, base_url=fake_slack.base_url)
    return AnswerService(
        client=client,
        memory=store,
        agent=make_agent(ScriptedProvider(script)),
        directory=WebApiDirectory(client),
        identity=BotIdentity(
            user_id=fake_slack.bot_user_id, bot_id=fake_slack.bot_id, team_id=fake_slack.team_id
        ),
        working_memory=WorkingMemory(),
    )


def incoming(fake_slack: FakeSlackWebAPI, text: str, *, event_id: str = "Ev1") -> IncomingMessage:
    message = fake_slack.add_user_message(DM, text, user=ALICE)
    return IncomingMessage(
        event_id=event_id,
        team_id=fake_slack.team_id,
        channel_id=DM,
        user_id=ALICE,
        text=text,
        ts=message.ts,
        is_dm=True,
        reply_in_thread=False,
    )


async def test_an_answer_is_shown_and_recorded_with_every_part(
    fake_slack: FakeSlackWebAPI, store: MemoryStore
) -> None:
    answering = service(fake_slack, store, "A short answer.")

    outcome = await answering.answer(incoming(fake_slack, "a question"))

    assert outcome is AnswerOutcome.ANSWERED
    [episode] = await store.list_episodes(ALICE, statuses=ALL_STATUSES)
    assert episode.question == "a question"
    assert episode.answer == "A short answer."
    assert episode.status is EpisodeStatus.PENDING


async def test_the_same_message_twice_is_answered_once(
    fake_slack: FakeSlackWebAPI, store: MemoryStore
) -> None:
    answering = service(fake_slack, store, "Once.", "Twice?")
    message = incoming(fake_slack, "only once")

    first = await answering.answer(message)
    retry = await answering.answer(message)
    other_event_same_ts = await answering.answer(message.model_copy(update={"event_id": "Ev2"}))

    assert (first, retry, other_event_same_ts) == (
        AnswerOutcome.ANSWERED,
        AnswerOutcome.DUPLICATE,
        AnswerOutcome.DUPLICATE,
    )
    assert [m.text for m in fake_slack.final_messages(DM)] == ["Once."]


async def test_a_shown_answer_that_cannot_be_recorded_gets_no_error_notice(
    fake_slack: FakeSlackWebAPI, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(exchange: NewExchange) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(store, "record_exchange", broken)
    answering = service(fake_slack, store, "Shown anyway.")

    outcome = await answering.answer(incoming(fake_slack, "a question"))

    assert outcome is AnswerOutcome.FAILED
    assert [m.text for m in fake_slack.bot_messages(DM)] == ["Shown anyway."]


async def test_an_unexpected_failure_gets_one_short_sentence(
    fake_slack: FakeSlackWebAPI, store: MemoryStore
) -> None:
    answering = service(fake_slack, store, RuntimeError("a bug"))

    outcome = await answering.answer(incoming(fake_slack, "a question"))

    assert outcome is AnswerOutcome.FAILED
    [notice] = fake_slack.bot_messages(DM)
    assert notice.text == "Something went wrong while I was answering; please ask again."
    assert await store.list_episodes(ALICE, statuses=ALL_STATUSES) == []
