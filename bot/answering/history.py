"""Turning a Slack thread into the conversation the model sees."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from bot.agent.messages import Message
from bot.slack.streaming import THINKING_PLACEHOLDER
from memory.text import estimate_tokens

__all__ = [
    "BotIdentity",
    "authors",
    "strip_mention",
    "thread_history",
    "without_erased",
]


class BotIdentity(BaseModel):
    """Who the bot is in its workspace (from ``auth.test``)."""

    user_id: str
    bot_id: str | None
    team_id: str
    enterprise_id: str = ""
    """The Enterprise Grid org it answers in, in OAuth mode (the scopes' org); empty in
    single-token mode, whose scopes stay those of one workspace as they always were."""

    @property
    def mention(self) -> str:
        return f"<@{self.user_id}>"

    def wrote(self, message: dict[str, Any]) -> bool:
        return message.get("user") == self.user_id or (
            self.bot_id is not None and message.get("bot_id") == self.bot_id
        )


def strip_mention(text: str, identity: BotIdentity) -> str:
    return text.replace(identity.mention, "").strip()


def _ts(message: dict[str, Any]) -> float:
    return float(message.get("ts", "0"))


def authors(messages: Iterable[dict[str, Any]], identity: BotIdentity) -> set[str]:
    """The people (not the bot) who wrote these messages."""
    return {
        str(message["user"])
        for message in messages
        if message.get("user") and not identity.wrote(message)
    }


def without_erased(
    messages: Iterable[dict[str, Any]],
    *,
    identity: BotIdentity,
    forgotten: Mapping[str, datetime],
    erased_replies: Collection[str],
) -> list[dict[str, Any]]:
    """The messages, oldest first, minus what people said before they were forgotten
    (``forgotten``: person -> when) and the bot's replies to them, whenever posted: the
    replies the store knows answered someone forgotten (``erased_replies``, their ts), and
    any bot message right after an erased message."""
    kept: list[dict[str, Any]] = []
    answering_erased = False
    for message in sorted(messages, key=_ts):
        if identity.wrote(message):
            if not answering_erased and str(message.get("ts")) not in erased_replies:
                kept.append(message)
            continue
        erased_at = forgotten.get(str(message.get("user")))
        answering_erased = erased_at is not None and _ts(message) < erased_at.timestamp()
        if not answering_erased:
            kept.append(message)
    return kept


def thread_history(
    messages: Iterable[dict[str, Any]],
    *,
    identity: BotIdentity,
    requester_id: str,
    before_ts: str,
    token_budget: int,
    forgotten: Mapping[str, datetime],
    erased_replies: Collection[str],
) -> list[Message]:
    """The thread's messages before ``before_ts``, newest kept first within ``token_budget``,
    without what :func:`without_erased` leaves out.

    The bot's own messages become assistant turns; other people's are prefixed with their
    mention so the model can tell voices apart."""
    visible = without_erased(
        messages, identity=identity, forgotten=forgotten, erased_replies=erased_replies
    )
    earlier = [m for m in visible if _ts(m) < float(before_ts)]
    kept: list[Message] = []
    spent = 0
    for message in reversed(earlier):
        turn = _as_turn(message, identity=identity, requester_id=requester_id)
        if turn is None:
            continue
        cost = estimate_tokens(turn.content)
        if spent + cost > token_budget:
            break
        spent += cost
        kept.append(turn)
    kept.reverse()
    return kept


def _as_turn(
    message: dict[str, Any], *, identity: BotIdentity, requester_id: str
) -> Message | None:
    text = str(message.get("text") or "").strip()
    if not text or text == THINKING_PLACEHOLDER:
        return None
    if identity.wrote(message):
        return Message.assistant(text)
    text = strip_mention(text, identity)
    author = message.get("user")
    if author and author != requester_id:
        text = f"<@{author}>: {text}"
    return Message.user(text)
