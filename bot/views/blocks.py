"""The Block Kit pieces several views are built of: a text object and a button."""

from __future__ import annotations

from typing import Any

__all__ = ["Block", "button", "plain_text"]

Block = dict[str, Any]
"""A block, an element or a composition object, as the JSON Slack takes."""


def plain_text(text: str) -> Block:
    """A ``plain_text`` object in which Slack shows ``:emoji:`` codes as emoji."""
    return {"type": "plain_text", "text": text, "emoji": True}


def button(action_id: str, text: Block, value: str, **optional: Any) -> Block:
    """A button element; ``optional`` adds its other fields (``style``, ``confirm``,
    ``accessibility_label``)."""
    return {"type": "button", "action_id": action_id, "text": text, "value": value, **optional}
