"""Deciding which Slack message events deserve an answer, and translating them."""

from __future__ import annotations

from typing import Any

from bot.answering import BotIdentity, IncomingMessage
from memory import MemoryStore

__all__ = ["ANSWERED_SUBTYPES", "from_app_mention", "from_message"]

ANSWERED_SUBTYPES = frozenset({"thread_broadcast", "file_share"})
"""Message subtypes written by a person; every other subtype (edits, deletions, joins,
bot messages...) is ignored."""


def _written_by_a_person(event: dict[str, Any], identity: BotIdentity) -> bool:
    subtype = event.get("subtype")
    if subtype is not None and subtype not in ANSWERED_SUBTYPES:
        return False
    if event.get("bot_id") or event.get("bot_profile"):
        return False
    user = event.get("user")
    return bool(user) and user != identity.user_id and bool(event.get("ts"))


def _incoming(
    body: dict[str, Any],
    event: dict[str, Any],
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
        channel_id=str(event["channel"]),
        user_id=str(event["user"]),
        text=str(event.get("text") or ""),
        ts=str(event["ts"]),
        thread_ts=event.get("thread_ts"),
        is_dm=is_dm,
        reply_in_thread=reply_in_thread,
        starts_conversation=starts_conversation,
    )


async def from_message(
    body: dict[str, Any], identity: BotIdentity, memory: MemoryStore
) -> IncomingMessage | None:
    """A ``message`` event to answer: a DM, a mention, or a follow-up in a thread we're in.

    A DM is answered in the thread under it, as the agent experience shows a conversation
    (and streaming needs a thread); a top-level DM, or the first answered message of a DM
    thread (a new assistant thread), starts a conversation."""
    event = body.get("event") or {}
    if not _written_by_a_person(event, identity) or not event.get("channel"):
        return None
    thread_ts = event.get("thread_ts")
    if event.get("channel_type") == "im":
        new = thread_ts is None or not await memory.answered_in_thread(event["channel"], thread_ts)
        return _incoming(body, event, is_dm=True, reply_in_thread=True, starts_conversation=new)
    mentioned = identity.mention in str(event.get("text") or "")
    if mentioned or (thread_ts and await memory.answered_in_thread(event["channel"], thread_ts)):
        return _incoming(body, event, is_dm=False, reply_in_thread=True)
    return None


def from_app_mention(body: dict[str, Any], identity: BotIdentity) -> IncomingMessage | None:
    """An ``app_mention`` event: always answered in a thread under the mention."""
    event = body.get("event") or {}
    if not _written_by_a_person(event, identity) or not event.get("channel"):
        return None
    return _incoming(body, event, is_dm=False, reply_in_thread=True)
