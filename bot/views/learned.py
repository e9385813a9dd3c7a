"""Learning a person can see: one context line under an answer naming the earlier answers
they rated (👍 or 👎) that it drew on, each a link to that answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from memory import EpisodeStatus

__all__ = ["LEARNED_TEXT", "RatedAnswer", "learned_from_block"]

LEARNED_TEXT = "Learned from your feedback on earlier answers."
"""The plain-text fallback of :func:`learned_from_block` (notifications)."""


class RatedAnswer(BaseModel):
    """An earlier answer to the same person, in the same conversation, and their vote."""

    status: EpisodeStatus
    permalink: str


def _mention(answer: RatedAnswer) -> str:
    if answer.status is EpisodeStatus.SUCCESS:
        return f"👍 <{answer.permalink}|an answer you found helpful>"
    return f"👎 <{answer.permalink}|an answer you marked unhelpful>"


def learned_from_block(answers: Sequence[RatedAnswer]) -> dict[str, Any]:
    """The context block: ``Learned from your feedback: 👍 <link> · 👎 <link>``."""
    text = "Learned from your feedback: " + " · ".join(map(_mention, answers))
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}
