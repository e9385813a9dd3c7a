"""The line questions wait in when more arrive than the bot works on at once.

At most ``slots`` answers are worked on at once (``MAX_CONCURRENT_ANSWERS``); the others
wait, and each is told how many questions are ahead of it. Questions are taken in the
order they arrived, except that a person's question waits behind everyone else's that
have fewer of their own asker's questions before them: its *round* is how many of its
asker's questions were running or waiting when it arrived. So a person who sends twenty
questions at once gets one answered per round, and someone asking once after them is
not kept waiting behind all twenty.

A question is declined only past a bound the operator sets: when ``max_waiting``
questions already wait (``ANSWER_QUEUE_LIMIT``), or once it waited ``max_wait_seconds``
(``ANSWER_WAIT_SECONDS``). Either way the person is told, in one sentence, when to ask
again: the time the line ahead would take at the pace answers have been finishing.
"""

from __future__ import annotations

import asyncio
import itertools
import math
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

__all__ = ["Declined", "WaitingLine"]

OnWait = Callable[[int], Awaitable[None]]
"""Told, once, how many questions wait ahead of one that has to wait."""

PACE_WEIGHT = 0.2
"""How much the latest answer's duration moves the running average of answer durations."""


class Declined(Exception):
    """A question the line will not take, with the sentence to tell its asker."""

    def __init__(self, notice: str) -> None:
        super().__init__(notice)
        self.notice = notice


@dataclass(order=True)
class _Waiting:
    round: int
    arrival: int
    person: str = field(compare=False)
    granted: asyncio.Future[None] = field(compare=False)


class WaitingLine:
    """A fair line in front of ``slots`` answers at once, bounded as above."""

    def __init__(self, slots: int, *, max_waiting: int, max_wait_seconds: float) -> None:
        if slots < 1:
            raise ValueError("slots must be at least 1")
        self._free = slots
        self._slots = slots
        self._max_waiting = max_waiting
        self._max_wait_seconds = max_wait_seconds
        self._waiting: list[_Waiting] = []
        self._arrivals = itertools.count()
        self._per_person: Counter[str] = Counter()
        """Each person's questions running or waiting."""
        self._answer_seconds = max_wait_seconds / 4
        """A running average of how long an answer holds its slot (a guess until one ends)."""

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @asynccontextmanager
    async def turn(self, person: str, *, on_wait: OnWait) -> AsyncIterator[None]:
        """Wait for a slot, then hold it for the body; :class:`Declined` past the bound."""
        await self._take(person, on_wait)
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            yield
        finally:
            held = loop.time() - started
            self._answer_seconds += PACE_WEIGHT * (held - self._answer_seconds)
            self._release(person)

    async def _take(self, person: str, on_wait: OnWait) -> None:
        if self._free and not self._waiting:
            self._free -= 1
            self._per_person[person] += 1
            return
        if len(self._waiting) >= self._max_waiting:
            raise Declined(
                f"Too many questions are waiting for me right now ({len(self._waiting)}); "
                f"please ask again {self._ask_again()}."
            )
        entry = _Waiting(
            round=self._per_person[person],
            arrival=next(self._arrivals),
            person=person,
            granted=asyncio.get_running_loop().create_future(),
        )
        self._per_person[person] += 1
        self._waiting.append(entry)
        try:
            await on_wait(sum(1 for other in self._waiting if other < entry))
            async with asyncio.timeout(self._max_wait_seconds):
                await asyncio.shield(entry.granted)
        except BaseException as error:
            if entry.granted.done():  # its turn came as it gave up: pass the slot on
                self._release(person)
            else:
                self._waiting.remove(entry)
                self._forget_one(person)
            if isinstance(error, TimeoutError):
                raise Declined(
                    f"So many people are asking at once that I couldn't get to your question "
                    f"within {_duration(self._max_wait_seconds)}; please ask again "
                    f"{self._ask_again()}."
                ) from None
            raise

    def _release(self, person: str) -> None:
        self._forget_one(person)
        if self._waiting:
            best = min(self._waiting)
            self._waiting.remove(best)
            best.granted.set_result(None)
        else:
            self._free += 1

    def _forget_one(self, person: str) -> None:
        self._per_person[person] -= 1
        if self._per_person[person] <= 0:
            del self._per_person[person]

    def _ask_again(self) -> str:
        """When the line now waiting would be through, at the pace answers have finished."""
        seconds = (len(self._waiting) + 1) * self._answer_seconds / self._slots
        return f"in about {_duration(seconds)}"


def _duration(seconds: float) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return "a minute" if minutes == 1 else f"{minutes} minutes"
