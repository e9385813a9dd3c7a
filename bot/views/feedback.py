"""Feedback buttons under an answer: a vote without an emoji.

Slack's own thumbs (a ``feedback_buttons`` element in a ``context_actions`` block) come
first; where Slack refuses them, two plain buttons in an ``actions`` block do the same.
Both send ``up`` or ``down`` as the value, and :func:`vote_for` reads it back, so a click
becomes the same :class:`memory.VoteEvent` as a reaction.
"""

from __future__ import annotations

import re

from bot.views.blocks import Block, button, plain_text
from memory import Vote

__all__ = [
    "FEEDBACK_ACTION_ID",
    "FEEDBACK_ACTION_PATTERN",
    "FEEDBACK_FOOTERS",
    "fallback_feedback_block",
    "feedback_block",
    "vote_for",
]

FEEDBACK_ACTION_ID = "answer_feedback"
FEEDBACK_ACTION_PATTERN = re.compile(rf"^{FEEDBACK_ACTION_ID}(:(up|down))?$")
"""Matches the feedback element and both fallback buttons (which need distinct ids)."""


def feedback_block() -> Block:
    """Slack's thumbs up / thumbs down, shown in the answer's context actions."""
    return {
        "type": "context_actions",
        "elements": [
            {
                "type": "feedback_buttons",
                "action_id": FEEDBACK_ACTION_ID,
                "positive_button": {
                    "text": plain_text("👍"),
                    "accessibility_label": "This answer was helpful",
                    "value": Vote.UP.value,
                },
                "negative_button": {
                    "text": plain_text("👎"),
                    "accessibility_label": "This answer was not helpful",
                    "value": Vote.DOWN.value,
                },
            }
        ],
    }


def fallback_feedback_block() -> Block:
    """Two ordinary buttons, for where ``context_actions`` is not accepted."""
    return {
        "type": "actions",
        "elements": [
            button(f"{FEEDBACK_ACTION_ID}:{vote.value}", plain_text(label), vote.value)
            for vote, label in ((Vote.UP, "👍 Helpful"), (Vote.DOWN, "👎 Not helpful"))
        ],
    }


FEEDBACK_FOOTERS: tuple[list[Block], ...] = ([feedback_block()], [fallback_feedback_block()])
"""What to put under an answer's last part, in order of preference."""


def vote_for(value: str | None) -> Vote | None:
    """The vote a feedback button's value stands for; None for anything else."""
    try:
        return Vote(value)
    except ValueError:
        return None
