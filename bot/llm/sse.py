"""Server-sent events: the ``data`` payloads of an ``text/event-stream`` body, one per event.

Follows the WHATWG event-stream parsing rules that matter for LLM servers: ``data:`` lines of
one event are joined with newlines, a blank line ends the event, comment lines (``:``) and
other fields (``event``, ``id``, ``retry``) are ignored, and an unterminated event at the end
of the stream is dropped."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

__all__ = ["iter_sse_data"]


async def iter_sse_data(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    """Yield each event's data from ``lines`` (already split, e.g. ``Response.aiter_lines()``)."""
    data: list[str] = []
    async for raw_line in lines:
        line = raw_line.rstrip("\r\n")
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value.removeprefix(" "))
