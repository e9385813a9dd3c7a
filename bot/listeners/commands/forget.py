"""``/forget``: erase everything the bot keeps about the person, then say what went."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck

from bot.listeners.services import Services
from memory import ForgetReport

__all__ = ["LABELS", "forget_callback", "forget_summary"]


LABELS = {
    "episodes": ("exchange", "exchanges"),
    "ledger": ("message link", "message links"),
    "votes": ("vote", "votes"),
    "claims": ("message receipt", "message receipts"),
    "wisdom": ("note", "notes"),
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


def forget_callback(services: Services) -> Callable[..., Awaitable[None]]:
    async def on_forget(ack: AsyncAck, command: dict[str, Any]) -> None:
        report = await services.forget_user(command["user_id"])
        await ack(text=forget_summary(report), response_type="ephemeral")

    return on_forget
