"""Forwarding text to the person as it is produced, without showing a draft as the answer.

Text a model streams before deciding to call tools is progress ("Let me look that up"),
not the answer: the next text starts a new paragraph. When the final text begins with what
was just shown (the usual case) only the rest is sent, so nothing is shown twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

__all__ = ["OnText", "TextSink"]

OnText = Callable[[str], Awaitable[None]]

_PARAGRAPH = "\n\n"


class TextSink:
    def __init__(self, on_text: OnText | None) -> None:
        self._on_text = on_text
        self._shown = False
        self._segment = ""
        self._last_segment = ""
        self._break_pending = False

    async def delta(self, text: str) -> None:
        """Show a piece of the current model reply."""
        if not text:
            return
        if self._break_pending:
            self._break_pending = False
            await self._emit(_PARAGRAPH)
        self._segment += text
        await self._emit(text)

    def drop_reply(self) -> None:
        """The current model reply was empty (at most whitespace was shown): forget it."""
        self._segment = ""

    def end_reply(self) -> None:
        """The current model reply was not the answer (it called tools)."""
        if self._segment:
            self._last_segment = self._segment
            self._break_pending = True
        self._segment = ""

    async def finish(self, text: str) -> None:
        """Make sure the person has seen ``text`` as the answer."""
        shown_prefix = self._segment or (self._last_segment if self._break_pending else "")
        if shown_prefix and text.startswith(shown_prefix):
            rest = text[len(shown_prefix) :]
        else:
            rest = (_PARAGRAPH if self._shown else "") + text
        self._segment = self._last_segment = ""
        self._break_pending = False
        if rest:
            await self._emit(rest)

    async def _emit(self, text: str) -> None:
        if self._on_text is not None:
            self._shown = True
            await self._on_text(text)
