"""Asking why a person 👎'd an answer: a private one-line note with a button, and the small
form (a modal) the button opens.

The button's value and the form's ``private_metadata`` name the answer's episode as a
*Forget* button does (``episode:12``, :class:`bot.views.memory_list.ItemRef`); the store
keeps a reason only from the person who asked, so a forged value changes nothing of anyone
else's.
"""

from __future__ import annotations

from typing import Any

from bot.assistant.reasons import MAX_REASON_CHARS
from bot.views.blocks import Block, button, plain_text
from bot.views.memory_list import ItemKind, ItemRef

__all__ = [
    "ASK_TEXT",
    "REASON_BLOCK_ID",
    "REASON_INPUT_ACTION_ID",
    "REASON_OPEN_ACTION_ID",
    "REASON_VIEW_CALLBACK_ID",
    "reason_form",
    "reason_prompt",
    "submitted_reason",
]

REASON_OPEN_ACTION_ID = "reason_open"
REASON_VIEW_CALLBACK_ID = "reason_form"
REASON_BLOCK_ID = "reason"
REASON_INPUT_ACTION_ID = "reason_text"
ASK_TEXT = "Sorry that didn't help. What went wrong?"


def _ref(episode_id: int) -> str:
    return ItemRef(kind=ItemKind.EPISODE, id=episode_id).value


def reason_prompt(episode_id: int) -> list[Block]:
    """The private note after a 👎: one line, and a button that opens :func:`reason_form`."""
    return [
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": ASK_TEXT},
            "accessory": button(
                REASON_OPEN_ACTION_ID,
                plain_text("Tell me why"),
                _ref(episode_id),
                accessibility_label="Say what was wrong with the answer",
            ),
        }
    ]


def reason_form(episode_id: int) -> dict[str, Any]:
    """The modal asking what went wrong with the answer of ``episode_id``."""
    return {
        "type": "modal",
        "callback_id": REASON_VIEW_CALLBACK_ID,
        "private_metadata": _ref(episode_id),
        "title": plain_text("What went wrong?"),
        "submit": plain_text("Send"),
        "close": plain_text("Cancel"),
        "blocks": [
            {
                "type": "input",
                "block_id": REASON_BLOCK_ID,
                "label": plain_text("What was wrong with my answer?"),
                "element": {
                    "type": "plain_text_input",
                    "action_id": REASON_INPUT_ACTION_ID,
                    "multiline": True,
                    "max_length": MAX_REASON_CHARS,
                    "placeholder": plain_text("e.g. it deleted my uncommitted changes"),
                },
            }
        ],
    }


def submitted_reason(view: object) -> tuple[int, str] | None:
    """The episode and the text of a submitted :func:`reason_form` (``view`` as Slack sends
    it in ``view_submission``); None when it is not one of ours or holds no text."""
    if not isinstance(view, dict):
        return None
    ref = ItemRef.parse(view.get("private_metadata"))
    state = view.get("state")
    values = state.get("values") if isinstance(state, dict) else None
    block = values.get(REASON_BLOCK_ID) if isinstance(values, dict) else None
    field = block.get(REASON_INPUT_ACTION_ID) if isinstance(block, dict) else None
    text = field.get("value") if isinstance(field, dict) else None
    if ref is None or ref.kind is not ItemKind.EPISODE or not isinstance(text, str):
        return None
    if not text.strip():
        return None
    return ref.id, text
