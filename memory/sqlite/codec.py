"""SQLite's times, as :mod:`memory.rows` reads them: microseconds since ``datetime.min`` in
18 digits, a naive time taken as UTC (memory/README.md, *SQLite: one file, one thread*)."""

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
