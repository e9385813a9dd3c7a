"""Bounding text before it goes into a prompt, a note or a Slack surface: the one helper."""

from __future__ import annotations

ELLIPSIS = "…"
CHARS_PER_TOKEN = 4
"""A rough average for English text; enough to keep prompts within a budget."""


def shorten(text: str, max_chars: int, *, keep_lines: bool = False) -> str:
    """``text`` cut to at most ``max_chars``, ending in "…" (counted) when cut: on one line,
    whitespace collapsed, cut at a word (inside a single word longer than the limit); with
    ``keep_lines``, as written (a note, a Block Kit section), cut exactly at the limit."""
    if max_chars < len(ELLIPSIS) + 1:
        raise ValueError("max_chars leaves no room for text")
    line = text if keep_lines else " ".join(text.split())
    if len(line) <= max_chars:
        return line
    cut = line[: max_chars - len(ELLIPSIS)]
    if keep_lines:
        return cut.rstrip() + ELLIPSIS
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + ELLIPSIS


def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` costs a model (at least one)."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN))
