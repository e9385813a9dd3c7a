"""Fixtures of the Slack-side tests: the fake Web API and a client on it."""

from __future__ import annotations

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.simulator.slack_web_api import FakeSlackWebAPI


@pytest.fixture
def fake(fake_slack: FakeSlackWebAPI) -> FakeSlackWebAPI:
    """The suite's fake Web API (``fake_slack``), under the short name these tests use."""
    return fake_slack


@pytest.fixture
def client(fake: FakeSlackWebAPI) -> AsyncWebClient:
    return AsyncWebClient(token=fake.token, base_url=fake.base_url)
