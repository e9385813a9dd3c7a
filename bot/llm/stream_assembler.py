"""Builds the whole :class:`Completion` out of a stream's ``chat.completion.chunk`` objects."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.agent.messages import Completion, ToolCall
from bot.llm.wire import ChatCompletionChunk, ChunkToolCall

__all__ = ["StreamAssembler"]


@dataclass
class _PartialToolCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class StreamAssembler:
    """Accumulates text, tool-call fragments and usage; :meth:`add` returns the new text."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._calls: dict[int, _PartialToolCall] = {}
        self._input_tokens = 0
        self._output_tokens = 0
        self.finished = False
        """Whether a choice carried a ``finish_reason``."""

    def add(self, chunk: ChatCompletionChunk) -> str:
        if chunk.usage is not None:
            self._input_tokens = chunk.usage.prompt_tokens or self._input_tokens
            self._output_tokens = chunk.usage.completion_tokens or self._output_tokens
        if not chunk.choices:
            return ""
        choice = chunk.choices[0]
        if choice.finish_reason is not None:
            self.finished = True
        for fragment in choice.delta.tool_calls or []:
            self._add_tool_call_fragment(fragment)
        text = choice.delta.content or ""
        if text:
            self._text.append(text)
        return text

    def _add_tool_call_fragment(self, fragment: ChunkToolCall) -> None:
        index = fragment.index if fragment.index is not None else self._index_without_one(fragment)
        call = self._calls.setdefault(index, _PartialToolCall())
        if fragment.id:
            call.id = fragment.id
        if fragment.function is not None:
            # The name comes whole, in a call's first fragment; some servers repeat it later.
            if fragment.function.name and not call.name:
                call.name = fragment.function.name
            if fragment.function.arguments:
                call.arguments.append(fragment.function.arguments)

    def _index_without_one(self, fragment: ChunkToolCall) -> int:
        """Some servers omit ``index``: a fragment with a new id starts a call, others continue."""
        known_ids = {call.id for call in self._calls.values()}
        if not self._calls or (fragment.id and fragment.id not in known_ids):
            return len(self._calls)
        return max(self._calls)

    def completion(self) -> Completion:
        return Completion(
            content="".join(self._text),
            tool_calls=[
                ToolCall(
                    id=call.id or f"call_{index}",
                    name=call.name,
                    arguments="".join(call.arguments) or "{}",
                )
                for index, call in sorted(self._calls.items())
            ],
            input_tokens=self._input_tokens,
            output_tokens=self._output_tokens,
        )
