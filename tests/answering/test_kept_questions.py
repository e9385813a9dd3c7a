"""A kept question is finished once its asker was answered or told, and let go, to be
tried again a lease later, when Slack could not be reached to tell them anything."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.answering import AnswerOutcome, IncomingMessage
from bot.answering.kept_questions import KeptQuestions, QuestionPolicy
from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.slack.directory import WebApiDirectory
from memory import MemoryStore, PendingQuestion
from tests.answering.test_answer_service import DM, incoming, service
from tests.support.process import free_port

LEASE = timedelta(seconds=30)
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def kept(store: MemoryStore) -> KeptQuestions:
    policy = QuestionPolicy(lease=LEASE, max_attempts=3, answer_within=timedelta(minutes=10))
    return KeptQuestions(store, policy, store_patience_seconds=1.0, clock=lambda: NOW)


async def asked(
    kept: KeptQuestions, fake_slack: FakeSlackWebAPI
) -> tuple[IncomingMessage, PendingQuestion]:
    """Alice's question in her DM, kept."""
    message = incoming(fake_slack, "how do I rotate the key?")
    question = await kept.keep(message)
    assert question is not None
    return message, question


async def test_an_answered_question_is_finished(
    kept: KeptQuestions, fake_slack: FakeSlackWebAPI, store: MemoryStore
) -> None:
    message, question = await asked(kept, fake_slack)

    outcome = await kept.answer(service(fake_slack, store, "Like this."), message, question)

    assert outcome is AnswerOutcome.ANSWERED
    assert [m.text for m in fake_slack.final_messages(DM)] == ["Like this."]
    assert await store.take_questions(now=NOW + LEASE * 9, lease=LEASE, limit=5) == []
    assert await kept.keep(message) is None, "a re-delivery is not kept again"


async def test_a_question_slack_could_not_be_reached_for_is_tried_again_a_lease_later(
    kept: KeptQuestions, fake_slack: FakeSlackWebAPI, store: MemoryStore
) -> None:
    message, question = await asked(kept, fake_slack)
    answering = service(fake_slack, store, "Never shown.")
    nowhere = AsyncWebClient(token="xoxb-1", base_url=f"http://127.0.0.1:{free_port()}/api/")
    away = answering.for_workspace(nowhere, answering.identity, WebApiDirectory(nowhere))

    outcome = await kept.answer(away, message, question)

    assert outcome is AnswerOutcome.SLACK_UNREACHABLE
    assert await store.take_questions(now=NOW + LEASE / 2, lease=LEASE, limit=5) == []
    [again] = await store.take_questions(now=NOW + LEASE * 1.1, lease=LEASE, limit=5)
    assert (again.id, again.attempts) == (question.id, 2)
