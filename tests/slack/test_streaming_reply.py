"""Replies against the fake Slack Web API: streaming, splitting, and falling back."""

from __future__ import annotations

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI
from bot.slack.streaming import (
    LOADING_MESSAGES,
    THINKING_PLACEHOLDER,
    PostedReply,
    ReplyTarget,
    StreamingReply,
    TaskUpdate,
    answer_blocks,
    open_reply,
)

CHANNEL = "C0000TEST"
LIMIT = 200


def target(fake_slack: FakeSlackWebAPI, *, thread_ts: str | None) -> ReplyTarget:
    return ReplyTarget(
        channel_id=CHANNEL, thread_ts=thread_ts, team_id=fake_slack.team_id, user_id="U0000ALICE"
    )


def in_a_thread(fake_slack: FakeSlackWebAPI) -> ReplyTarget:
    """Where a reply goes in the thread of a new question of Alice's in :data:`CHANNEL`."""
    root = fake_slack.add_user_message(CHANNEL, "question", user="U0000ALICE")
    return target(fake_slack, thread_ts=root.ts)


async def finished(reply: StreamingReply | PostedReply, fake_slack: FakeSlackWebAPI) -> FakeMessage:
    """The one message ``reply`` is, once finished."""
    [ts] = await reply.finish()
    message = fake_slack.find(CHANNEL, ts)
    assert message is not None
    return message


async def write_in_pieces(reply: StreamingReply | PostedReply, text: str, size: int = 7) -> None:
    for start in range(0, len(text), size):
        await reply.write(text[start : start + size])


