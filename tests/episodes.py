"""The values unit tests share: a time, a DM and a channel, and an :class:`~memory.Episode`
built directly, without a store."""

from __future__ import annotations

from datetime import UTC, datetime

from memory import ConversationKind, Episode, EpisodeStatus, Scope

T0 = datetime(2026, 11, 23, 9, tzinfo=UTC)
DM = Scope(team_id="T1", channel_id="D1", kind=ConversationKind.DM)
CHANNEL = Scope(team_id="T1", channel_id="C1", kind=ConversationKind.CHANNEL)


def make_episode(
    question: str = "q",
    answer: str = "a",
    status: EpisodeStatus = EpisodeStatus.SUCCESS,
    *,
    id: int = 1,
    scope: Scope = DM,
    requester_id: str = "U1",
    lesson: str | None = None,
    importance: int | None = None,
    created_at: datetime = T0,
    validated_at: datetime | None = None,
) -> Episode:
    """An episode as the store returns it; a validated one was validated when it was asked,
    unless ``validated_at`` says otherwise."""
    if validated_at is None and status is not EpisodeStatus.PENDING:
        validated_at = created_at
    return Episode(
        id=id,
        scope=scope,
        requester_id=requester_id,
        thread_ts=None,
        question=question,
        answer=answer,
        status=status,
        lesson=lesson,
        importance=importance,
        created_at=created_at,
        validated_at=validated_at,
    )
