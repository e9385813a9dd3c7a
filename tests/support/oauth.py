"""Installing the app in fake workspaces through the real OAuth flow, over HTTP."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from bot.config import Settings
from bot.server import HttpServer
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI, FakeWorkspace
from tests.support.harness import SignedSlack, fakes_settings
from tests.support.postgres_scratch import scratch_schema

__all__ = [
    "ANSWERING_METHODS",
    "SECRET",
    "STATE_COOKIE",
    "install",
    "oauth_settings",
    "store_url",
    "workspace_slack",
]

ANSWERING_METHODS = frozenset({"chat.postMessage", "chat.startStream", "chat.appendStream"})
"""The Web API methods an answer is posted with."""
SECRET = "How do I reach the payroll vault from the quokka jumpbox?"
"""A question only one workspace asks (its words are searched for after erasures)."""
STATE_COOKIE = "slack-app-oauth-state"
"""Bolt's cookie that ties the OAuth state to the installer's browser."""
_STATE = re.compile(r"[?&]state=([^&\"']+)")


def oauth_settings(
    fake: FakeSlackWebAPI, llm: FakeLLMServer, *, database: str, **extra: object
) -> Settings:
    """OAuth mode: the app's client id and secret, and no bot token."""
    return fakes_settings(
        fake,
        llm,
        slack_bot_token=None,
        slack_client_id=fake.client_id,
        slack_client_secret=fake.client_secret,
        **(
            {"bot_db_url": database}
            if database.startswith("postgresql://")
            else {"bot_db_path": Path(database)}
        ),
        **extra,
    )


@asynccontextmanager
async def store_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A SQLite file, or a PostgreSQL schema of its own (dropped afterwards)."""
    if backend == "postgres":
        async with scratch_schema() as url:
            yield url
    else:
        yield str(tmp_path / "bot.db")


async def install(
    http: httpx.AsyncClient,
    server: HttpServer | str,
    fake: FakeSlackWebAPI,
    team_id: str,
    *,
    installer: str,
    enterprise_id: str | None = None,
    org_wide: bool = False,
    back_at: str | None = None,
) -> FakeWorkspace:
    """``installer`` opens ``GET /slack/install``, clicks *Add to Slack*, allows the app
    in ``team_id`` on Slack's page, and comes back to ``/slack/oauth_redirect`` with the
    code and the state, in the same browser (the state cookie), at ``back_at`` (another
    replica's URL) or the same server."""
    url = server if isinstance(server, str) else server.url
    page = await http.get(f"{url}/slack/install")
    assert page.status_code == 200, page.text
    found = _STATE.search(page.text)
    assert found is not None, "the install page links to Slack's authorize URL with a state"
    state = found.group(1)
    cookie = page.cookies.get(STATE_COOKIE)
    assert cookie is not None, "the install page sets the state cookie"
    code = fake.approve_install(
        team_id, installer=installer, enterprise_id=enterprise_id, org_wide=org_wide
    )
    done = await http.get(
        f"{back_at or url}/slack/oauth_redirect",
        params={"code": code, "state": state},
        headers={"Cookie": f"{STATE_COOKIE}={cookie}"},
    )
    assert done.status_code == 200, done.text
    return fake.workspace(team_id)


def workspace_slack(
    server: HttpServer, workspace: FakeWorkspace, http: httpx.AsyncClient
) -> SignedSlack:
    """The people of one installed workspace, talking to the bot."""
    return SignedSlack(server, workspace, http)  # type: ignore[arg-type]
