"""One structured log line per handled event: kind, outcome, ids and timings, never text.

``async with observer.event("answer", channel=..., user=...) as event:`` opens a record that
the code doing the work can reach through :func:`current_event` (so the model, recall and
Slack call timings of the same event add up in it); ``event.outcome = ...`` says how it
ended. On exit the record is logged once, on the ``bot.events`` logger at INFO, and counted
in the :class:`BotMetrics`. An event deliberately left alone (another bot's message, an
edit) is one ``observer.ignored(kind, reason, ...)`` line.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from bot.observability.metrics import BotMetrics

__all__ = ["EVENT_LOGGER", "EventRecord", "Observer", "current_event", "timed"]

EVENT_LOGGER = "bot.events"
_log = logging.getLogger(EVENT_LOGGER)
_current: ContextVar[EventRecord | None] = ContextVar("bot_event", default=None)


@dataclass
class EventRecord:
    """What one handled event did. ``ids`` hold Slack ids only (event, team, channel, user)."""

    kind: str
    ids: dict[str, str]
    outcome: str = "ok"
    reason: str | None = None
    """Why an event was ignored or refused, as a fixed word (never anything a person wrote)."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds spent per phase (``recall``, ``model``, ``slack``)."""
    calls: dict[str, int] = field(default_factory=dict)
    """How many calls each phase made."""

    def add(self, phase: str, seconds: float) -> None:
        self.timings[phase] = self.timings.get(phase, 0.0) + seconds
        self.calls[phase] = self.calls.get(phase, 0) + 1

    def fields(self, total_seconds: float) -> dict[str, str | int | float]:
        """The log line's fields, in a stable order; durations in milliseconds."""
        shown: dict[str, str | int | float] = {"kind": self.kind, "outcome": self.outcome}
        if self.reason:
            shown["reason"] = self.reason
        shown |= {name: value for name, value in self.ids.items() if value}
        shown["total_ms"] = round(total_seconds * 1000, 1)
        for phase, seconds in sorted(self.timings.items()):
            shown[f"{phase}_ms"] = round(seconds * 1000, 1)
            shown[f"{phase}_calls"] = self.calls[phase]
        return shown


def current_event() -> EventRecord | None:
    """The record of the event being handled in this task, if any."""
    return _current.get()


@contextmanager
def timed(phase: str) -> Iterator[None]:
    """Add the time the block takes to the current event's ``phase``."""
    started = time.perf_counter()
    try:
        yield
    finally:
        record = _current.get()
        if record is not None:
            record.add(phase, time.perf_counter() - started)


class Observer:
    """Opens event records, then logs and counts each one as it ends."""

    def __init__(self, metrics: BotMetrics | None = None) -> None:
        self.metrics = metrics or BotMetrics()
        self._counted: dict[tuple[str, str], Callable[[], None]] = {}
        """What counts an event of each kind and outcome met so far: the series' own
        ``inc`` (finding a series by its labels costs more than adding one to it)."""

    @asynccontextmanager
    async def event(self, kind: str, **ids: str | None) -> AsyncIterator[EventRecord]:
        record = EventRecord(kind=kind, ids=_present(ids))
        token = _current.set(record)
        started = time.perf_counter()
        try:
            yield record
        except BaseException:
            record.outcome = "error"
            raise
        finally:
            _current.reset(token)
            self._finish(record, time.perf_counter() - started)

    def ignored(self, kind: str, reason: str, **ids: str | None) -> None:
        """Log (and count) at once an event deliberately left alone: outcome ``ignored``."""
        record = EventRecord(kind=kind, ids=_present(ids), outcome="ignored", reason=reason)
        self._finish(record, 0.0)

    def _count(self, kind: str, outcome: str) -> Callable[[], None]:
        metrics = self.metrics
        series = [metrics.events.labels(kind=kind, outcome=outcome)]
        if kind == "answer":
            series.append(metrics.answers.labels(outcome=outcome))
        elif kind == "vote":
            series.append(metrics.votes.labels(outcome=outcome))
        elif kind == "forget" and outcome == "ok":
            series.append(metrics.forgets)

        def count() -> None:
            for each in series:
                each.inc()

        return count

    def _finish(self, record: EventRecord, seconds: float) -> None:
        key = (record.kind, record.outcome)
        if (count := self._counted.get(key)) is None:
            count = self._counted[key] = self._count(*key)
        count()
        if "recall" in record.timings:
            self.metrics.recall_seconds.observe(record.timings["recall"])
        if not _log.isEnabledFor(logging.INFO):
            return
        fields = record.fields(seconds)
        _log.info(
            "event %s",
            " ".join(f"{name}={value}" for name, value in fields.items()),
            extra={"event": fields},
        )


def _present(ids: dict[str, str | None]) -> dict[str, str]:
    return {name: value for name, value in ids.items() if value}
