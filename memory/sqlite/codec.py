"""Conversions between the memory models and SQLite rows (:mod:`memory.rows`).

Times are stored as ISO-8601 text in UTC with a fixed width, so comparing the text
compares the instants (a naive datetime is taken to be UTC).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory import rows
from memory.models import Episode, WisdomNote

__all__ = ["episode_from_row", "from_db_time", "to_db_time", "wisdom_from_row"]


def to_db_time(moment: datetime) -> str:
    return rows.utc(moment).isoformat(timespec="microseconds")


def from_db_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def episode_from_row(row: dict[str, Any]) -> Episode:
    return rows.episode_from_row(row, from_db_time)


def wisdom_from_row(row: dict[str, Any]) -> WisdomNote:
    return rows.wisdom_from_row(row, from_db_time)
