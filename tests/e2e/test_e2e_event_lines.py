"""One log line per handled event, of every kind, over real HTTP: an answer, each way a
message is deliberately ignored, a vote (reaction or button) and a reaction that is none,
``/memory``, ``/forget``, the Home and Messages tabs, the assistant events and the
*Forget* buttons. Each is exactly one ``bot.events`` line with the right kind and outcome,
in plain text and as ``LOG_FORMAT=json`` writes it, and none holds what anyone wrote."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from bot.logging_setup import JsonFormatter
from bot.observability import EVENT_LOGGER
from bot.simulator.slack_web_api import FakeMessage
from bot.views import FEEDBACK_ACTION_ID, FORGET_EVERYTHING_ACTION_ID, FORGET_ITEM_ACTION_ID
from bot.views.memory_list import ItemKind, ItemRef
from tests.support.harness import ALICE, BOB, GENERAL, SignedSlack, dm_channel

QUESTION = "how do I rotate the wombat staging password"
WRITTEN = "the capybara runbook says otherwise"
"""What people write in the scenarios (no line may hold it, nor any word of the question)."""

Scenario = Callable[[SignedSlack, FakeMessage], Awaitable[object]]


async def dm(slack: SignedSlack, answer: FakeMessage) -> None:
    await slack.dm(WRITTEN)


async def mention_only(slack: SignedSlack, answer: FakeMessage) -> None:
    await slack.mention(WRITTEN, user=BOB, also_as_message=False)


async def unaddressed(slack: SignedSlack, answer: FakeMessage) -> None:
    await slack.say(WRITTEN, user=BOB)


async def edit(slack: SignedSlack, answer: FakeMessage) -> None:
    message = slack.fake.add_user_message(dm_channel(ALICE), WRITTEN, user=ALICE)
    await slack.send_event(
        slack.message_event(message, channel_type="im", subtype="message_changed")
    )


async def another_bot(slack: SignedSlack, answer: FakeMessage) -> None:
    message = slack.fake.add_user_message(GENERAL, WRITTEN, user=BOB)
    event = slack.message_event(message, channel_type="channel")
    await slack.send_event({**event, "bot_id": "B0000OTHER"})


async def react_down(slack: SignedSlack, answer: FakeMessage) -> None:
    await slack.react(answer, reaction="-1")


async def react_to_a_file(slack: SignedSlack, answer: FakeMessage) -> None:
    await slack.send_event(
        {
            "type": "reaction_added",
            "user": ALICE,
            "reaction": "+1",
            "item": {"type": "file", "file": "F0000FILE"},
            "event_ts": slack.fake.next_ts(),
        }
    )


async def click_down(slack: SignedSlack, answer: FakeMessage) -> None:
    response = await slack.click(
        answer, action_id=FEEDBACK_ACTION_ID, value="down", action_type="feedback_buttons"
    )
    assert response.status_code == 200


async def list_memory(slack: SignedSlack, answer: FakeMessage) -> None:
    response = await slack.command("/memory", channel=dm_channel(ALICE))
    assert QUESTION in response.text  # shown to Alice, never logged


async def forget_command(slack: SignedSlack, answer: FakeMessage) -> None:
    assert (await slack.command("/forget")).status_code == 200


async def home(slack: SignedSlack, answer: FakeMessage) -> None:
    await slack.open_home()


async def messages_tab(slack: SignedSlack, answer: FakeMessage) -> None:
    await slack.open_home(tab="messages")


async def thread_started(slack: SignedSlack, answer: FakeMessage) -> None:
    await slack.start_assistant_thread()


async def context_changed(slack: SignedSlack, answer: FakeMessage) -> None:
    event = slack.assistant_thread_event(
        "assistant_thread_context_changed", thread_ts=answer.thread_ts or answer.ts
    )
    await slack.send_event(event)


async def forget_one_item(slack: SignedSlack, answer: FakeMessage) -> None:
    services = slack.services
    [episode] = await services.memory.list_episodes(ALICE)
    value = ItemRef(kind=ItemKind.EPISODE, id=episode.id).value
    assert (await slack.click(answer, action_id=FORGET_ITEM_ACTION_ID, value=value)).is_success


async def forget_a_malformed_item(slack: SignedSlack, answer: FakeMessage) -> None:
    await slack.click(answer, action_id=FORGET_ITEM_ACTION_ID, value="not-an-item")


async def forget_everything(slack: SignedSlack, answer: FakeMessage) -> None:
    await slack.click(answer, action_id=FORGET_EVERYTHING_ACTION_ID, value="all")


CASES: list[tuple[Scenario, dict[str, str]]] = [
    (dm, {"kind": "answer", "outcome": "answered", "user": ALICE}),
    (mention_only, {"kind": "answer", "outcome": "answered", "channel": GENERAL}),
    (unaddressed, {"kind": "message", "outcome": "ignored", "reason": "not_addressed"}),
    (edit, {"kind": "message", "outcome": "ignored", "reason": "message_changed"}),
    (another_bot, {"kind": "message", "outcome": "ignored", "reason": "bot"}),
    (react_down, {"kind": "vote", "outcome": "failure", "user": ALICE}),
    (react_to_a_file, {"kind": "vote", "outcome": "ignored", "reason": "not_a_vote"}),
    (click_down, {"kind": "vote", "outcome": "failure"}),
    (list_memory, {"kind": "memory", "outcome": "ok", "channel": dm_channel(ALICE)}),
    (forget_command, {"kind": "forget", "outcome": "ok", "user": ALICE}),
    (home, {"kind": "home", "outcome": "ok", "user": ALICE}),
    (messages_tab, {"kind": "messages_tab", "outcome": "ok", "channel": dm_channel(ALICE)}),
    (thread_started, {"kind": "thread_started", "outcome": "ok", "user": ALICE}),
    (context_changed, {"kind": "context_changed", "outcome": "ignored"}),
    (forget_one_item, {"kind": "forget_item", "outcome": "ok", "user": ALICE}),
    (forget_a_malformed_item, {"kind": "forget_item", "outcome": "ignored"}),
    (forget_everything, {"kind": "forget", "outcome": "ok", "user": ALICE}),
]
CALLS_SLACK = frozenset({"answer", "home", "messages_tab", "thread_started"})
"""Kinds whose handling calls Slack's Web API (their lines time those calls)."""


