"""SQLite's times, as :mod:`memory.rows` reads them.

Times are stored as the count of microseconds since 0001-01-01 UTC (``datetime.min``), in
18 decimal digits (enough up to the year 9999): fixed-width text, so comparing the text
compares the instants, at 18 bytes a copy where ISO-8601 took 32 (a store keeps about five
copies of a time per episode, with its indexes). A naive datetime is taken to be UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memory import rows

_ORIGIN = datetime.min.replace(tzinfo=UTC)


def to_db_time(moment: datetime) -> str:
    return f"{(rows.utc(moment) - _ORIGIN) // timedelta(microseconds=1):018d}"


def from_db_time(text: str) -> datetime:
    """The time ``text`` holds, also in ISO-8601 (as times were stored before migration 14)."""
    if text.isdigit():
        return _ORIGIN + timedelta(microseconds=int(text))
    return datetime.fromisoformat(text)
