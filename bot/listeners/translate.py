"""Deciding which Slack message events deserve an answer, and translating them."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from bot.answering import BotIdentity, IncomingMessage
from bot.slack.files import files_of
from memory import MemoryStore

__all__ = ["ANSWERED_SUBTYPES", "Ignored", "from_app_mention", "from_message", "ignored_reason"]

ANSWERED_SUBTYPES = frozenset({"thread_broadcast", "file_share"})
"""Message subtypes written by a person; every other subtype (edits, deletions, joins,
bot messages...) is ignored."""
_SUBTYPE_NAME = re.compile(r"[a-z_]{1,40}")


class Ignored(StrEnum):
    """Why a message event is deliberately not answered."""

    BOT = "bot"
    """Written by a bot (another app, or a bot message)."""
    OWN = "own_message"
    SUBTYPE = "subtype"
    """Not a new message by a person: an edit, a deletion, a join..."""
    MALFORMED = "malformed"
    """No author, timestamp or channel."""
    NOT_ADDRESSED = "not_addressed"
    """A channel message that neither mentions the bot nor follows up one of its threads."""


def ignored_reason(event: dict[str, Any], ignored: Ignored) -> str:
    """The log line's ``reason``: Slack's subtype name for :attr:`Ignored.SUBTYPE` (such as
    ``message_changed``), else the reason itself."""
    subtype = event.get("subtype")
    if ignored is Ignored.SUBTYPE and isinstance(subtype, str) and _SUBTYPE_NAME.fullmatch(subtype):
        return subtype
    return ignored.value


def _not_by_a_person(event: dict[str, Any], identity: BotIdentity) -> Ignored | None:
    user = event.get("user")
    if user and user == identity.user_id:
        return Ignored.OWN
    subtype = event.get("subtype")
    if event.get("bot_id") or event.get("bot_profile") or subtype == "bot_message":
        return Ignored.BOT
    if subtype is not None and subtype not in ANSWERED_SUBTYPES:
        return Ignored.SUBTYPE
    if not (user and event.get("ts") and event.get("channel")):
        return Ignored.MALFORMED
    return None


def _incoming(
    body: dict[str, Any],
    event: dict[str, Any],
    identity: BotIdentity,
    *,
    is_dm: bool,
    reply_in_thread: bool,
    starts_conversation: bool = False,
) -> IncomingMessage:
    return IncomingMessage(
        event_id=str(body.get("event_id") or f"{event['channel']}:{event['ts']}"),
        # The workspace the conversation lives in, not the writer's own: in a Slack Connect
        # channel each person's ``event.team`` differs, and the scope must not.
        team_id=str(body.get("team_id") or event.get("team") or ""),
        enterprise_id=identity.enterprise_id,
        channel_id=str(event["channel"]),
        user_id=str(event["user"]),
        text=str(event.get("text") or ""),
        ts=str(event["ts"]),
        thread_ts=event.get("thread_ts"),
        is_dm=is_dm,
        reply_in_thread=reply_in_thread,
        starts_conversation=starts_conversation,
        files=files_of(event),
    )


async def from_message(
    body: dict[str, Any], identity: BotIdentity, memory: MemoryStore
) -> IncomingMessage | Ignored:
    """A ``message`` event to answer: a DM, a mention, or a follow-up in a thread we're in.

    A DM is answered in the thread under it, as the agent experience shows a conversation
    (and streaming needs a thread); a top-level DM, or the first answered message of a DM
    thread (a new assistant thread), starts a conversation."""
    event = body.get("event") or {}
    if (ignored := _not_by_a_person(event, identity)) is not None:
        return ignored
    thread_ts = event.get("thread_ts")
    if event.get("channel_type") == "im":
        new = thread_ts is None or not await memory.answered_in_thread(event["channel"], thread_ts)
        return _incoming(
            body, event, identity, is_dm=True, reply_in_thread=True, starts_conversation=new
        )
    mentioned = identity.mention in str(event.get("text") or "")
    if mentioned or (thread_ts and await memory.answered_in_thread(event["channel"], thread_ts)):
        return _incoming(body, event, identity, is_dm=False, reply_in_thread=True)
    return Ignored.NOT_ADDRESSED


def from_app_mention(body: dict[str, Any], identity: BotIdentity) -> IncomingMessage | Ignored:
    """An ``app_mention`` event: always answered in a thread under the mention."""
    event = body.get("event") or {}
    if (ignored := _not_by_a_person(event, identity)) is not None:
        return ignored
    return _incoming(body, event, identity, is_dm=False, reply_in_thread=True)
