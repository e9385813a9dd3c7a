"""Short-lived scratch facts of one conversation thread, kept in the process only.

While a thread goes on, the agent may note what it found out (a tool result, the name of
the service being discussed) so follow-up turns need not look it up again. Working memory
is never written to disk and never promoted to episodic memory: only exchanges a person
validated with a reaction become experience.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from memory.text import ELLIPSIS, shorten

__all__ = ["WorkingMemory"]


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class _Thread:
    last_used: datetime
    users: set[str]
    """Everyone whose turn read or wrote this thread's facts."""
    facts: OrderedDict[str, str] = field(default_factory=OrderedDict)
    """Key -> value, least recently used first."""


class WorkingMemory:
    """Per-thread key -> value facts, bounded and expiring.

    Bounds: at most ``max_threads`` threads (the least recently used one is dropped to
    make room), ``max_keys_per_thread`` facts per thread (likewise), keys and values
    shortened to ``max_key_chars`` / ``max_value_chars``. A thread nobody used for
    ``ttl`` is dropped. ``thread`` is any string naming the conversation, such as
    ``"C123:1712345678.000100"``; facts of one thread are never visible from another.

    Meant for one asyncio event loop (no locking); the clock is injectable for tests.
    """

    def __init__(
        self,
        *,
        ttl: timedelta = timedelta(hours=2),
        max_threads: int = 1000,
        max_keys_per_thread: int = 32,
        max_key_chars: int = 100,
        max_value_chars: int = 2000,
        clock: Callable[[], datetime] = _utc_now,
    ) -> None:
        if min(max_threads, max_keys_per_thread) < 1 or min(max_key_chars, max_value_chars) < 2:
            raise ValueError("working memory bounds must be positive")
        self._ttl = ttl
        self._max_threads = max_threads
        self._max_keys = max_keys_per_thread
        self._max_key_chars = max_key_chars
        self._max_value_chars = max_value_chars
        self._clock = clock
        self._threads: OrderedDict[str, _Thread] = OrderedDict()
        """Thread -> state, least recently used first."""

    def __len__(self) -> int:
        """How many threads hold facts now."""
        self._expire()
        return len(self._threads)

    def put(self, thread: str, key: str, value: str, *, user_id: str) -> None:
        """Remember ``key`` = ``value`` in ``thread``, during ``user_id``'s turn."""
        state = self._use(thread, user_id) or self._new_thread(thread, user_id)
        key = shorten(key, self._max_key_chars)
        state.facts[key] = _truncate(value, self._max_value_chars)
        state.facts.move_to_end(key)
        while len(state.facts) > self._max_keys:
            state.facts.popitem(last=False)

    def get(self, thread: str, key: str, *, user_id: str) -> str | None:
        """The value of ``key`` in ``thread``, or None when unknown or expired."""
        state = self._use(thread, user_id)
        key = shorten(key, self._max_key_chars)
        if state is None or key not in state.facts:
            return None
        state.facts.move_to_end(key)
        return state.facts[key]

    def facts(self, thread: str, *, user_id: str) -> dict[str, str]:
        """A copy of every fact of ``thread``, least recently used first."""
        state = self._use(thread, user_id)
        return dict(state.facts) if state else {}

    def forget_thread(self, thread: str) -> None:
        self._threads.pop(thread, None)

    def forget_user(self, user_id: str) -> int:
        """Drop every thread whose facts ``user_id``'s turns read or wrote; returns how many."""
        touched = [thread for thread, state in self._threads.items() if user_id in state.users]
        for thread in touched:
            del self._threads[thread]
        return len(touched)

    def _use(self, thread: str, user_id: str) -> _Thread | None:
        """The live state of ``thread``, marked as used now by ``user_id``; None if none."""
        self._expire()
        state = self._threads.get(thread)
        if state is None:
            return None
        self._threads.move_to_end(thread)
        state.users.add(user_id)
        state.last_used = self._clock()
        return state

    def _new_thread(self, thread: str, user_id: str) -> _Thread:
        state = self._threads[thread] = _Thread(last_used=self._clock(), users={user_id})
        while len(self._threads) > self._max_threads:
            self._threads.popitem(last=False)
        return state

    def _expire(self) -> None:
        """Drop threads unused for ``ttl``; they sit at the front, least recently used first."""
        deadline = self._clock() - self._ttl
        while self._threads:
            oldest = next(iter(self._threads.values()))
            if oldest.last_used > deadline:
                break
            self._threads.popitem(last=False)


def _truncate(value: str, max_chars: int) -> str:
    """``value`` with its line breaks, cut to ``max_chars`` (ending in "…" when cut)."""
    if len(value) <= max_chars:
        return value
    return value[: max_chars - len(ELLIPSIS)] + ELLIPSIS
