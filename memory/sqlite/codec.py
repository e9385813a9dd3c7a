"""Conversions between the memory models and SQLite rows.

Times are stored as ISO-8601 text in UTC with a fixed width, so comparing the text
compares the instants (a naive datetime is taken to be UTC).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memory.models import ConversationKind, Episode, EpisodeStatus, Scope, WisdomNote

__all__ = ["episode_from_row", "from_db_time", "to_db_time", "wisdom_from_row"]


def to_db_time(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def from_db_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _scope_from_row(row: dict[str, Any]) -> Scope:
    return Scope(
        team_id=row["team_id"],
        channel_id=row["channel_id"],
        kind=ConversationKind(row["kind"]),
    )


def episode_from_row(row: dict[str, Any]) -> Episode:
    return Episode(
        id=row["id"],
        scope=_scope_from_row(row),
        requester_id=row["requester_id"],
        thread_ts=row["thread_ts"],
        question=row["question"],
        answer=row["answer"],
        status=EpisodeStatus(row["status"]),
        lesson=row["lesson"],
        importance=row["importance"],
        created_at=from_db_time(row["created_at"]),
        validated_at=from_db_time(row["validated_at"]) if row["validated_at"] else None,
    )


def wisdom_from_row(row: dict[str, Any]) -> WisdomNote:
    return WisdomNote(
        id=row["id"],
        scope=_scope_from_row(row),
        user_id=row["user_id"],
        text=row["text"],
        episode_count=row["episode_count"],
        created_at=from_db_time(row["created_at"]),
    )
