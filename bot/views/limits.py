"""Slack's Block Kit limits and a way to stay within them.

Slack rejects a whole message or view (``invalid_blocks``) when one field is too long, so
the builders in :mod:`bot.views` cut people's text with :func:`clip` before it goes into a
block.
The tests check every payload against them with :mod:`tests.support.block_kit`.
The numbers are Slack's documented maximums (docs.slack.dev/reference/block-kit).
"""

from __future__ import annotations

from memory.text import shorten

__all__ = [
    "ACTION_ID_LIMIT",
    "BLOCKS_PER_SURFACE",
    "BUTTON_TEXT_LIMIT",
    "BUTTON_VALUE_LIMIT",
    "HEADER_TEXT_LIMIT",
    "SECTION_TEXT_LIMIT",
    "clip",
]

BLOCKS_PER_SURFACE = 100
"""Blocks in one message, modal or Home tab."""
SECTION_TEXT_LIMIT = 3000
HEADER_TEXT_LIMIT = 150
CONTEXT_ELEMENTS_LIMIT = 10
ACTIONS_ELEMENTS_LIMIT = 25
CONTEXT_ACTIONS_ELEMENTS_LIMIT = 5
BUTTON_TEXT_LIMIT = 75
BUTTON_VALUE_LIMIT = 2000
ACTION_ID_LIMIT = 255
BLOCK_ID_LIMIT = 255
CONFIRM_TITLE_LIMIT = 100
CONFIRM_TEXT_LIMIT = 300
CONFIRM_BUTTON_LIMIT = 30
INPUT_LABEL_LIMIT = 2000
PLACEHOLDER_LIMIT = 150
TEXT_INPUT_LIMIT = 3000
"""The most a ``plain_text_input``'s ``max_length`` may allow."""
MODAL_TITLE_LIMIT = 24
"""A modal's title, and its submit and close buttons."""


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters (ending in "…" when cut), lines kept."""
    return shorten(text, limit, keep_lines=True)
