"""Short-lived scratch facts of one person in one conversation thread, kept in the process
(memory/README.md, *Working notes*)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from memory.text import shorten

_Owner = tuple[str, str]


@dataclass(frozen=True, slots=True)
class _Fact:
    value: str
    turn_started_at: datetime


@dataclass
class _Notes:
    last_used: datetime
    facts: OrderedDict[str, _Fact] = field(default_factory=OrderedDict)
    """Key -> fact, least recently used first."""


@dataclass(eq=False, repr=False, kw_only=True)
class WorkingMemory:
    """Per-person, per-thread key -> value facts, bounded (the least recently used set of
    notes, and fact in a set, make room) and dropped when nobody used them for ``ttl``;
    ``thread`` names the conversation (``"C123:1712345678.000100"``). A turn begun before the
    person was forgotten writes no note. For one asyncio event loop (no locking)."""

    ttl: timedelta = timedelta(hours=2)
    max_threads: int = 1000
    max_keys_per_thread: int = 32
    max_key_chars: int = 100
    max_value_chars: int = 2000
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    _notes: OrderedDict[_Owner, _Notes] = field(init=False, default_factory=OrderedDict)
    """(thread, person) -> notes, least recently used first."""
    _forgotten: dict[str, datetime] = field(init=False, default_factory=dict)
    """Person -> when they were last forgotten (kept for ``ttl``, longer than any turn)."""
    _forgotten_threads: dict[str, datetime] = field(init=False, default_factory=dict)
    """Thread prefix (a workspace) -> when its threads were forgotten (kept for ``ttl``)."""

    def __post_init__(self) -> None:
        if (
            min(self.max_threads, self.max_keys_per_thread) < 1
            or min(self.max_key_chars, self.max_value_chars) < 2
        ):
            raise ValueError("working memory bounds must be positive")

    def __len__(self) -> int:
        self._expire()
        return len(self._notes)

    def put(
        self,
        thread: str,
        key: str,
        value: str,
        *,
        user_id: str,
        started_at: datetime,
    ) -> bool:
        """Note ``key`` = ``value`` for ``user_id`` in ``thread``; False when the person
        was forgotten since the turn writing it began (``started_at``)."""
        self._expire()
        forgotten = self._forgotten.get(user_id)
        if (forgotten is not None and started_at <= forgotten) or any(
            thread.startswith(prefix) and started_at <= at
            for prefix, at in self._forgotten_threads.items()
        ):
            return False
        owner = (thread, user_id)
        notes = self._use(owner)
        if notes is None:
            notes = self._notes[owner] = _Notes(last_used=self.clock())
            while len(self._notes) > self.max_threads:
                self._notes.popitem(last=False)
        key = shorten(key, self.max_key_chars)
        notes.facts[key] = _Fact(
            shorten(value, self.max_value_chars, keep_lines=True), turn_started_at=started_at
        )
        notes.facts.move_to_end(key)
        while len(notes.facts) > self.max_keys_per_thread:
            notes.facts.popitem(last=False)
        return True

    def facts(
        self, thread: str, *, user_id: str, forgotten_at: datetime | None = None
    ) -> dict[str, str]:
        """``user_id``'s facts in ``thread``, least recently used first. ``forgotten_at`` is
        when the store says the person was last forgotten: a ``/forget`` handled by another
        process never reached these notes, so facts noted before it are dropped now."""
        notes = self._use((thread, user_id))
        if notes is None:
            return {}
        if forgotten_at is not None:
            noted_before = [
                key for key, fact in notes.facts.items() if fact.turn_started_at <= forgotten_at
            ]
            for key in noted_before:
                del notes.facts[key]
        return {key: fact.value for key, fact in notes.facts.items()}

    def forget_user(self, user_id: str) -> int:
        """Drop every note of ``user_id`` and fence off their turns in flight; how many sets."""
        self._expire()
        self._forgotten[user_id] = self.clock()
        return self._drop([owner for owner in self._notes if owner[1] == user_id])

    def forget_threads(self, prefix: str) -> int:
        """Drop the notes of every thread whose name starts with ``prefix`` (a workspace's)
        and fence off the turns in flight there; how many sets."""
        self._expire()
        self._forgotten_threads[prefix] = self.clock()
        return self._drop([owner for owner in self._notes if owner[0].startswith(prefix)])

    def _drop(self, owners: list[_Owner]) -> int:
        for owner in owners:
            del self._notes[owner]
        return len(owners)

    def _use(self, owner: _Owner) -> _Notes | None:
        """The live notes of ``owner``, marked as used now; None if none."""
        self._expire()
        notes = self._notes.get(owner)
        if notes is None:
            return None
        self._notes.move_to_end(owner)
        notes.last_used = self.clock()
        return notes

    def _expire(self) -> None:
        """Drop notes unused for ``ttl`` (they sit at the front) and old fences."""
        deadline = self.clock() - self.ttl
        while self._notes and next(iter(self._notes.values())).last_used <= deadline:
            self._notes.popitem(last=False)
        for fences in (self._forgotten, self._forgotten_threads):
            for name in [name for name, at in fences.items() if at <= deadline]:
                del fences[name]
