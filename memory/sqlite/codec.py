"""Conversions between the memory models and SQLite rows (:mod:`memory.rows`).

Times are stored as the count of microseconds since 0001-01-01 UTC (the earliest moment a
``datetime`` holds), in 18 decimal digits: fixed-width text, so comparing the text compares
the instants, at 18 bytes a copy where ISO-8601 took 32 (a store keeps about five copies
of a time per episode, with its indexes). A naive datetime is taken to be UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from memory import rows
from memory.models import Episode

_ORIGIN = datetime.min.replace(tzinfo=UTC)
_DIGITS = 18
"""Enough for every microsecond up to the year 9999."""


def to_db_time(moment: datetime) -> str:
    return f"{(rows.utc(moment) - _ORIGIN) // timedelta(microseconds=1):0{_DIGITS}d}"


def from_db_time(text: str) -> datetime:
    """The time ``text`` holds; also ISO-8601, as rows held it until migration 14 (which
    the migrations before it read)."""
    if text.isdigit():
        return _ORIGIN + timedelta(microseconds=int(text))
    return datetime.fromisoformat(text)


def episode_from_row(row: dict[str, Any]) -> Episode:
    return rows.episode_from_row(row, from_db_time)
