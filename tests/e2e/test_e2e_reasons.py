"""A reason behind a 👎, through the real app over HTTP, on SQLite and on PostgreSQL: the
bot asks privately, once an answer, with a button that opens a small form; a reply in the
answer's thread soon after the 👎 is the reason too (not a new question), acknowledged in
one private line; either is drafted into the lesson, shown in /memory, erased by /forget.
And learning a person can see: an answer that drew on their rated answers links them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from bot.answering.service import REJECTED_NOTE
from bot.config import Settings
from bot.listeners.views.reason_submitted import EMPTY_REASON
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI, permalink
from bot.views import FEEDBACK_ACTION_ID
from bot.views.learned import LEARNED_TEXT
from bot.views.reason import (
    ASK_TEXT,
    REASON_BLOCK_ID,
    REASON_INPUT_ACTION_ID,
    REASON_OPEN_ACTION_ID,
)
from memory import Episode, EpisodeStatus
from tests.support.block_kit import block_kit_problems, modal_problems
from tests.support.harness import ALICE, BOB, GENERAL, SignedSlack, dm_channel, running
from tests.support.postgres_scratch import scratch_schema

QUESTION = "How do I undo my last git commit?"
REASON = "that wiped out my uncommitted changes"
ALL = frozenset(EpisodeStatus)


async def eventually(check: Callable[[], Awaitable[bool]], *, within: float = 5.0) -> None:
    """Wait until ``check`` holds (background work: reflection, a wake-up)."""
    deadline = asyncio.get_running_loop().time() + within
    while not await check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("the condition never held")
        await asyncio.sleep(0.02)


@pytest.fixture(params=["sqlite", "postgres"])
async def backend(request: pytest.FixtureRequest, settings: Settings) -> AsyncIterator[Settings]:
    """The test's settings on each backend: the SQLite file, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        yield settings
        return
    async with scratch_schema() as url:
        yield settings.model_copy(update={"bot_db_url": SecretStr(url)})


