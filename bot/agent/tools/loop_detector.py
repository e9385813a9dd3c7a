"""Stop the model repeating a call that already failed for a reason retrying can't fix.

The retry budget is per turn; the loop detector also remembers, per thread, the calls that
failed with a non-retryable class, so a follow-up turn in the same thread doesn't pay for
the same failure again. The app keeps one :class:`LoopMemory` for its lifetime.
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from bot.agent.tools.errors import ToolError

__all__ = ["LoopDetector", "LoopMemory", "LoopVerdict", "Verdict"]


class LoopMemory:
    """Failed non-retryable calls per thread, bounded in size and age.

    The least recently used threads go first; a failure older than ``ttl_seconds`` is
    forgotten, since whatever broke the tool may have been fixed since."""

    def __init__(
        self,
        *,
        max_threads: int = 1024,
        max_calls_per_thread: int = 64,
        ttl_seconds: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max_threads = max_threads
        self._max_calls = max_calls_per_thread
        self._ttl = ttl_seconds
        self._clock = clock
        self._threads: OrderedDict[str, OrderedDict[str, tuple[float, ToolError]]] = OrderedDict()

    def failure(self, thread: str, signature: str) -> ToolError | None:
        calls = self._threads.get(thread)
        if calls is None or signature not in calls:
            return None
        self._threads.move_to_end(thread)
        at, error = calls[signature]
        if self._clock() - at > self._ttl:
            del calls[signature]
            return None
        return error

    def remember(self, thread: str, signature: str, error: ToolError) -> None:
        calls = self._threads.setdefault(thread, OrderedDict())
        self._threads.move_to_end(thread)
        calls[signature] = (self._clock(), error)
        calls.move_to_end(signature)
        while len(calls) > self._max_calls:
            calls.popitem(last=False)
        while len(self._threads) > self._max_threads:
            self._threads.popitem(last=False)

    def forget(self, thread: str, signature: str) -> None:
        calls = self._threads.get(thread)
        if calls is not None:
            calls.pop(signature, None)

    def __len__(self) -> int:
        return sum(len(calls) for calls in self._threads.values())


class Verdict(Enum):
    ALLOW = "allow"
    REFUSE = "refuse"
    STOP = "stop"


@dataclass(frozen=True, slots=True)
class LoopVerdict:
    verdict: Verdict
    previous: ToolError | None = None


class LoopDetector:
    """One turn's view of a thread's memory: refuse a known-bad call once, then stop."""

    def __init__(self, memory: LoopMemory, thread: str) -> None:
        self._memory = memory
        self._thread = thread
        self._refusals: Counter[str] = Counter()

    def check(self, signature: str) -> LoopVerdict:
        previous = self._memory.failure(self._thread, signature)
        if previous is None:
            return LoopVerdict(Verdict.ALLOW)
        if self._refusals[signature] == 0:
            self._refusals[signature] += 1
            return LoopVerdict(Verdict.REFUSE, previous)
        return LoopVerdict(Verdict.STOP, previous)

    def record(self, signature: str, error: ToolError | None) -> None:
        """Remember a non-retryable failure; a success clears an older one."""
        if error is None:
            self._memory.forget(self._thread, signature)
        elif not error.retryable:
            self._memory.remember(self._thread, signature, error)
