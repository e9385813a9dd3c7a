"""Fixtures for the agent's tests: an in-process model, fake memory and Slack."""

from __future__ import annotations

import pytest

from bot.agent import TurnContext
from tests.support.agent import FakeMemory, FakeSlack, make_context


@pytest.fixture
def fake_memory() -> FakeMemory:
    return FakeMemory()


@pytest.fixture
def fake_slack() -> FakeSlack:
    return FakeSlack()


@pytest.fixture
def context(fake_memory: FakeMemory, fake_slack: FakeSlack) -> TurnContext:
    return make_context(memory=fake_memory, slack=fake_slack)