@pytest.fixture
async def people(
    backend: Settings, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> AsyncIterator[SignedSlack]:
    """The bot on each backend, people talking to it."""
    async with running(backend, fake_slack, http) as slack:
        yield slack


async def episodes(slack: SignedSlack, user: str = ALICE) -> list[Episode]:
    return await slack.services.memory.list_episodes(user, statuses=ALL)


async def lesson_of(slack: SignedSlack, user: str = ALICE) -> str | None:
    [episode] = await slack.services.memory.list_episodes(user)
    return episode.lesson


async def thumbs_down(
    slack: SignedSlack, question: str = QUESTION, *, user: str = ALICE
) -> FakeMessage:
    """``user`` asks in their DM and 👎s the answer; returns the answer."""
    answer = await slack.ask_in_dm(question, user=user)
    await slack.vote(answer, user=user, reaction="-1")
    return answer


async def test_a_reply_after_a_thumbs_down_is_its_reason_and_redrafts_the_lesson(
    people: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    answer = await thumbs_down(people)
    await eventually(lambda: _has_lesson(people))
    first_lesson = await lesson_of(people)
    assert first_lesson is not None and REASON not in first_lesson
    bot_messages = len(fake_slack.final_messages(dm_channel(ALICE)))

    await people.reply_in_thread(answer, REASON)

    [acknowledged] = people.reasons_thanked()
    assert (acknowledged["user"], acknowledged["thread_ts"]) == (ALICE, answer.thread_ts)
    assert len(fake_slack.final_messages(dm_channel(ALICE))) == bot_messages, "not answered"
    [stored] = await episodes(people)
    assert (stored.status, stored.reason) == (EpisodeStatus.FAILURE, REASON)
    with pytest.raises(AssertionError):
        fake_llm.request_for(REASON, agent_only=True)
    # the lesson is drafted again, from the question, the answer and the reason
    await eventually(lambda: _has_lesson(people))
    lesson = await lesson_of(people)
    assert lesson is not None and REASON in lesson
    drafting = fake_llm.request_for(REASON)
    assert f"What the person said went wrong:\n{REASON}" in drafting["messages"][-1]["content"]


async def _has_lesson(slack: SignedSlack) -> bool:
    return await lesson_of(slack) is not None


async def test_a_reply_that_asks_is_answered_with_the_reason_applied(
    people: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    answer = await thumbs_down(people)
    follow_up = f"{REASON}. How do I get them back?"
    before = len(fake_slack.final_messages(dm_channel(ALICE)))

    await people.reply_in_thread(answer, follow_up)
    await people.answers(before + 1, channel=dm_channel(ALICE))

    assert len(people.reasons_thanked()) == 1
    request = fake_llm.request_for(follow_up, agent_only=True)
    systems = [m["content"] for m in request["messages"] if m["role"] == "system"]
    assert REJECTED_NOTE in systems
    rejected, asked = sorted(await episodes(people), key=lambda episode: episode.id)
    assert (rejected.status, rejected.reason) == (EpisodeStatus.FAILURE, follow_up)
    assert (asked.status, asked.question) == (EpisodeStatus.PENDING, follow_up)


async def test_a_reason_is_taken_once_then_replies_are_questions_again(
    people: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    answer = await thumbs_down(people)
    await people.reply_in_thread(answer, REASON)
    before = len(fake_slack.final_messages(dm_channel(ALICE)))

    await people.reply_in_thread(answer, "also it was slow")
    await people.answers(before + 1, channel=dm_channel(ALICE))

    assert len(people.reasons_thanked()) == 1
    fake_llm.request_for("also it was slow", agent_only=True)
    rejected, *_ = sorted(await episodes(people), key=lambda episode: episode.id)
    assert rejected.reason == REASON
    assert len(await episodes(people)) == 2


async def test_a_reply_without_a_thumbs_down_is_a_question(
    people: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    answer = await people.ask_in_dm(QUESTION)
    await people.vote(answer, reaction="+1")

    await people.reply_in_thread(answer, "that worked, thanks")
    await people.answers(2, channel=dm_channel(ALICE))

    assert people.reasons_thanked() == []
    assert all(episode.reason is None for episode in await episodes(people))


async def test_someone_elses_reply_in_the_thread_is_not_the_askers_reason(
    people: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    answer = await people.ask_in_channel(QUESTION, user=ALICE)
    await people.vote(answer, user=ALICE, reaction="-1")

    await people.say(REASON, user=BOB, channel=GENERAL, thread_ts=answer.thread_ts)
    await people.answers(2, channel=GENERAL)

    assert people.reasons_thanked() == []
    [alices] = await episodes(people, ALICE)
    assert alices.reason is None
    fake_llm.request_for(REASON, agent_only=True)  # answered as Bob's question


async def test_a_reply_in_another_conversation_is_not_the_reason(
    people: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    await people.ask_in_channel(QUESTION, user=ALICE)
    [answer] = fake_slack.final_messages(GENERAL)
    await people.vote(answer, user=ALICE, reaction="-1")

    await people.ask_in_dm(REASON, user=ALICE)  # her DM, not the answer's thread

    assert people.reasons_thanked() == []
    [voted] = await people.services.memory.list_episodes(ALICE)
    assert voted.reason is None


async def test_forget_erases_the_reason_from_the_disk(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, db_file: Path
) -> None:
    answer = await thumbs_down(slack)
    secret = "the quokkafrond script deleted my zanzibarite branch"
    await slack.reply_in_thread(answer, secret)
    [stored] = await episodes(slack)
    assert stored.reason == secret

    response = await slack.command("/forget", user=ALICE, channel=dm_channel(ALICE))
    assert response.status_code == 200

    files = [db_file, *(db_file.with_name(db_file.name + end) for end in ("-wal", "-shm"))]
    on_disk = b"".join(path.read_bytes() for path in files if path.exists())
    for word in (b"quokkafrond", b"zanzibarite"):
        assert word not in on_disk, word
    assert await episodes(slack) == []


@pytest.mark.parametrize("minutes", [0.0, 0.001])
async def test_a_reply_outside_the_window_or_with_it_off_is_a_question(
    minutes: float,
    settings: Settings,
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    http: httpx.AsyncClient,
) -> None:
    async with running(settings, fake_slack, http, reason_reply_minutes=minutes) as slack:
        answer = await thumbs_down(slack)
        await asyncio.sleep(0.1)  # 0.001 minutes (60 ms) after the 👎 have passed

        await slack.reply_in_thread(answer, REASON)
        await slack.answers(2, channel=dm_channel(ALICE))

        assert slack.reasons_thanked() == []
        fake_llm.request_for(REASON, agent_only=True)
        assert all(episode.reason is None for episode in await episodes(slack))


def asks(fake: FakeSlackWebAPI) -> list[dict[str, Any]]:
    """The private notes asking why an answer was 👎'd."""
    return [
        call.args
        for call in fake.calls_to("chat.postEphemeral")
        if call.args.get("text") == ASK_TEXT
    ]


def tell_me_why(asked: dict[str, Any]) -> str:
    """The value of the "Tell me why" button of a private note."""
    [section] = asked["blocks"]
    button = section["accessory"]
    assert button["action_id"] == REASON_OPEN_ACTION_ID
    return str(button["value"])


def typed(text: str) -> dict[str, Any]:
    """The form's state once ``text`` was typed in it."""
    return {REASON_BLOCK_ID: {REASON_INPUT_ACTION_ID: {"type": "plain_text_input", "value": text}}}


async def open_form(
    slack: SignedSlack, asked: dict[str, Any], *, user: str = ALICE
) -> dict[str, Any]:
    """``user`` clicks "Tell me why": the form the bot opened with the click's trigger."""
    opened = len(slack.fake.calls_to("views.open"))
    response = await slack.click_in_private_note(
        asked["channel"], action_id=REASON_OPEN_ACTION_ID, value=tell_me_why(asked), user=user
    )
    assert response.status_code == 200
    await slack.fake.wait_for(lambda: len(slack.fake.calls_to("views.open")) > opened, what="form")
    call = slack.fake.calls_to("views.open")[-1].args
    assert call["trigger_id"] == "123.456.abc"
    return dict(call["view"])


async def test_a_thumbs_down_asks_once_privately_and_the_form_keeps_the_reason(
    people: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    answer = await thumbs_down(people)

    [asked] = asks(fake_slack)
    assert (asked["user"], asked["channel"]) == (ALICE, dm_channel(ALICE))
    assert asked["thread_ts"] == answer.thread_ts
    assert block_kit_problems(asked["blocks"]) == []
    form = await open_form(people, asked)
    assert modal_problems(form) == []

    response = await people.submit_view(form, typed(REASON))

    assert response.status_code == 200 and not response.text  # the form closes
    [stored] = await episodes(people)
    assert stored.reason == REASON
    await eventually(lambda: _lesson_holds(people, REASON))
    # taken back and given again, by reaction and by button: never asked twice
    await people.react(answer, reaction="-1", added=False)
    await people.vote(answer, reaction="-1")
    await people.click(answer, action_id=FEEDBACK_ACTION_ID, value="down")
    await people.settled()
    assert len(asks(fake_slack)) == 1


async def _lesson_holds(slack: SignedSlack, text: str) -> bool:
    lesson = await lesson_of(slack)
    return lesson is not None and text in lesson


async def test_the_down_button_asks_too_and_a_thumbs_up_never_does(
    people: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    liked = await people.ask_in_dm("How do I list my branches?")
    await people.vote(liked, reaction="+1")
    await people.click(liked, action_id=FEEDBACK_ACTION_ID, value="up")
    await people.settled()
    assert asks(fake_slack) == []

    disliked = await people.ask_in_dm(QUESTION)
    await people.click(disliked, action_id=FEEDBACK_ACTION_ID, value="down")
    await people.settled()

    [asked] = asks(fake_slack)
    assert asked["thread_ts"] == disliked.thread_ts


async def test_nobody_is_asked_about_someone_elses_answer(
    settings: Settings, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> None:
    async with running(settings, fake_slack, http, anyone_may_vote=True) as slack:
        answer = await slack.ask_in_channel(QUESTION, user=ALICE)
        await slack.vote(answer, user=BOB, reaction="-1")

        assert asks(fake_slack) == []
        [voted] = await slack.services.memory.list_episodes(ALICE)
        assert voted.status is EpisodeStatus.FAILURE


async def test_asking_can_be_turned_off(
    settings: Settings, fake_slack: FakeSlackWebAPI, http: httpx.AsyncClient
) -> None:
    async with running(settings, fake_slack, http, ask_for_reasons=False) as slack:
        answer = await thumbs_down(slack)

        assert asks(fake_slack) == []
        await slack.reply_in_thread(answer, REASON)  # a reply in the thread still counts
        [stored] = await episodes(slack)
        assert stored.reason == REASON


async def test_a_form_for_someone_elses_answer_or_left_empty_changes_nothing(
    people: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    await thumbs_down(people)
    [asked] = asks(fake_slack)
    form = await open_form(people, asked)

    empty = await people.submit_view(form, typed("   "))
    forged = await people.submit_view(form, typed("Bob's words"), user=BOB)

    assert empty.json() == {"response_action": "errors", "errors": {REASON_BLOCK_ID: EMPTY_REASON}}
    assert forged.status_code == 200
    [stored] = await episodes(people)
    assert stored.reason is None
    assert await episodes(people, BOB) == []


async def test_the_reason_shows_in_memory_and_on_the_home_tab(
    people: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    answer = await thumbs_down(people)
    await people.reply_in_thread(answer, REASON)

    listed = await people.command("/memory", user=ALICE, channel=dm_channel(ALICE))
    await people.open_home(user=ALICE)
    await fake_slack.wait_for(lambda: bool(fake_slack.calls_to("views.publish")), what="home")

    assert f"*You said:* {REASON}" in str(listed.json()["blocks"])
    [published] = fake_slack.calls_to("views.publish")
    assert f"*You said:* {REASON}" in str(published.args["view"])
    bobs = await people.command("/memory", user=BOB, channel=dm_channel(ALICE))
    assert REASON not in str(bobs.json())


RELATED = "what's the way to revert the commit I just made in git"


def learned_line(blocks: Any) -> str | None:
    """The text of the "Learned from your feedback" context line among ``blocks``."""
    for block in blocks or []:
        if block.get("type") == "context":
            text = block["elements"][0]["text"]
            if text.startswith("Learned from your feedback"):
                return str(text)
    return None


def private_lines(fake: FakeSlackWebAPI, user: str) -> list[str]:
    """The context lines sent to ``user`` privately (in a channel)."""
    return [
        str(learned_line(call.args["blocks"]))
        for call in fake.calls_to("chat.postEphemeral")
        if call.args.get("text") == LEARNED_TEXT and call.args.get("user") == user
    ]


@pytest.mark.parametrize(("reaction", "shown"), [("+1", "👍"), ("-1", "👎")])
async def test_an_answer_that_drew_on_a_rated_answer_links_it(
    reaction: str, shown: str, people: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    first = await people.ask_in_dm(QUESTION)
    await people.vote(first, reaction=reaction)

    later = await people.ask_in_dm(RELATED)

    line = learned_line(later.blocks)
    assert line is not None
    assert f"{shown} <{permalink(first.channel, first.ts)}|" in line
    assert block_kit_problems(later.blocks) == []
    assert learned_line(first.blocks) is None, "the first answer drew on nothing"


async def test_in_a_channel_the_line_is_for_the_asker_alone(
    people: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    first = await people.ask_in_channel(QUESTION, user=ALICE)
    await people.vote(first, user=ALICE, reaction="+1")

    later = await people.ask_in_channel(RELATED, user=ALICE)

    assert learned_line(later.blocks) is None, "the thread's readers see the answer only"
    [line] = private_lines(fake_slack, ALICE)
    assert f"<{permalink(GENERAL, first.ts)}|" in line
    [call] = [
        c.args for c in fake_slack.calls_to("chat.postEphemeral") if c.args["text"] == LEARNED_TEXT
    ]
    assert call["thread_ts"] == later.thread_ts


async def test_nobody_is_shown_a_link_to_someone_elses_answer_or_another_conversation(
    settings: Settings,
    fake_slack: FakeSlackWebAPI,
    fake_llm: FakeLLMServer,
    http: httpx.AsyncClient,
) -> None:
    async with running(settings, fake_slack, http, share_channel_successes=True) as slack:
        alices = await slack.ask_in_channel(QUESTION, user=ALICE)
        await slack.vote(alices, user=ALICE, reaction="+1")

        bobs = await slack.ask_in_channel(f"{RELATED} (bob)", user=BOB)
        in_her_dm = await slack.ask_in_dm(RELATED, user=ALICE)

        assert QUESTION in fake_llm.prompt_for(f"{RELATED} (bob)"), "her 👍 is shared with Bob"
        assert learned_line(bobs.blocks) is None
        assert learned_line(in_her_dm.blocks) is None
        assert private_lines(fake_slack, BOB) == []
        link = permalink(GENERAL, alices.ts)
        assert link not in str([call.args for call in fake_slack.calls]), "never linked"
