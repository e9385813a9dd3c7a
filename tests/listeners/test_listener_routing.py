"""Which message events the bot answers, and how it reads them."""

from __future__ import annotations

from typing import Any

import pytest

from bot.answering import BotIdentity, IncomingMessage
from bot.listeners.translate import Ignored, from_app_mention, from_message
from memory import ConversationKind, MemoryStore, Scope
from tests.memory.memory_helpers import Memory

BOT = BotIdentity(user_id="U0000BOT", bot_id="B0000BOT", team_id="T1")


def body(**event: Any) -> dict[str, Any]:
    defaults = {"type": "message", "user": "U1", "text": "hi", "ts": "1.000001", "channel": "C1"}
    return {"event_id": "Ev1", "team_id": "T1", "event": {**defaults, **event}}


async def test_a_top_level_dm_starts_a_conversation_answered_in_its_thread(
    store: MemoryStore,
) -> None:
    incoming = await from_message(body(channel="D1", channel_type="im"), BOT, store)

    assert isinstance(incoming, IncomingMessage)
    assert incoming.is_dm
    assert incoming.reply_thread_ts == "1.000001"
    assert incoming.starts_conversation
    assert incoming.scope == Scope(team_id="T1", channel_id="D1", kind=ConversationKind.DM)
    assert incoming.dedupe_keys == ("Ev1", "D1:1.000001")


async def test_a_dm_in_a_thread_is_answered_in_that_thread(store: MemoryStore) -> None:
    incoming = await from_message(
        body(channel="D1", channel_type="im", thread_ts="0.5"), BOT, store
    )

    assert isinstance(incoming, IncomingMessage)
    assert incoming.reply_thread_ts == "0.5"
    assert incoming.starts_conversation  # nothing answered there yet: a new assistant thread


async def test_a_dm_thread_already_answered_in_continues_its_conversation(
    store: MemoryStore,
) -> None:
    scope = Scope(team_id="T1", channel_id="D1", kind=ConversationKind.DM)
    await Memory(store).ask("q", "a", user="U1", scope=scope, thread_ts="0.5")

    incoming = await from_message(
        body(channel="D1", channel_type="im", thread_ts="0.5"), BOT, store
    )

    assert isinstance(incoming, IncomingMessage)
    assert not incoming.starts_conversation


@pytest.mark.parametrize(
    ("event", "why"),
    [
        ({"subtype": "message_changed"}, Ignored.SUBTYPE),
        ({"subtype": "message_deleted"}, Ignored.SUBTYPE),
        ({"subtype": "channel_join"}, Ignored.SUBTYPE),
        ({"subtype": "bot_message", "bot_id": "B2"}, Ignored.BOT),
        ({"bot_id": "B2"}, Ignored.BOT),
        ({"user": "U0000BOT"}, Ignored.OWN),
        ({"user": None}, Ignored.MALFORMED),
    ],
    ids=["edit", "deletion", "join", "bot-message", "other-bot", "itself", "no-user"],
)
async def test_messages_not_written_by_a_person_are_ignored(
    store: MemoryStore, event: dict[str, Any], why: Ignored
) -> None:
    assert await from_message(body(channel_type="im", **event), BOT, store) == why


@pytest.mark.parametrize("channel_type", ["channel", "group", "mpim"])
async def test_a_channel_message_needs_a_mention_or_an_answered_thread(
    store: MemoryStore, channel_type: str
) -> None:
    """A private channel's and a group DM's messages as a channel's (the manifest subscribes
    to all three)."""
    unaddressed = await from_message(body(channel_type=channel_type), BOT, store)
    assert unaddressed == Ignored.NOT_ADDRESSED
    in_other_thread = await from_message(
        body(channel_type=channel_type, thread_ts="0.5"), BOT, store
    )
    assert in_other_thread == Ignored.NOT_ADDRESSED

    mentioned = await from_message(
        body(channel_type=channel_type, text="<@U0000BOT> hi"), BOT, store
    )
    assert isinstance(mentioned, IncomingMessage)
    assert mentioned.reply_thread_ts == "1.000001"
    assert mentioned.scope.kind is ConversationKind.CHANNEL

    await Memory(store).ask(
        "q",
        "a",
        user="U1",
        scope=Scope(team_id="T1", channel_id="C1", kind=ConversationKind.CHANNEL),
        thread_ts="0.5",
    )
    follow_up = await from_message(body(channel_type=channel_type, thread_ts="0.5"), BOT, store)
    assert isinstance(follow_up, IncomingMessage)
    assert follow_up.reply_thread_ts == "0.5"
    assert not follow_up.is_dm


def test_an_app_mention_is_answered_in_a_thread_under_it() -> None:
    incoming = from_app_mention(body(type="app_mention", text="<@U0000BOT> hi"), BOT)

    assert isinstance(incoming, IncomingMessage)
    assert incoming.reply_thread_ts == "1.000001"
    assert incoming.dedupe_keys == ("Ev1", "C1:1.000001")


def test_an_app_mention_by_a_bot_is_ignored() -> None:
    assert from_app_mention(body(type="app_mention", bot_id="B2"), BOT) == Ignored.BOT


async def test_the_scope_is_the_workspace_of_the_conversation_not_of_the_writer(
    store: MemoryStore,
) -> None:
    """In a Slack Connect channel, a guest's ``event.team`` is their own workspace."""
    guest = body(team="T9GUEST", text=f"{BOT.mention} hello", channel_type="channel")
    incoming = await from_message(guest, BOT, store)

    assert isinstance(incoming, IncomingMessage)
    assert incoming.scope == Scope(team_id="T1", channel_id="C1", kind=ConversationKind.CHANNEL)
