"""Rows of the backends' ``episodes`` and ``wisdom`` tables as memory models.

The two backends lay those tables out alike and differ only in how a time is stored
(ISO-8601 text in SQLite, ``timestamptz`` in PostgreSQL): each passes its reader.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from memory.models import ConversationKind, Episode, EpisodeStatus, Scope, WisdomNote

__all__ = ["TimeReader", "episode_from_row", "scope_from_row", "utc", "wisdom_from_row"]

TimeReader = Callable[[Any], datetime]
"""Turns a time as the database returns it into a datetime."""


def utc(moment: datetime) -> datetime:
    """``moment`` in UTC; a naive datetime is taken to be UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def scope_from_row(row: dict[str, Any]) -> Scope:
    return Scope(
        team_id=row["team_id"],
        channel_id=row["channel_id"],
        kind=ConversationKind(row["kind"]),
    )


def episode_from_row(row: dict[str, Any], read_time: TimeReader) -> Episode:
    validated_at = row["validated_at"]
    return Episode(
        id=row["id"],
        scope=scope_from_row(row),
        requester_id=row["requester_id"],
        thread_ts=row["thread_ts"],
        question=row["question"],
        answer=row["answer"],
        status=EpisodeStatus(row["status"]),
        lesson=row["lesson"],
        importance=row["importance"],
        created_at=read_time(row["created_at"]),
        validated_at=read_time(validated_at) if validated_at else None,
    )


def wisdom_from_row(row: dict[str, Any], read_time: TimeReader) -> WisdomNote:
    return WisdomNote(
        id=row["id"],
        scope=scope_from_row(row),
        user_id=row["user_id"],
        text=row["text"],
        episode_count=row["episode_count"],
        created_at=read_time(row["created_at"]),
    )
