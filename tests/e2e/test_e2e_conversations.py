"""Conversations end to end: the real bot server against fake Slack and a fake model."""

from __future__ import annotations

import asyncio

from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.slack.streaming import LOADING_MESSAGES, THINKING_STATUS
from memory import EpisodeStatus
from tests.support.harness import ALICE, BOB, GENERAL, SignedSlack, dm_channel, last_conversation


def user_turns(request: dict[str, object]) -> list[str]:
    messages = request["messages"]
    assert isinstance(messages, list)
    return [m["content"] for m in messages if m["role"] == "user"]


async def test_a_dm_is_answered_once_by_streaming_into_the_thread_it_starts(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    question = await slack.dm("How do I rotate the staging database password?")

    [answer] = await slack.answers(1, channel=dm_channel(ALICE))

    assert answer.text == "Answer: How do I rotate the staging database password?"
    assert answer.thread_ts == question.ts
    assert len(fake_llm.requests) == 1
    assert fake_llm.requests[0]["stream"] is True
    assert len(fake_slack.calls_to("chat.startStream")) == 1
    assert fake_slack.calls_to("chat.postMessage") == []
    assert fake_slack.titles == {
        (dm_channel(ALICE), question.ts): "How do I rotate the staging database password?"
    }
    [status] = fake_slack.calls_to("assistant.threads.setStatus")
    assert status.args["status"] == THINKING_STATUS
    assert status.args["loading_messages"] == list(LOADING_MESSAGES)


async def test_a_mention_is_answered_by_streaming_into_a_thread_under_it(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    question = await slack.mention("what does the deploy script do?")

    [answer] = await slack.answers(1, channel=GENERAL)

    assert answer.thread_ts == question.ts
    assert answer.text == "Answer: what does the deploy script do?"
    [start] = fake_slack.calls_to("chat.startStream")
    assert start.args["recipient_user_id"] == ALICE
    assert start.args["recipient_team_id"] == fake_slack.team_id
    assert fake_slack.calls_to("chat.stopStream")
    assert not fake_slack.calls_to("chat.postMessage")
    [status] = fake_slack.calls_to("assistant.threads.setStatus")
    assert status.args["status"] == THINKING_STATUS


async def test_a_follow_up_in_an_answered_thread_needs_no_mention_and_sees_the_thread(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    question = await slack.mention("which region hosts billing?")
    await slack.answers(1, channel=GENERAL)

    await slack.say("and the failover region?", thread_ts=question.ts)
    answers = await slack.answers(2, channel=GENERAL)

    assert answers[1].thread_ts == question.ts
    assert answers[1].text == "Answer: and the failover region?"
    assert last_conversation(fake_llm) == [
        ("user", "which region hosts billing?"),
        ("assistant", "Answer: which region hosts billing?"),
        ("user", "and the failover region?"),
    ]


async def test_a_dm_follow_up_in_its_thread_sees_that_conversation_and_nothing_else(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    await slack.mention("the deploy freeze starts friday", user=ALICE)
    question = await slack.dm("which port does the billing API listen on?", user=ALICE)
    await slack.dm("my cat is called Pixel", user=BOB)
    await slack.dm("an unrelated conversation", user=ALICE)
    await slack.answers(4)

    await slack.dm("and the admin API?", user=ALICE, thread_ts=question.ts)
    await slack.answers(5)

    assert last_conversation(fake_llm) == [
        ("user", "which port does the billing API listen on?"),
        ("assistant", "Answer: which port does the billing API listen on?"),
        ("user", "and the admin API?"),
    ]
    assert (dm_channel(ALICE), question.ts) in fake_slack.titles  # titled once, at its start
    assert len([key for key in fake_slack.titles if key[0] == dm_channel(ALICE)]) == 2


async def test_a_new_top_level_dm_starts_a_new_conversation_without_earlier_ones(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    await slack.dm("which port does the billing API listen on?", user=ALICE)
    await slack.answers(1)

    await slack.dm("and the admin API?", user=ALICE)
    await slack.answers(2)

    assert last_conversation(fake_llm) == [("user", "and the admin API?")]


async def test_channel_messages_that_concern_nobody_are_ignored(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    await slack.say("lunch at noon, anyone?")
    unanswered_thread = fake_slack.add_user_message(GENERAL, "a thread root", user=BOB)
    await slack.say("replying to Bob", thread_ts=unanswered_thread.ts)
    await slack.dm("are you there?")  # a barrier: answered after the messages above

    await slack.answers(1, channel=dm_channel(ALICE))

    assert fake_slack.bot_messages(GENERAL) == []
    assert len(fake_llm.requests) == 1


async def test_the_bots_own_messages_other_bots_and_edits_are_ignored(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    channel = dm_channel(ALICE)
    own = fake_slack.add_user_message(channel, "an earlier answer", user=fake_slack.bot_user_id)
    own_event = slack.message_event(own, channel_type="im")
    await slack.send_event({**own_event, "bot_id": fake_slack.bot_id})
    other_bot = fake_slack.add_user_message(channel, "beep", user="U0000OTHERBOT")
    await slack.send_event(
        {
            **slack.message_event(other_bot, channel_type="im"),
            "subtype": "bot_message",
            "bot_id": "B0000OTHER",
        }
    )
    edited = fake_slack.add_user_message(channel, "fixed typo", user=ALICE)
    await slack.send_event(
        slack.message_event(edited, channel_type="im", subtype="message_changed")
    )
    joined = fake_slack.add_user_message(GENERAL, "<@U0000ALICE> has joined", user=ALICE)
    await slack.send_event(
        slack.message_event(joined, channel_type="channel", subtype="channel_join")
    )
    await slack.dm("the only real question")

    [answer] = await slack.answers(1, channel=channel)

    assert answer.text == "Answer: the only real question"
    assert [user_turns(request)[-1] for request in fake_llm.requests] == ["the only real question"]


async def test_concurrent_people_each_get_their_own_answer_once(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    people = [f"U00000{n:04d}" for n in range(10)]

    await asyncio.gather(*(slack.dm(f"question number {n}", user=p) for n, p in enumerate(people)))

    await slack.answers(10)
    for n, person in enumerate(people):
        [answer] = fake_slack.final_messages(dm_channel(person))
        assert answer.text == f"Answer: question number {n}"


async def test_a_model_outage_gets_one_short_sentence_and_the_bot_keeps_serving(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    fake_llm.down = True
    notice = await slack.ask_in_dm("is the model up?")

    assert notice.text == (
        "The language model is unavailable right now, so I couldn't answer. "
        "Please try again in a few minutes."
    )

    services = slack.services
    assert await services.memory.list_episodes(ALICE, statuses=frozenset(EpisodeStatus)) == []

    fake_llm.down = False
    await slack.dm("and now?", user=BOB)
    [answer] = await slack.answers(1, channel=dm_channel(BOB))
    assert answer.text == "Answer: and now?"


async def test_a_rate_limited_model_is_retried_and_the_answer_arrives(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    from bot.simulator import ScriptedReply

    fake_llm.script(ScriptedReply.error(429, retry_after="0"))

    await slack.dm("try harder")

    [answer] = await slack.answers(1, channel=dm_channel(ALICE))
    assert answer.text == "Answer: try harder"
    assert len(fake_llm.requests) == 2


async def test_a_huge_message_is_truncated_with_a_note_instead_of_crashing(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    huge = "word " * 5000  # 25,000 characters

    await slack.dm(huge)

    [answer] = await slack.answers(1, channel=dm_channel(ALICE))
    question = user_turns(fake_llm.requests[0])[-1]
    assert len(question) < 8200
    assert "cut here" in question
    assert answer.text.startswith("_Your message was very long")


async def test_when_streaming_is_unavailable_a_thread_answer_is_posted_and_updated(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    fake_slack.streaming_available = False
    question = await slack.mention("no streaming here?")

    [answer] = await slack.answers(1, channel=GENERAL)

    assert answer.thread_ts == question.ts
    assert answer.text == "Answer: no streaming here?"
    assert fake_slack.calls_to("chat.update")


async def test_slack_rate_limits_and_refused_statuses_do_not_lose_the_answer(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    fake_slack.fail("assistant.threads.setStatus", "not_allowed", times=None)
    fake_slack.fail("chat.startStream", "ratelimited", status=429, retry_after=0)

    question = await slack.mention("busy workspace?")

    [answer] = await slack.answers(1, channel=GENERAL)
    assert answer.thread_ts == question.ts
    assert answer.text == "Answer: busy workspace?"
    assert len(fake_slack.calls_to("chat.startStream")) == 2


async def test_a_model_stream_cut_midway_ends_with_the_notice_and_is_not_recorded(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    from bot.simulator import ScriptedReply

    fake_llm.script(
        ScriptedReply.answer(
            "This answer starts well and then the line drops", piece_size=5, break_after_chunks=4
        )
    )
    await slack.mention("tell me everything")

    [answer] = await slack.answers(1, channel=GENERAL)

    assert answer.text.endswith("Please try again in a few minutes.")
    services = slack.services
    assert await services.memory.list_episodes(ALICE, statuses=frozenset(EpisodeStatus)) == []