class EventLines(logging.Handler):
    """The ``bot.events`` records logged while it is attached, and a wake-up for the first."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []
        self.logged = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        self.logged.set()

    async def after(self, slack: SignedSlack) -> list[logging.LogRecord]:
        """The lines logged so far, once at least one is there and the bot is idle."""
        async with asyncio.timeout(5):
            await self.logged.wait()
        await slack.settled()
        await asyncio.sleep(0.05)  # a second line, if any, would be logged by now
        return self.records


@contextmanager
def attached_event_lines() -> Iterator[EventLines]:
    logger = logging.getLogger(EVENT_LOGGER)
    lines, level = EventLines(), logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(lines)
    try:
        yield lines
    finally:
        logger.removeHandler(lines)
        logger.setLevel(level)


@pytest.mark.parametrize(("scenario", "expected"), CASES, ids=[c[0].__name__ for c in CASES])
async def test_each_handled_event_is_exactly_one_line_of_its_kind_without_text(
    slack: SignedSlack, scenario: Scenario, expected: dict[str, str]
) -> None:
    answer = await slack.ask_in_dm(QUESTION)
    await slack.vote(answer, reaction="+1")

    with attached_event_lines() as lines:
        await scenario(slack, answer)
        [line] = await lines.after(slack)

    fields: dict[str, Any] = line.event  # type: ignore[attr-defined]
    assert {name: fields.get(name) for name in expected} == expected
    assert fields["total_ms"] >= 0
    if expected["kind"] in CALLS_SLACK:
        assert fields["slack_calls"] >= 1
        assert fields["slack_ms"] >= 0
    as_json = json.loads(JsonFormatter().format(line))
    assert {name: as_json.get(name) for name in expected} == expected
    shown = line.getMessage()
    assert shown.startswith(f"event kind={expected['kind']} outcome={expected['outcome']}")
    for written in (QUESTION, WRITTEN, answer.text):
        for word in written.split():
            if len(word) > 4:
                assert word not in shown
                assert word not in json.dumps(as_json)
