"""The bot calls Slack's Web API over one connection pool for its whole life."""

from __future__ import annotations

import pytest
from slack_sdk.errors import SlackApiError

from bot.app import Bot
from bot.config import Settings
from bot.simulator.slack_web_api import FakeSlackWebAPI
from tests.support.harness import FAST_RETRIES, start_bot


async def test_a_started_bot_shares_one_open_session_and_closes_it_when_stopped(
    settings: Settings, fake_slack: FakeSlackWebAPI
) -> None:
    server = await start_bot(settings)
    session = server.bot.client.session
    try:
        assert session is not None
        assert not session.closed
        await server.bot.client.auth_test()
        assert [call.method for call in fake_slack.calls].count("auth.test") >= 2
        assert server.bot.client.session is session
    finally:
        await server.stop()

    assert session.closed
    assert server.bot.client.session is None


async def test_a_bot_that_cannot_start_leaves_no_session_open(
    settings: Settings, fake_slack: FakeSlackWebAPI
) -> None:
    fake_slack.fail("auth.test", "invalid_auth")
    bot = Bot(settings, llm_retry=FAST_RETRIES)

    with pytest.raises(SlackApiError):
        await bot.start()

    assert bot.client.session is None
