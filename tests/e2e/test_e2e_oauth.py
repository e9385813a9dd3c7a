"""OAuth mode: workspaces install the app through Bolt's flow over HTTP, installations
live in the bot's own database, and every event is answered with its own workspace's
token, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from bot.config import manifest_bot_scopes
from bot.server import HttpServer
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from memory import EpisodeStatus
from tests.stored import all_rows_as_text, disk_bytes
from tests.support.harness import ALICE, BOB, SignedSlack, dm_channel, start_bot
from tests.support.oauth import (
    ANSWERING_METHODS,
    SECRET,
    STATE_COOKIE,
    install,
    oauth_settings,
    store_url,
    workspace_slack,
)

CAROL = "U0000CAROL"


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


RELATED = "remind me how to get into the payroll vault"
KEPT = "Where is the lunch menu for the zebrafish team?"
ONE_ONLY = ("quokka", "jumpbox", "payroll")


async def stored_text(database: str) -> bytes:
    """Everything the store holds, past the store: SQLite's files, or PostgreSQL's rows."""
    if database.startswith("postgresql://"):
        return (await all_rows_as_text(database)).encode()
    return disk_bytes(Path(database))


async def test_one_person_in_two_workspaces_of_an_org_sees_nothing_of_one_in_the_other(
    oauth_server: HttpServer,
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    http: httpx.AsyncClient,
) -> None:
    """Enterprise Grid: both workspaces belong to one org, and Slack user ids are the
    org's, so Alice is the same user id in both."""
    one, two = [
        workspace_slack(
            oauth_server,
            await install(
                http, oauth_server, fake_slack, team, installer=BOB, enterprise_id="E0000ORG"
            ),
            http,
        )
        for team in ("T0000ONE", "T0000TWO")
    ]
    await one.vote(await one.ask_in_dm(SECRET, user=ALICE), user=ALICE)
    await two.ask_in_dm(f"{RELATED} (two)", user=ALICE)
    await one.ask_in_dm(f"{RELATED} (one)", user=ALICE)
    assert "quokka" in fake_llm.prompt_for(f"{RELATED} (one)"), "recall works where taught"
    assert "quokka" not in fake_llm.prompt_for(f"{RELATED} (two)")
    stored = await one.services.memory.list_episodes(ALICE)
    assert {(e.scope.enterprise_id, e.scope.team_id) for e in stored} == {("E0000ORG", "T0000ONE")}

    for slack, shown in ((two, False), (one, True)):
        listed = await slack.command("/memory", user=ALICE, channel=dm_channel(ALICE))
        assert listed.status_code == 200
        assert ("quokka" in listed.text) is shown
        fake_slack.calls.clear()
        await slack.open_home(user=ALICE)
        await fake_slack.wait_for(lambda: bool(fake_slack.calls_to("views.publish")), what="home")
        [published] = fake_slack.calls_to("views.publish")
        assert published.token == slack.fake.token
        assert ("quokka" in json.dumps(published.args)) is shown


async def test_an_org_wide_install_answers_each_workspace_of_the_org_apart(
    oauth_server: HttpServer,
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    http: httpx.AsyncClient,
) -> None:
    """Enterprise Grid, installed once for the whole org by its admin: one token answers
    every workspace of the org, and each workspace keeps its own memories."""
    org = await install(http, oauth_server, fake_slack, "E0000ORG", installer=BOB, org_wide=True)
    one, two = (
        workspace_slack(oauth_server, fake_slack.workspace(team, org="E0000ORG"), http)
        for team in ("T0000ONE", "T0000TWO")
    )
    fake_slack.calls.clear()
    await one.vote(await one.ask_in_dm(SECRET, user=ALICE), user=ALICE)
    await two.ask_in_dm(f"{RELATED} (two)", user=ALICE)
    await one.ask_in_dm(f"{RELATED} (one)", user=ALICE)
    assert {c.token for c in fake_slack.calls if c.method in ANSWERING_METHODS} == {org.token}
    assert "quokka" in fake_llm.prompt_for(f"{RELATED} (one)")
    assert "quokka" not in fake_llm.prompt_for(f"{RELATED} (two)")
    stored = await one.services.memory.list_episodes(ALICE)
    assert {(e.scope.enterprise_id, e.scope.team_id) for e in stored} == {("E0000ORG", "T0000ONE")}


