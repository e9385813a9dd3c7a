"""Conversions between PostgreSQL rows and the memory models (times are ``timestamptz``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memory.models import ConversationKind, Episode, EpisodeStatus, Scope, WisdomNote

__all__ = ["episode_from_row", "scope_from_row", "utc", "wisdom_from_row"]


def utc(moment: datetime) -> datetime:
    """``moment`` in UTC (a naive datetime is taken to be UTC, as SQLite's backend does),
    so it compares with the times the database returns."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def scope_from_row(row: dict[str, Any]) -> Scope:
    return Scope(
        team_id=row["team_id"],
        channel_id=row["channel_id"],
        kind=ConversationKind(row["kind"]),
    )


def episode_from_row(row: dict[str, Any]) -> Episode:
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
        created_at=row["created_at"],
        validated_at=row["validated_at"],
    )


def wisdom_from_row(row: dict[str, Any]) -> WisdomNote:
    return WisdomNote(
        id=row["id"],
        scope=scope_from_row(row),
        user_id=row["user_id"],
        text=row["text"],
        episode_count=row["episode_count"],
        created_at=row["created_at"],
    )
