"""Server-sent events parsing, including payloads split across any line layout."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

from hypothesis import given
from hypothesis import strategies as st

from bot.llm.sse import iter_sse_data


async def lines_of(lines: Iterable[str]) -> AsyncIterator[str]:
    for line in lines:
        yield line


async def parse(lines: Iterable[str]) -> list[str]:
    return [data async for data in iter_sse_data(lines_of(lines))]


async def test_events_are_separated_by_blank_lines() -> None:
    assert await parse(["data: one", "", "data: two", ""]) == ["one", "two"]


async def test_multi_line_data_is_joined_with_newlines() -> None:
    assert await parse(["data: first", "data:second", ""]) == ["first\nsecond"]


async def test_comments_and_other_fields_are_ignored() -> None:
    lines = [": keep-alive", "event: message", "id: 7", "retry: 100", "data: x", ""]

    assert await parse(lines) == ["x"]


async def test_carriage_returns_are_stripped() -> None:
    assert await parse(["data: x\r", "\r"]) == ["x"]


async def test_an_unterminated_last_event_is_dropped() -> None:
    assert await parse(["data: complete", "", "data: cut off"]) == ["complete"]


async def test_an_event_without_data_yields_nothing() -> None:
    assert await parse(["event: ping", "", "data: x", ""]) == ["x"]


payloads = st.lists(
    st.text(alphabet=st.characters(exclude_characters="\r\n"), min_size=1), max_size=8
)


@given(payloads=payloads)
async def test_any_payloads_survive_encoding_and_parsing(payloads: list[str]) -> None:
    lines: list[str] = []
    for payload in payloads:
        lines += [f"data: {payload}", ""]

    assert await parse(lines) == payloads
