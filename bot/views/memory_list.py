"""``/memory``: what the bot remembers about one person in one conversation, as blocks.

Each remembered item (a rated exchange, or a wisdom note) is one section with a "Forget"
button whose value names the item (``episode:12``, ``wisdom:3``); the store checks that the
person clicking owns it, so a forged value erases nothing of anyone else's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.views.blocks import Block, button
from bot.views.limits import SECTION_TEXT_LIMIT, clip
from memory import Episode, EpisodeStatus, WisdomNote
from memory.text import shorten

__all__ = [
    "EMPTY_TEXT",
    "FORGET_ITEM_ACTION_ID",
    "MAX_LISTED_ITEMS",
    "ItemKind",
    "ItemRef",
    "episode_section",
    "memory_list_blocks",
    "more_items_context",
    "note_section",
]

FORGET_ITEM_ACTION_ID = "memory_forget_item"
MAX_LISTED_ITEMS = 40
"""Items in one ``/memory`` message: with the header and notes, well under 100 blocks."""
QUESTION_CHARS = 200
ANSWER_CHARS = 300
LESSON_CHARS = 400
REASON_CHARS = 300
NOTE_CHARS = 600

EMPTY_TEXT = (
    "I don't remember anything about you in this conversation yet: "
    "react 👍 or 👎 to my answers (or use the buttons under them) to teach me."
)


class ItemKind(StrEnum):
    EPISODE = "episode"
    WISDOM = "wisdom"


@dataclass(frozen=True)
class ItemRef:
    """Which remembered item a "Forget" button is about."""

    kind: ItemKind
    id: int

    @property
    def value(self) -> str:
        return f"{self.kind.value}:{self.id}"

    @classmethod
    def parse(cls, value: object) -> ItemRef | None:
        """The item a button value names, or None when the value is not one of ours (only
        ASCII digits, and few enough to be a SQLite row id)."""
        match = _ITEM_REF.fullmatch(value) if isinstance(value, str) else None
        if match is None:
            return None
        return cls(kind=ItemKind(match["kind"]), id=int(match["id"]))


_ITEM_REF = re.compile(
    rf"(?P<kind>{'|'.join(re.escape(kind.value) for kind in ItemKind)}):(?P<id>[1-9][0-9]{{0,17}})",
    re.ASCII,
)
"""A button value: an item kind and a positive row id below 10**18 (SQLite's are 64-bit)."""


def _forget_button(ref: ItemRef) -> Block:
    return button(
        FORGET_ITEM_ACTION_ID,
        {"type": "plain_text", "text": "Forget"},
        ref.value,
        accessibility_label="Forget this item",
    )


def _outcome(episode: Episode) -> str:
    return "👍 Helpful" if episode.status is EpisodeStatus.SUCCESS else "👎 Not helpful"


def episode_section(episode: Episode) -> Block:
    """One rated exchange: outcome, question, answer, and for a 👎 the reason the person gave
    and the lesson drawn from it."""
    lines = [
        f"*{_outcome(episode)}* · {episode.created_at:%Y-%m-%d}",
        f"*You asked:* {shorten(episode.question, QUESTION_CHARS)}",
        f"*I answered:* {shorten(episode.answer, ANSWER_CHARS)}",
    ]
    if episode.reason and episode.status is EpisodeStatus.FAILURE:
        lines.append(f"*You said:* {shorten(episode.reason, REASON_CHARS)}")
    if episode.lesson:
        lines.append(f"*Lesson:* {shorten(episode.lesson, LESSON_CHARS)}")
    return {
        "type": "section",
        "text": {"type": "mrkdwn", "text": clip("\n".join(lines), SECTION_TEXT_LIMIT)},
        "accessory": _forget_button(ItemRef(kind=ItemKind.EPISODE, id=episode.id)),
    }


def note_section(note: WisdomNote) -> Block:
    """One wisdom note consolidated from the person's rated exchanges."""
    text = f"*📝 Note* (from {note.episode_count} rated answers)\n{shorten(note.text, NOTE_CHARS)}"
    return {
        "type": "section",
        "text": {"type": "mrkdwn", "text": clip(text, SECTION_TEXT_LIMIT)},
        "accessory": _forget_button(ItemRef(kind=ItemKind.WISDOM, id=note.id)),
    }


def more_items_context(hidden: int) -> Block:
    return {
        "type": "context",
        "elements": [{"type": "mrkdwn", "text": f"…and {hidden} more not shown here."}],
    }


def memory_list_blocks(
    episodes: Sequence[Episode],
    notes: Sequence[WisdomNote],
    *,
    max_items: int = MAX_LISTED_ITEMS,
) -> list[Block]:
    """The ephemeral ``/memory`` message: notes first, then rated answers, newest first."""
    blocks: list[Block] = [
        {
            "type": "header",
            "text": {"type": "plain_text", "text": "What I remember about you here"},
        }
    ]
    if not episodes and not notes:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": EMPTY_TEXT}})
        return blocks
    items = [*map(note_section, notes), *map(episode_section, episodes)]
    blocks += items[:max_items]
    if len(items) > max_items:
        blocks.append(more_items_context(len(items) - max_items))
    blocks.append(
        {
            "type": "context",
            "elements": [
                {
                    "type": "mrkdwn",
                    "text": "Only you can see this. *Forget* erases one item; `/forget` erases "
                    "everything. The Home tab shows all your conversations.",
                }
            ],
        }
    )
    return blocks
