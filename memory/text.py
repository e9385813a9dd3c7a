"""Bounding people's text before it goes into a prompt or a note."""

from __future__ import annotations

__all__ = ["ELLIPSIS", "shorten"]

ELLIPSIS = "…"


def shorten(text: str, max_chars: int) -> str:
    """``text`` on one line, whitespace collapsed, cut at a word to at most ``max_chars``.

    A cut text ends with "…" (counted in ``max_chars``); a single word longer than the
    limit is cut inside the word.
    """
    if max_chars < len(ELLIPSIS) + 1:
        raise ValueError("max_chars leaves no room for text")
    line = " ".join(text.split())
    if len(line) <= max_chars:
        return line
    cut = line[: max_chars - len(ELLIPSIS)]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + ELLIPSIS
