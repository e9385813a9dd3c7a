"""Cutting long answers into Slack-sized message parts without breaking code blocks.

Slack truncates or rejects very long messages, so every part stays within
:data:`PART_LIMIT` characters. A part that ends inside a ``` block gets a closing fence, and
the next part reopens the block with the same language, so each part renders on its own.
"""

from __future__ import annotations

import re

__all__ = ["PART_LIMIT", "CodeFence", "find_split", "open_fence_at", "split_message"]

PART_LIMIT = 3900
"""Characters per message part: under Slack's 4,000-character guidance for ``text``."""

_FENCE = re.compile(r"```([\w+#.-]*)")
CLOSING_FENCE = "\n```"


class CodeFence:
    """An open ``` block: what must be written to close it and to reopen it."""

    def __init__(self, language: str) -> None:
        self.language = language

    @property
    def reopen(self) -> str:
        return f"```{self.language}\n"

    @property
    def close(self) -> str:
        return CLOSING_FENCE

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CodeFence) and other.language == self.language

    def __repr__(self) -> str:
        return f"CodeFence({self.language!r})"


def open_fence_at(text: str) -> CodeFence | None:
    """The code block still open at the end of ``text``, if any.

    Fences toggle; an opening fence directly followed by a word and a line break names
    the block's language (```python).
    """
    fence: CodeFence | None = None
    for match in _FENCE.finditer(text):
        if fence is not None:
            fence = None
            continue
        language = match.group(1)
        after = text[match.end() : match.end() + 1]
        fence = CodeFence(language if language and after in ("\n", "") else "")
    return fence


def find_split(text: str, limit: int, *, min_pos: int = 0) -> int:
    """Where to cut ``text`` so that the head (plus a closing fence) fits in ``limit``.

    Prefers a paragraph break, then a line break, then a space in the second half of the
    allowed window; never cuts before ``min_pos`` (text already sent) nor inside a fence
    marker. Returns ``len(text)`` when everything fits.
    """
    if len(text) <= limit:
        return len(text)
    window_end = limit - len(CLOSING_FENCE)
    window_start = max(min_pos, window_end // 2)
    for separator in ("\n\n", "\n", " "):
        cut = text.rfind(separator, window_start, window_end)
        if cut > min_pos:
            return _outside_fence_marker(text, cut + len(separator), min_pos)
    return _outside_fence_marker(text, max(window_end, min_pos + 1), min_pos)


def _outside_fence_marker(text: str, cut: int, min_pos: int) -> int:
    """Move ``cut`` back so that it does not fall between the backticks of a fence."""
    while cut > min_pos + 1 and text[cut - 1] == "`" and cut < len(text) and text[cut] == "`":
        cut -= 1
    return cut


def split_message(text: str, limit: int = PART_LIMIT) -> list[str]:
    """Split ``text`` into parts of at most ``limit`` characters, code blocks intact."""
    parts: list[str] = []
    rest = text
    while len(rest) > limit:
        cut = find_split(rest, limit)
        head, rest = rest[:cut], rest[cut:]
        fence = open_fence_at(head)
        if fence is not None:
            head = head.rstrip("\n") + fence.close
            rest = fence.reopen + rest.lstrip("\n")
        parts.append(head.rstrip())
        rest = rest.lstrip("\n") if fence is None else rest
    if rest.strip() or not parts:
        parts.append(rest)
    return parts
