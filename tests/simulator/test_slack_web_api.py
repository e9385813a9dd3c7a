"""The fake Slack Web API behaves like Slack where the bot depends on it."""

from __future__ import annotations

import httpx
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.slack.directory import WebApiDirectory

CHANNEL = "C0000TEST"


async def test_a_wrong_token_is_refused(fake_slack: FakeSlackWebAPI) -> None:
    intruder = AsyncWebClient(token="xoxb-wrong", base_url=fake_slack.base_url)

    with pytest.raises(SlackApiError, match="invalid_auth"):
        await intruder.auth_test()


async def test_a_missing_token_is_refused(fake_slack: FakeSlackWebAPI) -> None:
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{fake_slack.base_url}auth.test")
    assert response.json() == {"ok": False, "error": "not_authed"}


async def test_form_and_json_bodies_are_both_understood(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    await slack_client.chat_postMessage(channel=CHANNEL, text="as json")  # the SDK sends JSON here
    await slack_client.api_call("chat.postMessage", data={"channel": CHANNEL, "text": "as a form"})

    assert [m.text for m in fake_slack.bot_messages(CHANNEL)] == ["as json", "as a form"]
    assert [call.args["text"] for call in fake_slack.calls_to("chat.postMessage")] == [
        "as json",
        "as a form",
    ]


async def test_timestamps_increase(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    first = await slack_client.chat_postMessage(channel=CHANNEL, text="one")
    second = await slack_client.chat_postMessage(channel=CHANNEL, text="two")

    assert float(second["ts"]) > float(first["ts"])


async def test_replies_return_the_thread_of_that_channel_only(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    root = fake_slack.add_user_message(CHANNEL, "root", user="U1")
    fake_slack.add_user_message(CHANNEL, "reply", user="U2", thread_ts=root.ts)
    fake_slack.add_user_message("C0000OTHER", "elsewhere", user="U2", thread_ts=root.ts)
    fake_slack.add_user_message(CHANNEL, "unrelated", user="U3")

    thread = await WebApiDirectory(slack_client).thread_messages(CHANNEL, root.ts)

    assert [m["text"] for m in thread] == ["root", "reply"]


async def test_user_info_exposes_only_public_fields(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    fake_slack.add_user("U1", name="alice", real_name="Alice Liddell", tz="Europe/London")

    info = await WebApiDirectory(slack_client).user_info("U1")

    assert info == {
        "id": "U1",
        "name": "alice",
        "real_name": "Alice Liddell",
        "tz": "Europe/London",
    }


async def test_injected_errors_happen_the_given_number_of_times(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    fake_slack.fail("chat.postMessage", "ratelimited", status=429, retry_after=1)
    slack_client.retry_handlers.clear()  # see the raw 429 instead of the SDK retrying it

    with pytest.raises(SlackApiError, match="ratelimited"):
        await slack_client.chat_postMessage(channel=CHANNEL, text="first")
    await slack_client.chat_postMessage(channel=CHANNEL, text="second")

    assert [m.text for m in fake_slack.bot_messages(CHANNEL)] == ["second"]


async def test_streaming_assembles_the_message_and_refuses_appends_after_stop(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    root = fake_slack.add_user_message(CHANNEL, "root", user="U1")
    stream = await slack_client.chat_stream(
        channel=CHANNEL,
        thread_ts=root.ts,
        recipient_team_id=fake_slack.team_id,
        recipient_user_id="U1",
        buffer_size=1,
    )
    await stream.append(markdown_text="Hello, ")
    await stream.append(markdown_text="world")
    await stream.stop()

    [message] = fake_slack.bot_messages(CHANNEL)
    assert message.text == "Hello, world"
    assert not message.streaming
    with pytest.raises(SlackApiError, match="message_not_in_streaming_state"):
        await slack_client.chat_appendStream(channel=CHANNEL, ts=message.ts, markdown_text="more")


async def test_streaming_in_a_channel_needs_the_recipient(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    root = fake_slack.add_user_message(CHANNEL, "root", user="U1")

    with pytest.raises(SlackApiError, match="missing_recipient_user_id"):
        await slack_client.chat_startStream(channel=CHANNEL, thread_ts=root.ts, markdown_text="hi")


async def test_streaming_can_be_made_unavailable(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    fake_slack.streaming_available = False
    root = fake_slack.add_user_message("D0000DM", "root", user="U1")

    with pytest.raises(SlackApiError, match="unknown_method"):
        await slack_client.chat_startStream(
            channel="D0000DM", thread_ts=root.ts, markdown_text="hi"
        )


async def test_too_long_texts_are_refused_like_slack_does(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    with pytest.raises(SlackApiError, match="msg_too_long"):
        await slack_client.chat_postMessage(channel=CHANNEL, text="x" * 40_001)


async def test_waiting_for_messages_fails_the_test_with_the_calls_seen(
    fake_slack: FakeSlackWebAPI,
) -> None:
    with pytest.raises(AssertionError, match="timed out waiting for 1 final bot message"):
        await fake_slack.wait_for_final_messages(1, within=0.05)


async def test_assistant_thread_methods_keep_what_they_set(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    await slack_client.assistant_threads_setStatus(
        channel_id="D1", thread_ts="1.0", status="is thinking…", loading_messages=["a", "b"]
    )
    await slack_client.assistant_threads_setTitle(channel_id="D1", thread_ts="1.0", title="Ports")
    prompts = [{"title": "Again", "message": "which port?"}]
    await slack_client.assistant_threads_setSuggestedPrompts(channel_id="D1", prompts=prompts)

    assert fake_slack.statuses[("D1", "1.0")] == "is thinking…"
    assert fake_slack.titles[("D1", "1.0")] == "Ports"
    [suggested] = fake_slack.suggested_prompts
    assert (suggested.channel_id, suggested.thread_ts, suggested.prompts) == ("D1", None, prompts)


@pytest.mark.parametrize(
    ("method", "args"),
    [
        ("assistant.threads.setStatus", {"channel_id": "D1", "thread_ts": "1.0"}),
        (
            "assistant.threads.setStatus",
            {"channel_id": "D1", "thread_ts": "1.0", "status": "x", "loading_messages": ["m"] * 11},
        ),
        ("assistant.threads.setTitle", {"channel_id": "D1", "thread_ts": "1.0", "title": ""}),
        (
            "assistant.threads.setSuggestedPrompts",
            {"channel_id": "D1", "prompts": [{"title": "t", "message": "m"}] * 5},
        ),
        (
            "assistant.threads.setSuggestedPrompts",
            {"channel_id": "D1", "prompts": [{"title": "t"}]},
        ),
    ],
)
async def test_assistant_thread_methods_refuse_what_slack_refuses(
    slack_client: AsyncWebClient, method: str, args: dict[str, object]
) -> None:
    with pytest.raises(SlackApiError, match="invalid_arguments"):
        await slack_client.api_call(method, json=args)


async def test_task_updates_are_kept_per_task_and_bad_chunks_refused(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    task = {"type": "task_update", "id": "call_1", "title": "Search", "status": "in_progress"}
    started = await slack_client.chat_startStream(channel="D1", thread_ts="1.0", chunks=[task])
    await slack_client.chat_appendStream(
        channel="D1",
        ts=started["ts"],
        chunks=[{**task, "status": "complete"}, {"type": "markdown_text", "text": "found it"}],
    )
    with pytest.raises(SlackApiError, match="invalid_chunks"):
        await slack_client.chat_appendStream(
            channel="D1", ts=started["ts"], chunks=[{**task, "status": "done"}]
        )
    await slack_client.chat_stopStream(channel="D1", ts=started["ts"])

    message = fake_slack.find("D1", started["ts"])
    assert message is not None
    assert message.text == "found it"
    assert message.tasks["call_1"]["status"] == "complete"


async def test_a_stream_expires_and_can_then_only_be_updated(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    fake_slack.stream_lifetime = 0.0
    started = await slack_client.chat_startStream(
        channel="D1", thread_ts="1.0", markdown_text="so far"
    )

    with pytest.raises(SlackApiError, match="message_not_in_streaming_state"):
        await slack_client.chat_appendStream(channel="D1", ts=started["ts"], markdown_text=" more")
    with pytest.raises(SlackApiError, match="message_not_in_streaming_state"):
        await slack_client.chat_stopStream(channel="D1", ts=started["ts"])
    await slack_client.chat_update(channel="D1", ts=started["ts"], text="so far, and more")

    message = fake_slack.find("D1", started["ts"])
    assert message is not None
    assert (message.text, message.streaming) == ("so far, and more", False)


async def test_expire_streams_ends_the_open_ones_now(
    fake_slack: FakeSlackWebAPI, slack_client: AsyncWebClient
) -> None:
    started = await slack_client.chat_startStream(channel="D1", thread_ts="1.0", markdown_text="a")
    fake_slack.expire_streams()

    with pytest.raises(SlackApiError, match="message_not_in_streaming_state"):
        await slack_client.chat_appendStream(channel="D1", ts=started["ts"], markdown_text="b")
