"""OAuth mode: workspaces install the app through Bolt's flow over HTTP, installations
live in the bot's own database, and every event is answered with its own workspace's
token, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from bot.config import manifest_bot_scopes
from bot.server import HttpServer
from bot.testing import FakeLLMServer
from bot.testing.fake_slack import FakeSlackWebAPI
from bot.testing.harness import ALICE, BOB, start_bot
from tests.oauth_support import install, oauth_settings, store_url, workspace_slack

ANSWERING_METHODS = frozenset({"chat.postMessage", "chat.startStream", "chat.appendStream"})


@pytest.fixture(params=["sqlite", "postgres"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with store_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture
async def oauth_server(
    fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, database: str
) -> AsyncIterator[HttpServer]:
    server = await start_bot(oauth_settings(fake_slack, fake_llm, database=database))
    yield server
    await server.stop()


async def test_the_install_page_asks_for_the_manifests_bot_scopes(
    oauth_server: HttpServer, http: httpx.AsyncClient
) -> None:
    page = await http.get(f"{oauth_server.url}/slack/install")
    link = next(part for part in page.text.split('"') if part.startswith("https://slack.com/"))
    query = parse_qs(urlsplit(link.replace("&amp;", "&")).query)
    assert query["scope"] == [",".join(manifest_bot_scopes())]
    assert query["client_id"] == ["1111.2222"]


async def test_two_workspaces_install_and_each_is_answered_with_its_own_token(
    oauth_server: HttpServer, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> None:
    first = await install(http, oauth_server, fake_slack, "T0000ONE", installer=ALICE)
    second = await install(http, oauth_server, fake_slack, "T0000TWO", installer=BOB)
    assert first.token != second.token
    for workspace, user in ((first, ALICE), (second, BOB)):
        slack = workspace_slack(oauth_server, workspace, http)
        fake_slack.calls.clear()
        answer = await slack.ask_in_dm(f"how do I deploy in {workspace.team_id}?", user=user)
        assert answer.user == workspace.bot_user_id
        tokens = {call.token for call in fake_slack.calls if call.method in ANSWERING_METHODS}
        assert tokens == {workspace.token}


async def test_a_redirect_without_the_browsers_state_installs_nothing(
    oauth_server: HttpServer, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> None:
    page = await http.get(f"{oauth_server.url}/slack/install")
    assert page.status_code == 200
    code = fake_slack.approve_install("T0000ONE", installer=ALICE)
    forged = await http.get(
        f"{oauth_server.url}/slack/oauth_redirect", params={"code": code, "state": "forged"}
    )
    assert 400 <= forged.status_code < 500
    assert fake_slack.installs == {}


async def test_an_event_from_a_workspace_that_never_installed_is_not_answered(
    oauth_server: HttpServer, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> None:
    await install(http, oauth_server, fake_slack, "T0000ONE", installer=ALICE)
    stranger = fake_slack.workspace("T0000ONE")
    stranger.team_id = "T0000NONE"
    slack = workspace_slack(oauth_server, stranger, http)
    fake_slack.calls.clear()
    await slack.dm("hello?", user=BOB)
    await slack.settled()
    assert not [call for call in fake_slack.calls if call.method in ANSWERING_METHODS]


@pytest.fixture
async def rotating_slack() -> AsyncIterator[FakeSlackWebAPI]:
    async with FakeSlackWebAPI(token_lifetime=60) as fake:
        yield fake


async def test_expiring_tokens_are_refreshed_through_slack_api_url(
    rotating_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    tmp_path: Path,
    http: httpx.AsyncClient,
) -> None:
    settings = oauth_settings(rotating_slack, fake_llm, database=str(tmp_path / "bot.db"))
    server = await start_bot(settings)
    try:
        workspace = await install(http, server, rotating_slack, "T0000ONE", installer=ALICE)
        first_token = workspace.token
        rotating_slack.calls.clear()
        await workspace_slack(server, workspace, http).ask_in_dm("rotate?", user=ALICE)
        refreshes = [
            call
            for call in rotating_slack.calls
            if call.method == "oauth.v2.access" and call.args.get("grant_type") == "refresh_token"
        ]
        assert refreshes, "a token expiring within two hours is refreshed at the fake Slack"
        assert workspace.token != first_token
        tokens = {call.token for call in rotating_slack.calls if call.method in ANSWERING_METHODS}
        assert tokens == {workspace.token}
    finally:
        await server.stop()
