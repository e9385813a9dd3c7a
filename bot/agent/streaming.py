"""Forwarding text to the person as it is produced, without showing a preamble as the answer.

A model may write a little text ("Let me look that up.") before deciding to call tools.
Each reply's first ``hold_back`` characters are therefore held back: a reply that turns
out to carry tool calls while still that short is never shown. A longer preamble has been
shown by then; it stays, and the answer starts a new paragraph after it.

Invariant: when ``on_text`` is given, what went through it is exactly the text
:meth:`TextSink.finish` returns, so the caller never has to reconcile the two.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.agent.decode import may_be_text_tool_call

__all__ = ["DEFAULT_HOLD_BACK", "OnText", "TextSink"]

OnText = Callable[[str], Awaitable[None]]

DEFAULT_HOLD_BACK = 160
_PARAGRAPH = "\n\n"


class TextSink:
    def __init__(self, on_text: OnText | None, *, hold_back: int = DEFAULT_HOLD_BACK) -> None:
        self._on_text = on_text
        self._hold_back = hold_back
        self._shown = ""
        self._held = ""
        self._segment = ""
        """What the current reply has shown so far."""
        self._last_segment = ""
        """The text of the last reply that showed anything (it ends ``_shown``)."""

    async def delta(self, text: str) -> None:
        """A piece of the current model reply."""
        if self._on_text is None or not text:
            return
        if not self._segment:
            self._held += text
            if len(self._held) < self._hold_back or may_be_text_tool_call(self._held):
                return
            text, self._held = self._held, ""
            if self._shown:
                await self._emit(_PARAGRAPH)
        self._segment += text
        self._last_segment = self._segment
        await self._emit(text)

    def end_reply(self) -> None:
        """The current reply is over and was not the answer (tool calls, or empty)."""
        self._held = ""
        self._segment = ""

    async def finish(self, answer: str) -> str:
        """Show the rest of ``answer``; return everything shown this turn (or the answer)."""
        if self._on_text is None:
            return answer
        if self._last_segment and answer.startswith(self._last_segment):
            rest = answer[len(self._last_segment) :]
        else:
            rest = (_PARAGRAPH if self._shown else "") + answer
        self._held = self._segment = self._last_segment = ""
        if rest:
            await self._emit(rest)
        return self._shown

    async def _emit(self, text: str) -> None:
        assert self._on_text is not None
        self._shown += text
        await self._on_text(text)