async def test_a_thread_reply_streams_and_returns_its_ts(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    thread = in_a_thread(fake_slack)
    reply = StreamingReply(slack_client, thread, buffer_size=16)

    await reply.begin()
    await write_in_pieces(reply, "Hello there, this is a streamed answer.")
    message = await finished(reply, fake_slack)

    assert message.text == "Hello there, this is a streamed answer."
    assert message.thread_ts == thread.thread_ts
    assert not message.streaming
    assert len(fake_slack.calls_to("chat.appendStream")) >= 1


async def test_a_long_streamed_answer_becomes_several_messages_within_the_limit(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    text = "Intro line.\n```js\n" + "\n".join(f"call({n});" for n in range(60)) + "\n```\nEnd."
    reply = StreamingReply(slack_client, in_a_thread(fake_slack), part_limit=LIMIT, buffer_size=16)

    await write_in_pieces(reply, text)
    timestamps = await reply.finish()

    parts = [fake_slack.find(CHANNEL, ts) for ts in timestamps]
    assert len(parts) > 2
    assert all(part is not None and len(part.text) <= LIMIT for part in parts)
    assert all(part is not None and part.text.count("```") % 2 == 0 for part in parts)
    assert all(part is not None and part.text.startswith("```js\n") for part in parts[1:-1])
    assert reply.text == text


async def test_refused_streaming_falls_back_to_a_placeholder_then_an_update(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    fake_slack.fail("chat.startStream", "not_allowed", times=None)
    thread = in_a_thread(fake_slack)
    reply = StreamingReply(slack_client, thread, buffer_size=8)

    await write_in_pieces(reply, "Answer without streaming, in pieces.")
    message = await finished(reply, fake_slack)

    assert message.text == "Answer without streaming, in pieces."
    assert message.thread_ts == thread.thread_ts
    assert fake_slack.calls_to("chat.postMessage")[0].args["text"] == THINKING_PLACEHOLDER


async def test_a_stream_that_breaks_midway_is_completed_by_an_update(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    reply = StreamingReply(slack_client, in_a_thread(fake_slack), buffer_size=8)
    await reply.write("The first half is streamed, ")
    fake_slack.fail("chat.appendStream", "message_not_in_streaming_state", times=None)
    fake_slack.fail("chat.stopStream", "message_not_in_streaming_state", times=None)

    await reply.write("and the second half is not.")
    message = await finished(reply, fake_slack)

    assert message.text == "The first half is streamed, and the second half is not."


async def test_a_top_level_dm_reply_posts_a_placeholder_and_updates_it(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    reply = open_reply(slack_client, target(fake_slack, thread_ts=None), part_limit=LIMIT)
    assert isinstance(reply, PostedReply)

    await reply.begin()
    placeholder = fake_slack.bot_messages(CHANNEL)[0]
    assert placeholder.text == THINKING_PLACEHOLDER
    await write_in_pieces(reply, "word " * 100)
    timestamps = await reply.finish()

    assert timestamps[0] == placeholder.ts
    parts = [fake_slack.find(CHANNEL, ts) for ts in timestamps]
    assert len(parts) == 3
    assert all(part is not None and part.thread_ts is None for part in parts)
    assert " ".join(part.text for part in parts if part is not None).split() == ["word"] * 100


async def test_progress_updates_are_throttled(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    reply = PostedReply(slack_client, target(fake_slack, thread_ts=None), update_interval=3600)
    await reply.begin()

    await write_in_pieces(reply, "many small pieces " * 10, size=3)
    await reply.finish()

    assert len(fake_slack.calls_to("chat.update")) == 1


async def test_fail_shows_the_notice_after_what_was_already_written(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    reply = PostedReply(slack_client, target(fake_slack, thread_ts=None))
    await reply.begin()
    await reply.write("Partial answer")

    await reply.fail("The model stopped; please ask again.")

    [message] = fake_slack.bot_messages(CHANNEL)
    assert message.text == "Partial answer\n\nThe model stopped; please ask again."


def test_streaming_needs_a_thread(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    with pytest.raises(ValueError, match="thread"):
        StreamingReply(slack_client, target(fake_slack, thread_ts=None))


def test_answer_blocks_never_split_a_code_block_across_sections() -> None:
    code = "\n".join(f"step_{n}()" for n in range(300))  # ~3,000 characters of code
    text = "Here is the script:\n```python\n" + code + "\n```\nDone."
    footer = [{"type": "divider"}]

    blocks = answer_blocks(text, footer)

    sections = [block["text"]["text"] for block in blocks if block["type"] == "section"]
    assert len(sections) >= 2
    assert all(len(section) <= 3000 for section in sections)
    assert all(section.count("```") % 2 == 0 for section in sections)
    assert sections[1].startswith("```python\n")
    assert blocks[-1] == {"type": "divider"}


async def test_begin_titles_a_new_conversation_and_shows_loading_messages(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    thread = in_a_thread(fake_slack)
    titled = thread.model_copy(update={"title": "Ports"})

    await StreamingReply(slack_client, titled).begin()

    assert fake_slack.titles == {(CHANNEL, thread.thread_ts): "Ports"}
    [status] = fake_slack.calls_to("assistant.threads.setStatus")
    assert status.args["loading_messages"] == list(LOADING_MESSAGES)


async def test_without_a_title_begin_sets_none_and_refusals_change_nothing(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    fake_slack.fail("assistant.threads.setStatus", "not_allowed", times=None)
    reply = StreamingReply(slack_client, in_a_thread(fake_slack))

    await reply.begin()
    await reply.write("still answered")
    [ts] = await reply.finish()

    assert fake_slack.calls_to("assistant.threads.setTitle") == []
    assert fake_slack.find(CHANNEL, ts) is not None


async def test_task_updates_go_into_the_stream_before_and_between_the_text(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    reply = StreamingReply(slack_client, in_a_thread(fake_slack), buffer_size=4)

    await reply.task(TaskUpdate(id="call_1", title="Lookup user", status="in_progress"))
    await reply.task(TaskUpdate(id="call_1", title="Lookup user", status="complete"))
    await write_in_pieces(reply, "Carol is in Oslo.")
    [ts] = await reply.finish()

    [start] = fake_slack.calls_to("chat.startStream")
    assert start.args["task_display_mode"] == "timeline"
    assert start.args["chunks"][0]["status"] == "in_progress"
    message = fake_slack.find(CHANNEL, ts)
    assert message is not None
    assert message.text == "Carol is in Oslo."
    assert message.tasks["call_1"]["status"] == "complete"
    assert reply.text == "Carol is in Oslo."  # tasks are shown, never part of the answer


async def test_a_stream_expiring_at_a_task_update_is_completed_by_an_update(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    reply = StreamingReply(slack_client, in_a_thread(fake_slack), buffer_size=4)
    await reply.write("Looking her up. ")
    fake_slack.expire_streams()

    await reply.task(TaskUpdate(id="call_1", title="Lookup user", status="in_progress"))
    await reply.write("Carol is in Oslo.")
    message = await finished(reply, fake_slack)

    assert message.text == "Looking her up. Carol is in Oslo."
    assert [call.args["ts"] for call in fake_slack.calls_to("chat.update")][-1] == message.ts
    assert len(fake_slack.bot_messages(CHANNEL)) == 1


async def test_a_posted_reply_ignores_task_updates(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    reply = PostedReply(slack_client, target(fake_slack, thread_ts=None))
    await reply.begin()
    calls = len(fake_slack.calls)

    await reply.task(TaskUpdate(id="call_1", title="Lookup user", status="in_progress"))

    assert len(fake_slack.calls) == calls


async def test_each_part_is_reported_the_moment_slack_shows_it(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    shown: list[tuple[str, bool]] = []

    async def on_shown(ts: str) -> None:
        message = fake_slack.find(CHANNEL, ts)
        assert message is not None and message.text.strip(), "reported once it has text"
        shown.append((ts, message.streaming))

    reply = StreamingReply(
        slack_client,
        in_a_thread(fake_slack),
        part_limit=1000,
        buffer_size=16,
        on_shown=on_shown,
    )
    await reply.begin()
    await write_in_pieces(reply, "A first sentence of the answer. " * 3)
    assert [streaming for _, streaming in shown] == [True], "part 1, while still streaming"
    await write_in_pieces(reply, "More of the answer, long enough for a second part. " * 25)
    parts = await reply.finish()

    assert len(parts) >= 2
    assert [ts for ts, _ in shown] == parts, "every part, once, in order"


async def test_a_posted_reply_reports_its_parts_as_they_appear(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    shown: list[str] = []

    async def on_shown(ts: str) -> None:
        shown.append(ts)

    reply = PostedReply(
        slack_client, target(fake_slack, thread_ts=None), part_limit=LIMIT, on_shown=on_shown
    )
    await reply.begin()
    assert shown == [], "the thinking placeholder is not an answer yet"
    await write_in_pieces(reply, "Word after word of a posted answer. " * 12)
    parts = await reply.finish()

    assert len(parts) >= 2
    assert shown == parts
