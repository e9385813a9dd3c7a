"""A click on an answer's feedback buttons: the same vote as a 👍/👎 reaction.

The click is read by :func:`bot.listeners.votes.button_vote` (``reaction="button"``) and
committed by :func:`bot.listeners.votes.commit_vote`, exactly like a reaction, before this
listener acknowledges it; a later click replaces the earlier one.
"""

from __future__ import annotations

from slack_bolt.context.ack.async_ack import AsyncAck

__all__ = ["feedback_vote_callback"]


async def feedback_vote_callback(ack: AsyncAck) -> None:
    """Acknowledge the click: its vote is already stored."""
    await ack()
