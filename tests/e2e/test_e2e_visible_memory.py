"""Memory people can see and that improves, end to end through the real Bolt app over HTTP.

Plan advice from a 👎's lesson, consolidated notes kept to their conversation, a feedback
click counted exactly like a reaction, forgetting one item from ``/memory``, the Home tab,
and thread working memory. The fake model answers the learning requests (lesson, score,
summary) by recognising their instructions, and echoes everything else.
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.agent import ToolCall
from bot.assistant import EXPERIENCE_HEADING
from bot.assistant.lessons import LLMFailureReflector, LLMImportanceScorer
from bot.assistant.lessons.reflector import REFLECTION_PROMPT
from bot.assistant.lessons.scorer import SCORING_PROMPT
from bot.assistant.lessons.summarizer import SUMMARY_PROMPT
from bot.composition import consolidate_now
from bot.listeners import Services
from bot.listeners.commands import memory as memory_command
from bot.llm import OpenAICompatibleProvider, build_llm_client
from bot.simulator import FakeLLMServer, ScriptedReply
from bot.simulator.model import echo_last_user_message
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI
from bot.views import (
    FEEDBACK_ACTION_ID,
    FORGET_ITEM_ACTION_ID,
)
from memory import (
    ConversationKind,
    EpisodeStatus,
    MemoryConfig,
    Scope,
    open_store,
)
from memory.learning import ReflectionWorker
from tests.support.answers import record_answer
from tests.support.block_kit import block_kit_problems
from tests.support.harness import ALICE, BOB, GENERAL, SignedSlack, StartBot, dm_channel
from tests.support.held import command_past_the_store

LESSON = "Staging deploys use make deploy-staging, never deploy-prod."
FIRST = "How do I deploy the billing service to staging?"
RELATED = "what's the way to get billing deployed on staging"


# -- the fake model's learning answers ------------------------------------------------------
def learning_responder(request: dict[str, Any]) -> ScriptedReply:
    """A lesson, a score, or notes ("WISDOM<first question>") for the learning requests."""
    messages = request["messages"]
    instructions = messages[0]["content"] if messages[0]["role"] == "system" else ""
    if instructions == REFLECTION_PROMPT:
        return ScriptedReply.answer(LESSON)
    if instructions == SCORING_PROMPT:
        return ScriptedReply.answer("7")
    if instructions.startswith(SUMMARY_PROMPT[:60]):
        first_question = re.search(r"^Q: (.*)$", messages[-1]["content"], re.MULTILINE)
        assert first_question is not None
        return ScriptedReply.answer(json.dumps([f"WISDOM<{first_question.group(1)}>"]))
    return echo_last_user_message(request)


@pytest.fixture(autouse=True)
def learning_model(fake_llm: FakeLLMServer) -> None:
    fake_llm.responder = learning_responder


# -- Slack's side: interaction payloads and response URLs -----------------------------------
async def block_action(
    slack: SignedSlack,
    *,
    user: str,
    action: dict[str, Any],
    container: dict[str, Any],
    channel: str | None = None,
    message: dict[str, Any] | None = None,
    response_url: str = "http://127.0.0.1:9/unused",
) -> httpx.Response:
    """``user`` clicks ``action``: a signed ``block_actions`` payload, as Slack sends it."""
    payload: dict[str, Any] = {
        "type": "block_actions",
        "user": {"id": user, "username": user.lower(), "team_id": slack.fake.team_id},
        "api_app_id": "A0000APP",
        "token": "legacy-verification-token",
        "container": container,
        "trigger_id": "123.456.abc",
        "team": {"id": slack.fake.team_id, "domain": "fake"},
        "response_url": response_url,
        "actions": [{"block_id": "b1", "action_ts": slack.fake.next_ts(), **action}],
    }
    if channel is not None:
        payload["channel"] = {"id": channel, "name": "conversation"}
    if message is not None:
        payload["message"] = message
    response = await slack.post(
        f"payload={json.dumps(payload)}", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200, response.text
    return response


async def click_feedback(
    slack: SignedSlack, answer: FakeMessage, value: str, *, user: str = ALICE
) -> None:
    """A click on the thumbs under ``answer`` (Slack's ``feedback_buttons`` element)."""
    response = await slack.click(
        answer, action_id=FEEDBACK_ACTION_ID, value=value, user=user, action_type="feedback_buttons"
    )
    assert response.status_code == 200, response.text
    await slack.settled()


async def click_forget_in_memory_list(
    slack: SignedSlack, value: str, *, user: str, channel: str
) -> None:
    """A click on "Forget" in the ephemeral ``/memory`` message shown in ``channel``."""
    response = await slack.click_in_private_note(
        channel, action_id=FORGET_ITEM_ACTION_ID, value=value, user=user
    )
    assert response.status_code == 200, response.text
    await slack.settled()


# -- helpers --------------------------------------------------------------------------------
def services_of(slack: SignedSlack) -> Services:
    services = slack.services
    return services


def system_text(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "system")


def advice_text(request: dict[str, Any]) -> str:
    """The system message holding the plan advisor's advice."""
    [advice] = [
        m["content"]
        for m in request["messages"]
        if m["role"] == "system" and EXPERIENCE_HEADING in m["content"]
    ]
    return advice


async def draw_lessons(services: Services, fake_llm: FakeLLMServer) -> None:
    """One run of the same reflection worker the app runs, so lessons exist before the
    next question (the app's own worker may get there first; either way they are stored)."""
    async with build_llm_client(fake_llm.base_url, "test-llm-key", 5.0) as client:
        provider = OpenAICompatibleProvider(client, model=fake_llm.model)
        worker = ReflectionWorker(
            services.memory, LLMFailureReflector(provider), LLMImportanceScorer(provider)
        )
        await worker.run_once()


async def lessons_asked(fake_llm: FakeLLMServer, count: int) -> None:
    """Wait until the bot's reflection job has asked the model for ``count`` lessons: it
    runs every few minutes, so only a vote's wake-up brings it within seconds."""

    def asked() -> int:
        return sum(REFLECTION_PROMPT in system_text(request) for request in fake_llm.requests)

    async with asyncio.timeout(5):
        while asked() < count:
            await fake_llm.wait_for_requests(len(fake_llm.requests) + 1)


def forget_values(blocks: list[dict[str, Any]]) -> list[str]:
    return [
        block["accessory"]["value"]
        for block in blocks
        if block.get("accessory", {}).get("action_id") == FORGET_ITEM_ACTION_ID
    ]


# -- plan advice ----------------------------------------------------------------------------
async def test_a_thumbs_down_then_a_related_question_gets_the_lesson_as_advice(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    services = services_of(slack)
    answer = await slack.ask_in_dm(FIRST)
    assert EXPERIENCE_HEADING not in system_text(fake_llm.request_for(FIRST, agent_only=True))

    await slack.vote(answer, user=ALICE, reaction="-1")
    await draw_lessons(services, fake_llm)
    await slack.ask_in_dm(RELATED)

    prompt = system_text(fake_llm.request_for(RELATED, agent_only=True))
    assert EXPERIENCE_HEADING in prompt
    advice = prompt[prompt.index(EXPERIENCE_HEADING) :]
    assert "did not help them" in advice
    assert FIRST in advice
    assert f"This time: {LESSON}" in advice
    assert f"Answer: {FIRST}" not in prompt, "the rejected answer itself stays out"


async def test_no_advice_from_an_unrated_answer_or_in_another_conversation(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    await slack.ask_in_dm(FIRST)  # never rated
    answer = await slack.ask_in_dm("How do I restart the search cluster?", user=BOB)
    await slack.vote(answer, user=BOB, reaction="-1")

    await slack.ask_in_dm(RELATED)
    await slack.ask_in_channel("restart the search cluster how?", user=BOB)

    assert EXPERIENCE_HEADING not in system_text(fake_llm.request_for(RELATED, agent_only=True))
    assert EXPERIENCE_HEADING not in system_text(
        fake_llm.request_for("restart the search cluster how?", agent_only=True)
    )


# -- consolidation --------------------------------------------------------------------------
async def test_consolidated_notes_reach_later_prompts_of_their_conversation_only(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    dm_question = "Which flags does the billing deploy need?"
    channel_question = "Who owns the search cluster?"
    await slack.react(await slack.ask_in_dm(dm_question), user=ALICE, reaction="+1")
    await slack.react(await slack.ask_in_channel(channel_question), user=ALICE, reaction="+1")
    await slack.settled()

    components = slack.server.bot.components
    assert components is not None
    report = await consolidate_now(components.consolidator)

    assert (report.scopes, report.notes) == (2, 2)
    await slack.ask_in_dm("anything else about deploys?")
    await slack.ask_in_channel("anything else about the cluster?")
    await slack.ask_in_channel("and for me, anything about the cluster?", user=BOB)
    dm_prompt = system_text(fake_llm.request_for("anything else about deploys?", agent_only=True))
    channel_prompt = system_text(
        fake_llm.request_for("anything else about the cluster?", agent_only=True)
    )
    bobs_prompt = system_text(
        fake_llm.request_for("and for me, anything about the cluster?", agent_only=True)
    )
    assert f"WISDOM<{dm_question}>" in dm_prompt
    assert "WISDOM<" + channel_question not in dm_prompt
    assert f"WISDOM<{channel_question}>" in channel_prompt
    assert "WISDOM<" + dm_question not in channel_prompt
    assert "WISDOM<" not in bobs_prompt


async def test_the_app_consolidates_on_its_schedule(bot_with: StartBot) -> None:
    """CONSOLIDATION_INTERVAL_HOURS drives a background task in the app's lifespan."""
    services = (await bot_with(consolidation_interval_hours=1e-5)).services
    dm = Scope(team_id="T1", channel_id=dm_channel(ALICE), kind=ConversationKind.DM)
    await seed_rated(services, ALICE, dm, 1, first_ts=1_800_000_000)
    for _ in range(500):  # consolidation runs every 36 ms: within 5 s
        notes = await services.memory.wisdom(dm, ALICE)
        if notes:
            break
        await asyncio.sleep(0.01)

    [note] = notes
    assert note.text.startswith(f"WISDOM<{ALICE} seeded question 0")


# -- a feedback click is a vote like a reaction ---------------------------------------------
async def test_a_button_vote_equals_a_reaction_vote(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    services = services_of(slack)
    by_reaction = await slack.ask_in_dm(FIRST, user=ALICE)
    by_button = await slack.ask_in_dm(FIRST, user=BOB)
    assert any(
        element["type"] == "feedback_buttons"
        for block in by_button.blocks or []
        for element in block.get("elements", [])
    )

    await slack.vote(by_reaction, user=ALICE, reaction="-1")
    await lessons_asked(fake_llm, 1)
    await click_feedback(slack, by_button, "down", user=BOB)
    await lessons_asked(fake_llm, 2)  # the click woke the reflection job too

    [alices] = await services.memory.list_episodes(ALICE)
    [bobs] = await services.memory.list_episodes(BOB)
    assert alices.status is bobs.status is EpisodeStatus.FAILURE
    await draw_lessons(services, fake_llm)
    await slack.ask_in_dm(RELATED, user=ALICE)
    alice_advice = advice_text(fake_llm.request_for(RELATED, agent_only=True))
    await slack.ask_in_dm(RELATED, user=BOB)
    bob_advice = advice_text(fake_llm.request_for(RELATED, agent_only=True))
    assert alice_advice == bob_advice
    assert LESSON in bob_advice


async def test_a_new_click_changes_the_vote_and_only_the_asker_counts(
    slack: SignedSlack,
) -> None:
    services = services_of(slack)
    answer = await slack.ask_in_dm(FIRST)

    async def status() -> EpisodeStatus:
        [episode] = await services.memory.list_episodes(ALICE, statuses=frozenset(EpisodeStatus))
        return episode.status

    await click_feedback(slack, answer, "up", user=BOB)
    assert await status() is EpisodeStatus.PENDING
    await click_feedback(slack, answer, "up")
    assert await status() is EpisodeStatus.SUCCESS
    await click_feedback(slack, answer, "down")
    assert await status() is EpisodeStatus.FAILURE
    await click_feedback(slack, answer, "sideways")
    assert await status() is EpisodeStatus.FAILURE


async def test_the_plain_fallback_buttons_vote_too(slack: SignedSlack) -> None:
    services = services_of(slack)
    answer = await slack.ask_in_dm(FIRST)

    await block_action(
        slack,
        user=ALICE,
        action={"action_id": f"{FEEDBACK_ACTION_ID}:up", "type": "button", "value": "up"},
        container={"type": "message", "message_ts": answer.ts, "channel_id": answer.channel},
        channel=answer.channel,
    )
    await slack.settled()

    [episode] = await services.memory.list_episodes(ALICE)
    assert episode.status is EpisodeStatus.SUCCESS


# -- /memory and forgetting one item --------------------------------------------------------
async def test_forgetting_one_item_from_memory_removes_it_and_only_it(slack: SignedSlack) -> None:
    services = services_of(slack)
    kept = await slack.ask_in_dm("How do I restart search?")
    dropped = await slack.ask_in_dm(FIRST)
    elsewhere = await slack.ask_in_channel("Who owns billing?")
    for answer, reaction in ((kept, "+1"), (dropped, "-1"), (elsewhere, "+1")):
        await slack.vote(answer, user=ALICE, reaction=reaction)

    reply = (await slack.command("/memory", user=ALICE, channel=dm_channel(ALICE))).json()

    assert reply["response_type"] == "ephemeral"
    assert block_kit_problems(reply["blocks"]) == []
    listed = forget_values(reply["blocks"])
    assert len(listed) == 2  # this conversation only: not the channel's answer
    assert "Who owns billing?" not in json.dumps(reply)
    by_question = {
        episode.question: f"episode:{episode.id}"
        for episode in await services.memory.list_episodes(ALICE)
    }
    assert sorted(listed) == sorted([by_question[FIRST], by_question["How do I restart search?"]])

    await click_forget_in_memory_list(
        slack, by_question[FIRST], user=ALICE, channel=dm_channel(ALICE)
    )

    [replaced] = await slack.fake.wait_for_responses(1)
    assert replaced["replace_original"] is True
    assert forget_values(replaced["blocks"]) == [by_question["How do I restart search?"]]
    remaining = {episode.question for episode in await services.memory.list_episodes(ALICE)}
    assert remaining == {"How do I restart search?", "Who owns billing?"}


async def test_a_memory_list_the_store_is_slow_to_read_is_acknowledged_at_once_then_shown(
    slack: SignedSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = services_of(slack)
    answer = await slack.ask_in_dm(FIRST)
    await slack.vote(answer, user=ALICE, reaction="+1")
    [episode] = await services.memory.list_episodes(ALICE)
    acknowledged, shown = await command_past_the_store(  # a failover, a lock
        slack, monkeypatch, command="/memory", listener=memory_command, verb="list_episodes"
    )
    assert acknowledged == {"text": memory_command.LISTING, "response_type": "ephemeral"}
    assert (shown["response_type"], shown["replace_original"]) == ("ephemeral", True)
    assert forget_values(shown["blocks"]) == [f"episode:{episode.id}"]


async def test_someone_elses_forget_click_erases_nothing(slack: SignedSlack) -> None:
    services = services_of(slack)
    answer = await slack.ask_in_dm(FIRST)
    await slack.vote(answer, user=ALICE, reaction="+1")
    [episode] = await services.memory.list_episodes(ALICE)

    await click_forget_in_memory_list(
        slack, f"episode:{episode.id}", user=BOB, channel=dm_channel(BOB)
    )

    [bobs_list] = await slack.fake.wait_for_responses(1)
    assert forget_values(bobs_list["blocks"]) == []
    assert [e.id for e in await services.memory.list_episodes(ALICE)] == [episode.id]


# -- the Home tab ---------------------------------------------------------------------------
async def seed_rated(
    services: Services, user: str, scope: Scope, count: int, *, first_ts: int
) -> None:
    """``count`` answers ``user`` rated in ``scope``, written straight to the store."""
    for n in range(count):
        await record_answer(
            services.memory,
            scope,
            user,
            ts=f"{first_ts + n}.000100",
            question=f"{user} seeded question {n} " + "detail " * 300,
            answer="seeded answer " * 400,
            at=datetime.now(UTC),
            reaction="+1" if n % 2 else "-1",
        )


async def open_home(slack: SignedSlack, fake_slack: FakeSlackWebAPI, user: str) -> dict[str, Any]:
    published = len(fake_slack.calls_to("views.publish"))
    await slack.send_event(
        {
            "type": "app_home_opened",
            "user": user,
            "channel": dm_channel(user),
            "tab": "home",
            "event_ts": fake_slack.next_ts(),
        }
    )
    await fake_slack.wait_for(
        lambda: len(fake_slack.calls_to("views.publish")) > published, what="views.publish"
    )
    call = fake_slack.calls_to("views.publish")[-1]
    assert call.args["user_id"] == user
    view = call.args["view"]
    return json.loads(view) if isinstance(view, str) else view


async def test_the_home_tab_is_valid_block_kit_and_shows_only_the_viewers_memories(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    services = services_of(slack)
    channel = Scope(team_id=fake_slack.team_id, channel_id=GENERAL, kind=ConversationKind.CHANNEL)
    alice_dm = Scope(
        team_id=fake_slack.team_id, channel_id=dm_channel(ALICE), kind=ConversationKind.DM
    )
    await seed_rated(services, ALICE, alice_dm, 80, first_ts=1_800_000_000)
    await seed_rated(services, ALICE, channel, 80, first_ts=1_800_001_000)
    await seed_rated(services, BOB, channel, 5, first_ts=1_800_002_000)
    answered = await slack.ask_in_channel("Bob's own channel question", user=BOB)
    await slack.vote(answered, user=BOB, reaction="+1")

    alices_home = await open_home(slack, fake_slack, ALICE)
    bobs_home = await open_home(slack, fake_slack, BOB)

    for view in (alices_home, bobs_home):
        assert view["type"] == "home"
        assert block_kit_problems(view["blocks"]) == []
    alice_text = json.dumps(alices_home)
    assert BOB not in alice_text
    assert "Bob's own channel question" not in alice_text
    assert f"{ALICE} seeded question" in alice_text
    assert "*Our direct messages*" in alice_text
    assert f"*In <#{GENERAL}>*" in alice_text
    assert "more not shown here" in alice_text  # 160 items do not fit in 100 blocks
    bob_text = json.dumps(bobs_home)
    assert ALICE not in bob_text
    assert "Bob's own channel question" in bob_text
    alices_ids = {f"episode:{e.id}" for e in await services.memory.list_episodes(ALICE, limit=500)}
    assert set(forget_values(alices_home["blocks"])) <= alices_ids
    assert not set(forget_values(bobs_home["blocks"])) & alices_ids


async def test_forget_from_the_home_tab_removes_one_item_and_republishes(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    services = services_of(slack)
    first = await slack.ask_in_dm(FIRST)
    second = await slack.ask_in_dm("How do I restart search?")
    await slack.react(first, user=ALICE, reaction="+1")
    await slack.vote(second, user=ALICE, reaction="+1")
    home = await open_home(slack, fake_slack, ALICE)
    [newest, oldest] = forget_values(home["blocks"])
    published = len(fake_slack.calls_to("views.publish"))

    await block_action(
        slack,
        user=ALICE,
        action={"action_id": FORGET_ITEM_ACTION_ID, "type": "button", "value": oldest},
        container={"type": "view", "view_id": "V0HOME"},
    )
    await slack.settled()

    republished = fake_slack.calls_to("views.publish")[published:]
    assert len(republished) == 1
    assert forget_values(republished[0].args["view"]["blocks"]) == [newest]
    assert [e.question for e in await services.memory.list_episodes(ALICE)] == [
        "How do I restart search?"
    ]


# -- working memory -------------------------------------------------------------------------
def carol_looked_up(fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer) -> None:
    """Carol is a workspace member in Oslo, and the model's next turn looks her up (a tool
    result that becomes a working note) before it answers."""
    fake_slack.add_user("U0CAROL", name="carol", real_name="Carol Example", tz="Europe/Oslo")
    fake_llm.script(
        ScriptedReply.calls(
            ToolCall(id="call_1", name="lookup_user", arguments='{"user_id": "U0CAROL"}')
        ),
        ScriptedReply.answer("Found her."),
    )


async def test_thread_notes_reach_the_next_turn_are_never_stored_and_forget_drops_them(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    services = services_of(slack)
    carol_looked_up(fake_slack, fake_llm)
    first = await slack.ask_in_dm("who is <@U0CAROL>?")
    conversation = first.thread_ts  # the DM thread the first question started

    await slack.ask_in_dm("and what was her time zone?", thread_ts=conversation)
    await slack.ask_in_channel("what time zone is Carol in?")

    follow_up = system_text(fake_llm.request_for("and what was her time zone?", agent_only=True))
    assert "Working notes" in follow_up
    assert "Europe/Oslo" in follow_up
    assert "who is <@U0CAROL>?" in follow_up
    assert "Working notes" not in system_text(
        fake_llm.request_for("what time zone is Carol in?", agent_only=True)
    )
    stored = (await services.memory.export_user(ALICE)).model_dump_json()
    assert "Europe/Oslo" not in stored
    assert await services.memory.list_episodes(ALICE) == []  # nothing validated

    await slack.command("/forget", user=ALICE, channel=dm_channel(ALICE))
    await slack.ask_in_dm("remind me of her time zone?", thread_ts=conversation)

    assert "Working notes" not in system_text(
        fake_llm.request_for("remind me of her time zone?", agent_only=True)
    )


async def test_a_forget_by_another_process_drops_the_thread_notes_of_this_one(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, db_file: Path
) -> None:
    """The admin CLI, or another replica, forgets Alice while this bot holds her thread
    notes in its process: her next turn here shows none of them."""
    carol_looked_up(fake_slack, fake_llm)
    first = await slack.ask_in_dm("who is <@U0CAROL>?")
    elsewhere = await open_store(str(db_file), MemoryConfig())
    try:
        await elsewhere.forget_user(ALICE)
    finally:
        await elsewhere.close()

    await slack.ask_in_dm("and what was her time zone?", thread_ts=first.thread_ts)

    follow_up = system_text(fake_llm.request_for("and what was her time zone?", agent_only=True))
    assert "Working notes" not in follow_up
    assert "Europe/Oslo" not in follow_up
