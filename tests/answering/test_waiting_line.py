"""The waiting line on its own: who goes next, what each waiter is told, and the bounds."""

from __future__ import annotations

import asyncio

import pytest

from bot.answering import Declined, WaitingLine


class Line:
    """A line of one slot, with everyone who got through it and what each was told."""

    def __init__(self, **bounds: float) -> None:
        self.line = WaitingLine(1, **{"max_waiting": 10, "max_wait_seconds": 60, **bounds})
        self.served: list[str] = []
        self.told: dict[str, int] = {}
        self.release = asyncio.Event()

    async def ask(self, name: str, person: str) -> None:
        async def waiting(ahead: int) -> None:
            self.told[name] = ahead

        async with self.line.turn(person, on_wait=waiting):
            self.served.append(name)
            await self.release.wait()

    def start(self, name: str, person: str) -> asyncio.Task[None]:
        return asyncio.ensure_future(self.ask(name, person))


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_arrival_order_but_a_persons_second_question_waits_behind_others_first() -> None:
    line = Line()
    tasks = [line.start("alice 1", "alice")]
    await _settle()
    for name, person in [("bob 1", "bob"), ("bob 2", "bob"), ("carol 1", "carol")]:
        tasks.append(line.start(name, person))
        await _settle()

    line.release.set()
    await asyncio.gather(*tasks)

    assert line.served == ["alice 1", "bob 1", "carol 1", "bob 2"]
    assert line.told == {"bob 1": 0, "bob 2": 1, "carol 1": 1}


async def test_a_waiter_that_gives_up_leaves_its_place_to_the_next() -> None:
    line = Line()
    first = line.start("alice 1", "alice")
    await _settle()
    gone = line.start("bob 1", "bob")
    await _settle()
    later = line.start("carol 1", "carol")
    await _settle()

    gone.cancel()
    await _settle()
    line.release.set()
    await asyncio.gather(first, later)

    assert line.served == ["alice 1", "carol 1"]
    assert line.line.waiting == 0


async def test_past_the_queue_limit_a_question_is_declined_at_once() -> None:
    line = Line(max_waiting=1)
    first = line.start("alice 1", "alice")
    await _settle()
    waiting = line.start("bob 1", "bob")
    await _settle()

    with pytest.raises(Declined, match=r"^Too many questions are waiting for me right now \(1\)"):
        await line.ask("carol 1", "carol")
    line.release.set()
    await asyncio.gather(first, waiting)
    assert line.served == ["alice 1", "bob 1"]


async def test_past_the_waiting_time_a_question_is_declined_and_the_line_goes_on() -> None:
    line = Line(max_wait_seconds=0.05)
    first = line.start("alice 1", "alice")
    await _settle()

    with pytest.raises(Declined, match=r"couldn't get to your question within a minute"):
        await line.ask("bob 1", "bob")
    line.release.set()
    await first
    await line.ask("carol 1", "carol")  # the slot is free again
    assert line.served == ["alice 1", "carol 1"]
