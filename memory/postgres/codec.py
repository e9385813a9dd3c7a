"""PostgreSQL rows as memory models (:mod:`memory.rows`; times are ``timestamptz``,
returned as datetimes)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory import rows
from memory.models import Episode

__all__ = ["episode_from_row"]


def _as_returned(moment: datetime) -> datetime:
    return moment


def episode_from_row(row: dict[str, Any]) -> Episode:
    return rows.episode_from_row(row, _as_returned)