async def test_uninstalling_erases_the_workspace_down_to_the_bytes_and_keeps_the_other(
    oauth_server: HttpServer,
    fake_slack: FakeSlackWebAPI,
    database: str,
    http: httpx.AsyncClient,
) -> None:
    first = await install(http, oauth_server, fake_slack, "T0000ONE", installer=ALICE)
    second = await install(http, oauth_server, fake_slack, "T0000TWO", installer=BOB)
    one, two = (workspace_slack(oauth_server, w, http) for w in (first, second))
    await one.vote(await one.ask_in_dm(SECRET, user=ALICE), user=ALICE)
    await one.vote(
        await one.ask_in_dm("what about the quokka ledger?", user=CAROL), user=CAROL, reaction="-1"
    )
    await two.vote(await two.ask_in_dm(KEPT, user=BOB), user=BOB)
    revoked = first.token
    assert b"quokka" in await stored_text(database)

    fake_slack.uninstall("T0000ONE")
    await one.send_event({"type": "app_uninstalled"})
    await one.send_event(
        {"type": "tokens_revoked", "tokens": {"oauth": [ALICE], "bot": [first.bot_user_id]}}
    )
    await one.settled()

    stored = await stored_text(database)
    for trace in (*ONE_ONLY, "T0000ONE", CAROL, first.bot_user_id, revoked):
        assert trace.encode() not in stored, trace
    assert b"zebrafish" in stored and b"T0000TWO" in stored, "the other workspace stays"

    fake_slack.calls.clear()
    await one.dm("are you still there?", user=ALICE)
    await one.settled()
    assert not [call for call in fake_slack.calls if call.method in ANSWERING_METHODS]
    assert revoked not in {call.token for call in fake_slack.calls}
    await two.ask_in_dm("and the zebrafish menu again?", user=BOB)


async def test_an_answer_in_flight_at_the_uninstall_makes_no_call_and_records_nothing(
    oauth_server: HttpServer, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> None:
    workspace = await install(http, oauth_server, fake_slack, "T0000ONE", installer=ALICE)
    slack = workspace_slack(oauth_server, workspace, http)
    revoked = workspace.token
    release = fake_slack.hold("chat.startStream")
    await slack.dm(SECRET, user=ALICE)
    await fake_slack.wait_for(
        lambda: bool(fake_slack.calls_to("chat.startStream")), what="the answer's stream"
    )
    fake_slack.uninstall("T0000ONE")
    await slack.send_event({"type": "app_uninstalled"})
    uninstalled_at = len(fake_slack.calls)
    await asyncio.sleep(0.2)  # the erasure runs beside the held answer
    release.set()
    await slack.settled()
    assert revoked not in {call.token for call in fake_slack.calls[uninstalled_at:]}
    services = slack.services
    assert await services.memory.list_episodes(ALICE, statuses=frozenset(EpisodeStatus)) == []


async def test_a_person_revoking_their_own_grant_loses_only_their_installation(
    oauth_server: HttpServer, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> None:
    workspace = await install(http, oauth_server, fake_slack, "T0000ONE", installer=ALICE)
    await install(http, oauth_server, fake_slack, "T0000ONE", installer=BOB)
    slack = workspace_slack(oauth_server, fake_slack.workspace("T0000ONE"), http)
    await slack.vote(await slack.ask_in_dm(SECRET, user=ALICE), user=ALICE)
    store = slack.services.memory
    await slack.send_event({"type": "tokens_revoked", "tokens": {"oauth": [ALICE]}})
    await slack.settled()
    assert (
        await store.find_installation(enterprise_id="", team_id="T0000ONE", user_id=ALICE) is None
    )
    assert await store.find_installation(enterprise_id="", team_id="T0000ONE", user_id=BOB)
    assert await store.list_episodes(ALICE), "the workspace's memories stay"
    assert workspace.team_id == "T0000ONE"
    await slack.ask_in_dm("still there?", user=BOB)


async def test_single_token_mode_on_an_org_keeps_its_scopes_as_they_were(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    """One workspace of an Enterprise Grid org, with one token: its memories stay keyed
    by the workspace alone, as before orgs were in scopes, so they stay readable."""
    fake_slack.enterprise_id = "E0000ORG"
    await slack.vote(await slack.ask_in_dm(SECRET, user=ALICE), user=ALICE)
    [stored] = await slack.services.memory.list_episodes(ALICE)
    assert stored.scope.enterprise_id == ""
    await slack.ask_in_dm(RELATED, user=ALICE)
    assert "quokka" in fake_llm.prompt_for(RELATED)


async def test_broken_or_replayed_redirects_get_a_4xx_and_install_nothing(
    oauth_server: HttpServer, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> None:
    redirect = f"{oauth_server.url}/slack/oauth_redirect"
    page = await http.get(f"{oauth_server.url}/slack/install")
    state = page.text.split("state=", 1)[1].split('"', 1)[0].split("&", 1)[0]
    browser = {"Cookie": f"{STATE_COOKIE}={page.cookies[STATE_COOKIE]}"}

    assert (await http.get(redirect)).status_code == 400
    refused = await http.get(redirect, params={"error": "access_denied", "state": state})
    assert refused.status_code == 200, "the person declined: Slack's page says so"
    unknown = await http.get(redirect, params={"code": "forged", "state": state}, headers=browser)
    assert unknown.status_code == 401, "a code Slack never issued"
    replayed = await http.get(
        redirect,
        params={"code": fake_slack.approve_install("T0000ONE", installer=ALICE), "state": state},
        headers=browser,
    )
    assert replayed.status_code == 401, "a state is good once"
    assert fake_slack.installs == {}
