"""Slack's agent surface end to end: the Messages tab, assistant threads (the legacy
``assistant_view``) and their suggested prompts, greeting and context changes; answers
streamed in DM threads with titles, task updates for tool calls, and the chat.update
fallback when a stream expires."""

from __future__ import annotations

import json

import pytest

from bot.agent import ToolCall
from bot.simulator import FakeLLMServer
from bot.simulator.model import ScriptedReply
from bot.simulator.slack_web_api import STREAM_METHODS, FakeSlackWebAPI, SuggestedPrompts
from bot.views.suggested_prompts import DEFAULT_PROMPTS, GREETING, PROMPTS_TITLE
from memory import EpisodeStatus
from tests.support.harness import ALICE, BOB, GENERAL, SignedSlack, dm_channel, last_conversation


async def prompts_after(
    fake_slack: FakeSlackWebAPI, count: int, what: str = "suggested prompts"
) -> SuggestedPrompts:
    await fake_slack.wait_for(lambda: len(fake_slack.suggested_prompts) >= count, what=what)
    return fake_slack.suggested_prompts[count - 1]


async def liked(slack: SignedSlack, question: str, *, user: str, channel: str) -> None:
    """``user`` asks ``question`` (in their DM, or by a mention in ``channel``) and 👍s it."""
    if channel.startswith("D"):
        answer = await slack.ask_in_dm(question, user=user)
    else:
        answer = await slack.ask_in_channel(question, user=user, channel=channel)
    await slack.vote(answer, user=user)


