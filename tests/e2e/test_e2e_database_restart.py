"""The bot on the real PostgreSQL, over real HTTP, through a restart or failover of the
database: its connections ended behind the pool's back (``pg_terminate_backend``, scoped
to this test's connections), or the server out of reach for a while (a TCP pass-through
taken down and brought back). Nothing that arrives afterwards fails; questions
acknowledged while it was away are answered once it is back, or their askers told why."""

from __future__ import annotations

import asyncio
import json
import uuid
from urllib.parse import urlsplit, urlunsplit

from pydantic import SecretStr

from bot.answering import STORE_UNAVAILABLE
from bot.simulator import FakeLLMServer
from bot.simulator.slack_people import reaction_event
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI
from memory import EpisodeStatus
from tests.e2e.tcp_proxy import TcpProxy
from tests.support.harness import SignedSlack, StartBot, dm_channel
from tests.support.postgres_scratch import end_connections, named_connections

PEOPLE = [f"U{n:04d}DBTEST" for n in range(6)]


def _through(proxy: TcpProxy, url: str) -> str:
    parts = urlsplit(url)
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{proxy.port}"))


async def _react(slack: SignedSlack, answer: FakeMessage) -> int:
    """The asker's 👍 on ``answer``: the status of the bot's response."""
    asker = next(p for p in PEOPLE if dm_channel(p) == answer.channel)
    event = reaction_event(slack.fake, answer, user=asker)
    response = await slack.post(json.dumps(slack.envelope(event)))
    return response.status_code


async def _everyone_asks(slack: SignedSlack, question: str) -> None:
    await asyncio.gather(*(slack.dm(f"{question} ({p})", user=p) for p in PEOPLE))


async def test_after_the_database_ended_every_connection_nothing_fails(
    bot_with: StartBot, database_url: str, fake_slack: FakeSlackWebAPI
) -> None:
    name = f"restart-{uuid.uuid4().hex[:8]}"
    slack = await bot_with(bot_db_url=SecretStr(named_connections(database_url, name)))
    await _everyone_asks(slack, "how do I rotate the staging password?")
    first = await slack.answers(len(PEOPLE), within=30)
    assert await end_connections(name) >= 2, "the bot's pool held several connections"

    # At once, not 5 s later: votes on every person's answer, and new questions.
    statuses = [await _react(slack, answer) for answer in first]
    await _everyone_asks(slack, "and the production one?")

    assert statuses == [200] * len(PEOPLE), "every vote was stored before its 200"
    answers = await slack.answers(2 * len(PEOPLE), within=30)
    assert {f"Answer: and the production one? ({p})" for p in PEOPLE} <= {a.text for a in answers}
    for person in PEOPLE:
        episodes = await slack.services.memory.list_episodes(
            person, statuses=frozenset(EpisodeStatus)
        )
        assert sorted(e.status for e in episodes) == [
            EpisodeStatus.PENDING,  # the second answer, not voted on
            EpisodeStatus.SUCCESS,
        ]


async def test_questions_acknowledged_while_the_database_is_away_are_answered_once_it_is_back(
    bot_with: StartBot, database_url: str, fake_slack: FakeSlackWebAPI
) -> None:
    host = urlsplit(database_url)
    async with TcpProxy(host.hostname or "127.0.0.1", host.port or 5432) as proxy:
        slack = await bot_with(bot_db_url=SecretStr(_through(proxy, database_url)))
        before = await slack.ask_in_dm("warm up?", user=PEOPLE[0])

        await proxy.down()  # a restart: connections cut, new ones refused
        await _everyone_asks(slack, "asked while the database restarts")  # each got its 200
        refused = await _react(slack, before)
        await asyncio.sleep(2.0)
        await proxy.up()

        answers = await slack.answers(1 + len(PEOPLE), within=60)
        assert {f"Answer: asked while the database restarts ({p})" for p in PEOPLE} <= {
            a.text for a in answers
        }
        assert refused == 503, "a vote the database could not take is not acknowledged"
        await asyncio.sleep(5.0)  # Slack sends the vote again later
        assert await _react(slack, before) == 200
        [episode, *_] = await slack.services.memory.list_episodes(PEOPLE[0])
        assert episode.status is EpisodeStatus.SUCCESS


async def test_a_question_the_database_stays_away_for_too_long_is_told_so(
    bot_with: StartBot, database_url: str, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    host = urlsplit(database_url)
    async with TcpProxy(host.hostname or "127.0.0.1", host.port or 5432) as proxy:
        slack = await bot_with(
            bot_db_url=SecretStr(_through(proxy, database_url)), store_retry_seconds=1.0
        )
        await proxy.down()
        await slack.dm("asked while the database is gone", user=PEOPLE[0])

        [notice] = await fake_slack.wait_for_final_messages(
            1, channel=dm_channel(PEOPLE[0]), within=30
        )
        assert notice.text == STORE_UNAVAILABLE
        assert fake_llm.requests == []
