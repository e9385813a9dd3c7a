"""The App Home tab: everything the bot remembers about the person viewing it.

Grouped by conversation (a DM, or a channel), with a "Forget" button per item and one
"Forget everything" button that asks for confirmation first. The caller passes only the
viewer's own episodes and notes; this module never looks anything up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.views.blocks import Block, button
from bot.views.limits import BLOCKS_PER_SURFACE
from bot.views.memory_list import episode_section, more_items_context, note_section
from memory import ConversationKind, Episode, Scope, WisdomNote

__all__ = ["FORGET_EVERYTHING_ACTION_ID", "HOME_INTRO", "conversation_label", "home_view"]

FORGET_EVERYTHING_ACTION_ID = "memory_forget_everything"

HOME_INTRO = (
    "*Ask me anything* in a DM, or mention me in a channel; I answer in a thread.\n"
    "Rate my answers with 👍 or 👎 (a reaction or the buttons under them): I remember what "
    "worked for you, and what didn't, only in the conversation where you asked.\n"
    "`/memory` shows what I remember in a conversation; `/forget` erases all of it."
)
EMPTY_TEXT = "I don't remember anything about you yet."


def conversation_label(scope: Scope) -> str:
    """How a conversation is named in the Home tab (``<#C…>`` renders as the channel)."""
    if scope.kind is ConversationKind.DM:
        return "*Our direct messages*"
    return f"*In <#{scope.channel_id}>*"


def _forget_everything() -> Block:
    return {
        "type": "actions",
        "elements": [
            button(
                FORGET_EVERYTHING_ACTION_ID,
                {"type": "plain_text", "text": "Forget everything"},
                "all",
                style="danger",
                confirm={
                    "title": {"type": "plain_text", "text": "Forget everything?"},
                    "text": {
                        "type": "mrkdwn",
                        "text": "I will erase every rated answer, lesson and note I keep about "
                        "you, in every conversation. This cannot be undone.",
                    },
                    "confirm": {"type": "plain_text", "text": "Forget everything"},
                    "deny": {"type": "plain_text", "text": "Keep it"},
                    "style": "danger",
                },
            )
        ],
    }


def _grouped(episodes: Sequence[Episode], notes: Sequence[WisdomNote]) -> dict[Scope, list[Block]]:
    """Item sections per conversation: its notes first, then its rated answers, in the
    order given (the store lists the newest first)."""
    groups: dict[Scope, list[Block]] = {}
    for note in notes:
        groups.setdefault(note.scope, []).append(note_section(note))
    for episode in episodes:
        groups.setdefault(episode.scope, []).append(episode_section(episode))
    return groups


def home_view(episodes: Sequence[Episode], notes: Sequence[WisdomNote]) -> dict[str, Any]:
    """The Home tab view, within Slack's 100 blocks: items that do not fit are counted."""
    blocks: list[Block] = [
        {"type": "header", "text": {"type": "plain_text", "text": "What I remember about you"}},
        {"type": "section", "text": {"type": "mrkdwn", "text": HOME_INTRO}},
    ]
    groups = _grouped(episodes, notes)
    if not groups:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": EMPTY_TEXT}]})
        return {"type": "home", "blocks": blocks}
    blocks.append(_forget_everything())
    room = BLOCKS_PER_SURFACE - len(blocks) - 1  # one left for "…and N more"
    hidden = 0
    for scope, items in groups.items():
        if room < 3:  # a divider, the label and at least one item
            hidden += len(items)
            continue
        blocks.append({"type": "divider"})
        blocks.append(
            {"type": "section", "text": {"type": "mrkdwn", "text": conversation_label(scope)}}
        )
        shown = items[: room - 2]
        blocks += shown
        hidden += len(items) - len(shown)
        room -= 2 + len(shown)
    if hidden:
        blocks.append(more_items_context(hidden))
    return {"type": "home", "blocks": blocks}
