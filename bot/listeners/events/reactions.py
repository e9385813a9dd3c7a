"""``reaction_added`` / ``reaction_removed``: votes on the bot's answers.

The vote is committed by :func:`bot.listeners.votes.commit_vote` before Bolt runs this
listener and acknowledges the event; what is left here is the acknowledgement itself.
"""

from __future__ import annotations

__all__ = ["reaction_callback"]


async def reaction_callback() -> None:
    """Bolt acknowledges the event once its middleware (the vote) is through."""
