"""The text sink: what the person sees is exactly what the result says they saw."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.agent.streaming import TextSink


class Shown:
    def __init__(self) -> None:
        self.text = ""

    async def __call__(self, piece: str) -> None:
        self.text += piece


async def stream(sink: TextSink, text: str) -> None:
    for piece in text.split(" "):
        await sink.delta(piece + " ")


async def test_without_a_consumer_the_answer_is_returned_as_is() -> None:
    sink = TextSink(None, hold_back=0)
    await sink.delta("ignored")

    assert await sink.finish("The answer.") == "The answer."


async def test_a_streamed_answer_is_not_shown_twice() -> None:
    shown = Shown()
    sink = TextSink(shown, hold_back=4)
    await sink.delta("The ")
    await sink.delta("answer.")

    assert await sink.finish("The answer.") == shown.text == "The answer."


async def test_held_back_text_of_a_tool_reply_is_dropped() -> None:
    shown = Shown()
    sink = TextSink(shown, hold_back=50)
    await stream(sink, "One moment.")
    sink.end_reply()

    assert await sink.finish("Done.") == shown.text == "Done."


async def test_an_extension_of_the_last_shown_reply_only_adds_the_rest() -> None:
    shown = Shown()
    sink = TextSink(shown, hold_back=3)
    await sink.delta("Partial findings.")
    sink.end_reply()

    result = await sink.finish("Partial findings.\n\nPlease narrow it down.")

    assert result == shown.text == "Partial findings.\n\nPlease narrow it down."


async def test_a_new_reply_after_a_shown_one_starts_a_paragraph() -> None:
    shown = Shown()
    sink = TextSink(shown, hold_back=3)
    await sink.delta("Looking.")
    sink.end_reply()
    await sink.delta("Found it.")

    assert await sink.finish("Found it.") == shown.text == "Looking.\n\nFound it."


replies = st.lists(st.lists(st.text(min_size=1, max_size=12), max_size=5), max_size=4)


@settings(max_examples=200, deadline=None)
@given(
    preambles=replies,
    answer=st.lists(st.text(min_size=1, max_size=12), max_size=6),
    hold_back=st.integers(min_value=0, max_value=40),
)
def test_what_is_shown_is_what_finish_returns_and_ends_with_the_answer(
    preambles: list[list[str]], answer: list[str], hold_back: int
) -> None:
    async def play() -> tuple[str, str]:
        shown = Shown()
        sink = TextSink(shown, hold_back=hold_back)
        for chunks in preambles:
            for chunk in chunks:
                await sink.delta(chunk)
            sink.end_reply()
        for chunk in answer:
            await sink.delta(chunk)
        return await sink.finish("".join(answer)), shown.text

    result, shown = asyncio.run(play())

    assert result == shown
    assert shown.endswith("".join(answer))
    if all(len("".join(chunks)) < hold_back for chunks in preambles):
        assert shown == "".join(answer)
