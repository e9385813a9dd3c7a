"""``/forget``: erase everything the bot keeps about the person, then say what went."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.listeners.deadline import STORE_WITHIN_SECONDS
from bot.listeners.services import Services
from memory import ForgetReport

__all__ = [
    "ERASING",
    "FORGET_FAILED",
    "LABELS",
    "forget_callback",
    "forget_summary",
]

log = logging.getLogger(__name__)

ERASING = "I'm erasing everything I keep about you; I'll confirm here when it's done."
FORGET_FAILED = "I couldn't finish erasing what I keep about you. Please run /forget again."


LABELS = {
    "episodes": ("exchange", "exchanges"),
    "ledger": ("message link", "message links"),
    "votes": ("vote", "votes"),
    "wisdom": ("note", "notes"),
    "questions": ("unanswered question", "unanswered questions"),
}
"""How the store's row kinds read to a person (unknown kinds keep their own name)."""


def _counted(kind: str, count: int) -> str:
    singular, plural = LABELS.get(kind, (kind.replace("_", " "), kind.replace("_", " ")))
    return f"{count} {singular if count == 1 else plural}"


def forget_summary(report: ForgetReport) -> str:
    """One ephemeral line listing what was erased, kind by kind."""
    if report.total == 0:
        return "I had nothing stored about you, so there was nothing to erase."
    erased = ", ".join(
        _counted(kind, count) for kind, count in sorted(report.counts.items()) if count
    )
    return f"Done: I erased everything I kept about you ({erased})."


async def _summary(erasing: asyncio.Future[ForgetReport]) -> str:
    try:
        return forget_summary(await erasing)
    except Exception:
        log.exception("/forget failed")
        return FORGET_FAILED


def forget_callback(services: Services) -> Callable[..., Awaitable[None]]:
    async def confirm(erasing: asyncio.Future[ForgetReport], respond: AsyncRespond) -> None:
        summary = await _summary(erasing)
        await respond(text=summary, response_type="ephemeral", replace_original=True)

    async def on_forget(ack: AsyncAck, respond: AsyncRespond, command: dict[str, Any]) -> None:
        """Acknowledge with what was erased, or, when erasing takes longer, with a line
        saying so, replaced by what was erased once it is done (in a task: Bolt answers
        Slack once this returns)."""
        erasing = asyncio.ensure_future(services.forgetting.forget_user(command["user_id"]))
        done, _ = await asyncio.wait({erasing}, timeout=STORE_WITHIN_SECONDS)
        if done:
            await ack(text=await _summary(erasing), response_type="ephemeral")
            return
        await ack(text=ERASING, response_type="ephemeral")
        services.inflight.start(confirm(erasing, respond))

    return on_forget