async def test_the_messages_tab_suggests_the_viewers_own_liked_dm_questions_only(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    await liked(
        slack, "how do I rotate the staging password?", user=ALICE, channel=dm_channel(ALICE)
    )
    await liked(slack, "which port does billing use?", user=ALICE, channel=dm_channel(ALICE))
    await liked(slack, "what does the deploy script do?", user=ALICE, channel=GENERAL)
    await liked(slack, "where are bob's secret notes?", user=BOB, channel=dm_channel(BOB))
    await slack.dm("an answer alice never rated", user=ALICE)
    await slack.answers(3, channel=dm_channel(ALICE))

    await slack.open_home(user=ALICE, tab="messages")
    suggested = await prompts_after(fake_slack, 1)

    assert suggested.channel_id == dm_channel(ALICE)
    assert suggested.thread_ts is None  # the agent experience drops prompts with a thread_ts
    assert suggested.title == PROMPTS_TITLE
    assert [prompt["message"] for prompt in suggested.prompts] == [
        "which port does billing use?",
        "how do I rotate the staging password?",
    ]
    assert fake_slack.calls_to("views.publish") == []


async def test_with_nothing_liked_yet_the_messages_tab_suggests_what_the_bot_does(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    await slack.open_home(user=BOB, tab="messages")

    suggested = await prompts_after(fake_slack, 1)
    assert suggested.prompts == [prompt.model_dump() for prompt in DEFAULT_PROMPTS]


async def test_after_forget_the_messages_tab_no_longer_suggests_earlier_questions(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    await liked(
        slack, "how do I rotate the staging password?", user=ALICE, channel=dm_channel(ALICE)
    )
    response = await slack.command("/forget", user=ALICE, channel=dm_channel(ALICE))
    assert response.status_code == 200
    await slack.settled()

    await slack.open_home(user=ALICE, tab="messages")

    suggested = await prompts_after(fake_slack, 1)
    assert "staging" not in json.dumps(suggested.prompts)


async def test_the_home_tab_still_publishes_and_sets_no_prompts(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    await slack.open_home(user=ALICE)

    await fake_slack.wait_for(lambda: bool(fake_slack.calls_to("views.publish")), what="home")
    assert fake_slack.calls_to("views.publish")[0].args["user_id"] == ALICE
    assert fake_slack.suggested_prompts == []


async def test_a_new_assistant_thread_gets_a_greeting_and_the_askers_prompts(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    await liked(slack, "which port does billing use?", user=ALICE, channel=dm_channel(ALICE))
    await liked(slack, "where are bob's secret notes?", user=BOB, channel=dm_channel(BOB))

    thread_ts = await slack.start_assistant_thread(user=ALICE)
    suggested = await prompts_after(fake_slack, 1)

    assert (suggested.channel_id, suggested.thread_ts) == (dm_channel(ALICE), thread_ts)
    assert [prompt["message"] for prompt in suggested.prompts] == ["which port does billing use?"]
    [greeting] = [m for m in fake_slack.bot_messages(dm_channel(ALICE)) if m.thread_ts == thread_ts]
    assert greeting.text == GREETING


async def test_a_reaction_on_the_greeting_teaches_nothing(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    thread_ts = await slack.start_assistant_thread(user=ALICE)
    await prompts_after(fake_slack, 1)
    [greeting] = [m for m in fake_slack.bot_messages(dm_channel(ALICE)) if m.thread_ts == thread_ts]

    await slack.vote(greeting, user=ALICE, reaction="+1")

    memory = slack.services.memory
    statuses = frozenset(EpisodeStatus)
    assert await memory.list_episodes(ALICE, statuses=statuses) == []


async def test_a_context_change_is_acknowledged_and_changes_nothing(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    event = slack.assistant_thread_event(
        "assistant_thread_context_changed", user=ALICE, thread_ts=fake_slack.next_ts()
    )

    response = await slack.send_event(event)
    await slack.open_home(user=BOB, tab="messages")  # a marker: handled after the change
    await prompts_after(fake_slack, 1)

    assert response.status_code == 200
    assert fake_slack.calls_to("chat.postMessage") == []
    assert [prompts.channel_id for prompts in fake_slack.suggested_prompts] == [dm_channel(BOB)]


async def test_malformed_agent_surface_events_get_no_5xx_and_no_call(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, caplog: pytest.LogCaptureFixture
) -> None:
    for event in (
        {"type": "assistant_thread_started", "event_ts": "1.0"},
        {"type": "assistant_thread_started", "assistant_thread": {"user_id": ALICE}},
        {"type": "app_home_opened", "tab": "messages", "event_ts": "1.0"},
        {"type": "app_home_opened", "user": ALICE, "tab": "messages", "event_ts": "1.0"},
        {"type": "app_home_opened", "user": ALICE, "channel": "D1", "tab": "?", "event_ts": "1"},
        {"type": "app_home_opened", "user": ["U1"], "channel": 7, "tab": "messages"},
        {"type": "assistant_thread_started", "assistant_thread": "not an object"},
        {"type": "assistant_thread_started", "assistant_thread": {"user_id": 1, "thread_ts": []}},
    ):
        response = await slack.post(json.dumps(slack.envelope(event)))
        assert response.status_code in (200, 400), (event, response.text)  # never a 5xx
    await slack.open_home(user=BOB, tab="messages")  # a marker: handled after the others
    await prompts_after(fake_slack, 1)

    calls = [call.method for call in fake_slack.calls if call.method != "auth.test"]
    assert calls == ["assistant.threads.setSuggestedPrompts"]
    assert fake_slack.suggested_prompts[0].channel_id == dm_channel(BOB)
    assert [r.getMessage() for r in caplog.records if r.exc_info or r.levelname == "ERROR"] == []


# -- answers on the agent surface -------------------------------------------------------------
async def test_tool_calls_show_as_task_updates_in_the_streamed_answer(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    fake_slack.add_user("U0CAROL", name="carol", real_name="Carol Example", tz="Europe/Oslo")
    fake_llm.script(
        ScriptedReply.calls(
            ToolCall(id="call_1", name="lookup_user", arguments='{"user_id": "U0CAROL"}'),
            ToolCall(id="call_2", name="lookup_user", arguments='{"user_id": "U0NOBODY"}'),
        ),
        ScriptedReply.answer("Carol is in Oslo."),
    )

    question = await slack.dm("where are <@U0CAROL> and <@U0NOBODY>?")
    [answer] = await slack.answers(1, channel=dm_channel(ALICE))

    assert (answer.text, answer.thread_ts) == ("Carol is in Oslo.", question.ts)
    assert {task_id: task["status"] for task_id, task in answer.tasks.items()} == {
        "call_1": "complete",
        "call_2": "error",
    }
    assert answer.tasks["call_1"]["title"] == "Lookup user"
    sent = [
        (chunk["id"], chunk["status"])
        for call in fake_slack.calls
        if call.method in STREAM_METHODS
        for chunk in call.args.get("chunks") or []
        if chunk["type"] == "task_update"
    ]
    assert sent.index(("call_1", "in_progress")) < sent.index(("call_1", "complete"))
    assert sent.index(("call_2", "in_progress")) < sent.index(("call_2", "error"))
    assert "Oslo" not in json.dumps(answer.tasks)  # a task shows the tool, not what it found


async def test_an_expired_stream_is_completed_with_chat_update_and_its_vote_counts(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    text = " ".join(f"step {n}: check the replica lag before the failover." for n in range(30))
    fake_llm.script(ScriptedReply.answer(text, piece_size=40))
    fake_slack.stream_lifetime = 0.0  # every stream expires right after it starts

    question = await slack.dm("walk me through the failover")
    await fake_slack.wait_for(lambda: bool(fake_slack.calls_to("chat.update")), what="update")
    [answer] = await slack.answers(1, channel=dm_channel(ALICE))

    [started] = fake_slack.calls_to("chat.startStream")
    assert answer.thread_ts == question.ts
    assert answer.text == text  # nothing streamed before the expiry is lost
    assert {call.args["ts"] for call in fake_slack.calls_to("chat.update")} == {answer.ts}
    assert len(started.args["chunks"][0]["text"]) < len(text)  # it did expire mid-answer
    assert "feedback_buttons" in json.dumps(answer.blocks)
    assert len(fake_slack.bot_messages(dm_channel(ALICE))) == 1

    await slack.vote(answer, user=ALICE, reaction="+1")
    memory = slack.services.memory
    [episode] = await memory.list_episodes(ALICE)
    assert (episode.status, episode.answer) == (EpisodeStatus.SUCCESS, text)


async def test_a_reaction_on_a_streamed_dm_answer_counts(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    answer = await slack.ask_in_dm("which port does billing use?")
    assert fake_slack.calls_to("chat.stopStream")

    await slack.vote(answer, user=ALICE, reaction="-1")

    memory = slack.services.memory
    [episode] = await memory.list_episodes(ALICE)
    assert episode.status is EpisodeStatus.FAILURE


async def test_an_assistant_thread_is_titled_by_its_first_question_and_answered_in_it(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    thread_ts = await slack.start_assistant_thread(user=ALICE)
    await prompts_after(fake_slack, 1)

    await slack.dm("how do I rotate the staging password?", thread_ts=thread_ts)
    await slack.answers(2, channel=dm_channel(ALICE))  # the greeting and the answer
    await slack.dm("and on production?", thread_ts=thread_ts)
    answers = await slack.answers(3, channel=dm_channel(ALICE))

    assert [m.thread_ts for m in answers] == [thread_ts] * 3
    assert fake_slack.titles == {
        (dm_channel(ALICE), thread_ts): "how do I rotate the staging password?"
    }
    assert len(fake_slack.calls_to("assistant.threads.setTitle")) == 1
    assert last_conversation(fake_llm)[-3:] == [
        ("user", "how do I rotate the staging password?"),
        ("assistant", "Answer: how do I rotate the staging password?"),
        ("user", "and on production?"),
    ]
