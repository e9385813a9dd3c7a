"""Three replicas in OAuth mode sharing one PostgreSQL database: an installation begun at
one replica finishes at another, every replica answers every installed workspace with its
own token, and an uninstall received by one erases the workspace for all of them."""

from __future__ import annotations

import asyncio
import itertools

import httpx
import pytest

from bot.server import EVENTS_PATH
from bot.simulator.slack_people import SlackPeople
from bot.simulator.slack_web_api import FakeSlackWebAPI, FakeWorkspace
from tests.stored import all_rows_as_text
from tests.support.harness import ALICE, BOB, dm_channel
from tests.support.oauth import ANSWERING_METHODS, SECRET, install
from tests.support.replicas import Replica


@pytest.fixture
def replica_env(fake_slack: FakeSlackWebAPI) -> dict[str, str]:
    """OAuth mode: the app's credentials, no bot token."""
    return {
        "SLACK_BOT_TOKEN": "",
        "SLACK_CLIENT_ID": fake_slack.client_id,
        "SLACK_CLIENT_SECRET": fake_slack.client_secret,
    }


async def test_replicas_share_installations_and_an_uninstall_erases_for_all(
    replicas: list[Replica],
    fake_slack: FakeSlackWebAPI,
    database_url: str,
    http: httpx.AsyncClient,
) -> None:
    urls = itertools.cycle([replica.url for replica in replicas])
    one = await install(
        http, next(urls), fake_slack, "T0000ONE", installer=ALICE, back_at=next(urls)
    )
    two = await install(http, next(urls), fake_slack, "T0000TWO", installer=BOB, back_at=next(urls))

    def people(workspace: FakeWorkspace, url: str) -> SlackPeople:
        return SlackPeople(f"{url}{EVENTS_PATH}", workspace, http)  # type: ignore[arg-type]

    # Every replica answers each workspace with that workspace's token.
    for n, replica in enumerate(replicas):
        for workspace, user in ((one, ALICE), (two, BOB)):
            fake_slack.calls.clear()
            before = len(fake_slack.final_messages(dm_channel(user)))
            await people(workspace, replica.url).dm(f"{SECRET} ({n})", user=user)
            await fake_slack.wait_for_final_messages(
                before + 1, channel=dm_channel(user), within=30
            )
            used = {call.token for call in fake_slack.calls if call.method in ANSWERING_METHODS}
            assert used == {workspace.token}, (replica.url, workspace.team_id)

    revoked = one.token
    fake_slack.uninstall("T0000ONE")
    await people(one, replicas[0].url).send_event({"type": "app_uninstalled"})
    async with asyncio.timeout(30):
        while True:
            rows = (await all_rows_as_text(database_url)).encode()
            if b"T0000ONE" not in rows:
                break
            await asyncio.sleep(0.2)
    assert b"quokka" in rows and b"T0000TWO" in rows, "the other workspace stays"

    # No replica answers the uninstalled workspace, nor calls Slack with its token.
    fake_slack.calls.clear()
    for replica in replicas[1:]:
        await people(one, replica.url).dm("anyone there?", user=ALICE)
    await asyncio.sleep(1.0)  # an answer, were there one, would have begun by now
    assert revoked not in {call.token for call in fake_slack.calls}
    assert not [call for call in fake_slack.calls if call.method in ANSWERING_METHODS]
