"""The built-in tools, called through the guard as the loop calls them."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.agent import Tool, TurnContext
from bot.agent.tools import run_tool
from bot.assistant import default_tools
from bot.assistant.tools import current_datetime, lookup_user, read_thread, recall_my_memories
from bot.assistant.tools.lookup_user import LookupUserArgs
from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.slack.directory import WebApiDirectory
from memory import (
    EpisodeStatus,
    MemoryStore,
    Scope,
)
from tests.episodes import DM, T0, make_episode
from tests.memory.memory_helpers import Memory
from tests.support.agent import FakeMemory, FakeSlack, make_context


async def call(tool: Tool, context: TurnContext, **arguments: object) -> dict:
    output = await run_tool(tool, context, tool.input_model.model_validate(arguments))
    assert output.error is None, output.error
    return json.loads(output.content)


def test_default_tools_are_the_four_built_ins() -> None:
    assert [t.name for t in default_tools()] == [
        "recall_my_memories",
        "read_thread",
        "lookup_user",
        "current_datetime",
    ]
    assert all(not t.side_effects for t in default_tools())


async def test_recall_searches_the_requesters_scope_and_renders_outcomes() -> None:
    memory = FakeMemory(
        [
            make_episode("deploy?", "use the pipeline", EpisodeStatus.SUCCESS, id=1),
            make_episode("deploy?", "ssh in", EpisodeStatus.FAILURE, lesson="no ssh", id=2),
        ]
    )
    context = make_context(memory=memory)

    found = await call(recall_my_memories, context, query="deploy", limit=3)

    [request] = memory.recall_requests
    assert (request.scope, request.requester_id, request.text, request.limit) == (
        context.scope,
        context.requester_id,
        "deploy",
        3,
    )
    assert [(m["outcome"], m["lesson"]) for m in found["memories"]] == [
        ("worked", None),
        ("did_not_work", "no ssh"),
    ]


async def test_recall_against_the_real_store_finds_only_own_validated_episodes(
    store: MemoryStore,
) -> None:
    memory = Memory(store)
    await memory.answered("kubernetes rollout stuck", user="U1", scope=DM, at=T0)
    await memory.ask("kubernetes rollout pending", user="U1", scope=DM, at=T0)
    await memory.answered("kubernetes rollout secret", user="U0OTHER", scope=DM, at=T0)
    other_channel = Scope(team_id=DM.team_id, channel_id="D0ELSE", kind=DM.kind)
    context = make_context(memory=store, now=T0 + timedelta(hours=1))

    found = await call(recall_my_memories, context, query="kubernetes rollout")
    elsewhere = await call(
        recall_my_memories, make_context(memory=store, scope=other_channel), query="kubernetes"
    )

    assert [m["question"] for m in found["memories"]] == ["kubernetes rollout stuck"]
    assert elsewhere["memories"] == []


async def test_read_thread_reads_only_the_current_thread() -> None:
    slack = FakeSlack(
        threads={
            (DM.channel_id, "100.1"): [
                {"user": "U1", "text": "first", "ts": "100.1"},
                {"bot_id": "B1", "text": "second", "ts": "100.2"},
            ],
        }
    )

    found = await call(read_thread, make_context(slack=slack, thread_ts="100.1"), limit=1)

    assert slack.lookups == [("thread", DM.channel_id, "100.1")]
    assert found == {"messages": [{"user": "B1", "text": "second", "ts": "100.2"}]}


async def test_read_thread_outside_a_thread_says_so() -> None:
    output = await run_tool(read_thread, make_context(), read_thread.input_model())

    assert output.error is not None
    assert (output.error.code, output.error.tool) == ("not_in_thread", "read_thread")


async def test_lookup_user_returns_only_name_real_name_and_time_zone() -> None:
    slack = FakeSlack(
        users={
            "U024BE7LH": {
                "name": "ada",
                "profile": {"real_name": "Ada Lovelace", "email": "ada@example.com"},
                "tz": "Europe/London",
                "is_admin": True,
            }
        }
    )

    found = await call(lookup_user, make_context(slack=slack), user_id="U024BE7LH")

    assert found == {"name": "ada", "real_name": "Ada Lovelace", "tz": "Europe/London"}


def test_lookup_user_rejects_something_that_is_not_a_user_id() -> None:
    with pytest.raises(ValueError):
        lookup_user.input_model.model_validate({"user_id": "ada"})


async def test_current_datetime_gives_iso_utc_and_weekday() -> None:
    found = await call(current_datetime, make_context())

    assert found == {
        "iso": "2026-11-23T09:00:00+00:00",
        "utc": "2026-11-23T09:00:00+00:00",
        "weekday": "Monday",
    }


async def test_slack_errors_reach_the_model_as_errors_it_can_act_on() -> None:
    async with FakeSlackWebAPI() as fake:
        client = AsyncWebClient(token=fake.token, base_url=fake.base_url)
        context = make_context(slack=WebApiDirectory(client), thread_ts="100.1")
        fake.fail("conversations.replies", "thread_not_found")
        fake.fail("users.info", "ratelimited", times=None, status=429, retry_after=0)

        gone = await run_tool(read_thread, context, read_thread.input_model())
        busy = await run_tool(lookup_user, context, LookupUserArgs(user_id="U024BE7LH"))

    assert gone.error is not None and not gone.error.retryable
    assert (gone.error.code, gone.error.tool) == ("thread_not_found", "read_thread")
    assert busy.error is not None and busy.error.retryable


async def test_an_unknown_user_is_an_error_not_worth_repeating() -> None:
    async with FakeSlackWebAPI() as fake:
        client = AsyncWebClient(token=fake.token, base_url=fake.base_url)
        context = make_context(slack=WebApiDirectory(client))

        nobody = await run_tool(lookup_user, context, LookupUserArgs(user_id="U0NOBODY"))

    assert nobody.error is not None and not nobody.error.retryable
    assert nobody.error.code == "user_not_found"
    assert "U0NOBODY" in nobody.error.detail
