"""Exchanges, their ledger entries, and the episodes' life cycle outside voting."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from memory.config import MemoryConfig
from memory.models import Episode, EpisodeStatus, ImportedEpisode, NewExchange, Scope
from memory.postgres.codec import episode_from_row, scope_from_row
from memory.postgres.fts import reindex_episode
from memory.postgres.session import Session
from memory.rows import IMPORTED_COLUMNS, imported_row, utc
from memory.sql.fence import forgotten_since

__all__ = [
    "REFLECTION_LEASE",
    "answered_in_thread",
    "awaiting_reflection",
    "extend_exchange",
    "import_episodes",
    "list_episodes",
    "purge_expired",
    "record_exchange",
    "scopes_with_recent_episodes",
    "set_importance",
    "set_lesson",
]

_VALIDATED = [EpisodeStatus.SUCCESS.value, EpisodeStatus.FAILURE.value]

REFLECTION_LEASE = timedelta(minutes=10)
"""How long an episode handed to one process for reflection is not handed to another; if
that process dies meanwhile, another takes the episode over when the lease runs out."""


async def record_exchange(
    db: Session, exchange: NewExchange, config: MemoryConfig
) -> Episode | None:
    """Store a pending episode and its ledger rows; None when the asker was forgotten since
    the exchange began (the erasure fence: nothing that started before it writes after)."""
    await db.lock_person(exchange.requester_id, exchange.scope.team_id)
    if await forgotten_since(
        db, exchange.requester_id, exchange.created_at, exchange.scope.team_id
    ):
        return None
    row = await db.row(
        "INSERT INTO episodes (enterprise_id, team_id, channel_id, kind, requester_id,"
        " thread_ts, question, answer, status, created_at)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING *",
        [
            exchange.scope.enterprise_id,
            exchange.scope.team_id,
            exchange.scope.channel_id,
            exchange.scope.kind.value,
            exchange.requester_id,
            exchange.thread_ts,
            exchange.question,
            exchange.answer,
            EpisodeStatus.PENDING.value,
            exchange.created_at,
        ],
    )
    assert row is not None
    await _add_parts(
        db,
        exchange.scope.channel_id,
        exchange.message_ts,
        row["id"],
        exchange.created_at + config.ledger_ttl,
    )
    return episode_from_row(row)


async def import_episodes(db: Session, episodes: Sequence[ImportedEpisode]) -> list[int | None]:
    """Store validated episodes as they are, indexed at once, in one transaction; their
    ids (None for one whose asker was forgotten after it was created)."""
    ids: list[int | None] = []
    for person, team in sorted({(item.requester_id, item.scope.team_id) for item in episodes}):
        await db.lock_person(person, team)
    for item in episodes:
        if await forgotten_since(db, item.requester_id, item.created_at, item.scope.team_id):
            ids.append(None)
            continue
        row = await db.row(
            f"INSERT INTO episodes ({IMPORTED_COLUMNS}) VALUES ({', '.join(['%s'] * 12)})"
            " RETURNING id",
            imported_row(item, utc),
        )
        assert row is not None
        await reindex_episode(db, row["id"])
        ids.append(row["id"])
    return ids


async def _add_parts(
    db: Session, channel_id: str, message_ts: list[str], episode_id: int, expires_at: datetime
) -> None:
    await db.execute(
        "INSERT INTO ledger (channel_id, message_ts, episode_id, expires_at)"
        " SELECT %s, ts, %s, %s FROM unnest(%s::text[]) AS ts"
        " ON CONFLICT (channel_id, message_ts)"
        " DO UPDATE SET episode_id = excluded.episode_id, expires_at = excluded.expires_at",
        [channel_id, episode_id, expires_at, list(dict.fromkeys(message_ts))],
    )


async def extend_exchange(
    db: Session, episode_id: int, message_ts: list[str], answer: str, config: MemoryConfig
) -> bool:
    """Add ledger rows for more parts of a recorded answer and store its text so far;
    False when the episode is gone (erased, or withdrawn)."""
    row = await db.row(
        "UPDATE episodes SET answer = %s WHERE id = %s RETURNING channel_id, status, created_at",
        [answer, episode_id],
    )
    if row is None:
        return False
    await _add_parts(
        db, row["channel_id"], message_ts, episode_id, row["created_at"] + config.ledger_ttl
    )
    if row["status"] != EpisodeStatus.PENDING.value:
        await reindex_episode(db, episode_id)
    return True


async def answered_in_thread(db: Session, channel_id: str, thread_ts: str) -> bool:
    row = await db.row(
        "SELECT EXISTS (SELECT 1 FROM episodes WHERE channel_id = %(c)s AND thread_ts = %(t)s)"
        " OR EXISTS (SELECT 1 FROM ledger WHERE channel_id = %(c)s AND message_ts = %(t)s)"
        " AS answered",
        {"c": channel_id, "t": thread_ts},
    )
    assert row is not None
    return bool(row["answered"])


async def awaiting_reflection(
    db: Session, limit: int, holder: str, with_successes: bool
) -> list[Episode]:
    """Failures without a lesson and (``with_successes``) successes without a score, oldest
    vote first, that no other process is reflecting on; they are leased to ``holder``
    (:data:`REFLECTION_LEASE`).

    ``SKIP LOCKED`` lets replicas asking at the same moment take different episodes, so the
    model is asked about each once, not once per replica. The holder's own leased episodes
    come back to it, so its own back-off (see :class:`memory.ReflectionWorker`) applies."""
    rows = await db.rows(
        "UPDATE episodes SET reflection_holder = %(holder)s,"
        " reflection_until = now() + %(lease)s"
        " WHERE id IN ("
        "   SELECT id FROM episodes"
        "   WHERE ((status = 'failure' AND lesson IS NULL)"
        "     OR (%(with_successes)s AND status = 'success' AND importance IS NULL))"
        "   AND (reflection_until IS NULL OR reflection_until < now()"
        "     OR reflection_holder = %(holder)s)"
        "   ORDER BY validated_at, id LIMIT %(limit)s FOR UPDATE SKIP LOCKED"
        " ) RETURNING *",
        {
            "holder": holder,
            "lease": REFLECTION_LEASE,
            "limit": limit,
            "with_successes": with_successes,
        },
    )
    episodes = [episode_from_row(row) for row in rows]
    return sorted(episodes, key=lambda episode: (episode.validated_at, episode.id))


async def set_lesson(db: Session, episode_id: int, lesson: str, reason: str | None) -> bool:
    """Attach a lesson to an episode that is still a failure with the reason it was drafted
    from; True when it was attached.

    The check and the write are one statement, so a vote that changed the status, or a
    reason given while the model was reflecting, can never receive a stale lesson."""
    changed = await db.execute(
        "UPDATE episodes SET lesson = %s, reflection_holder = NULL, reflection_until = NULL"
        " WHERE id = %s AND status = %s AND reason IS NOT DISTINCT FROM %s",
        [lesson, episode_id, EpisodeStatus.FAILURE.value, reason],
    )
    if changed:
        await reindex_episode(db, episode_id)
    return bool(changed)


async def set_importance(db: Session, episode_id: int, importance: int) -> bool:
    """Score an episode that is still a success 1..10; True when the score was stored."""
    if not 1 <= importance <= 10:
        raise ValueError(f"importance must be between 1 and 10, not {importance}")
    changed = await db.execute(
        "UPDATE episodes SET importance = %s, reflection_holder = NULL, reflection_until = NULL"
        " WHERE id = %s AND status = %s",
        [importance, episode_id, EpisodeStatus.SUCCESS.value],
    )
    return bool(changed)


async def purge_expired(db: Session, now: datetime, config: MemoryConfig) -> int:
    """Delete expired ledger rows, then what they leave useless; returns rows deleted.

    A pending episode without ledger rows can never be validated, so only holds someone's
    text for nothing. Claims older than the ledger's lifetime cannot meet a retry anymore.
    """
    ledger = await db.execute("DELETE FROM ledger WHERE expires_at <= %s", [now])
    episodes = await db.execute(
        "DELETE FROM episodes WHERE status = 'pending'"
        " AND NOT EXISTS (SELECT 1 FROM ledger WHERE ledger.episode_id = episodes.id)"
    )
    claims = await db.execute("DELETE FROM claims WHERE at <= %s", [now - config.ledger_ttl])
    return ledger + episodes + claims


async def list_episodes(
    db: Session,
    user_id: str,
    *,
    scope: Scope | None,
    statuses: frozenset[EpisodeStatus],
    since: datetime | None,
    limit: int,
    team_id: str | None = None,
) -> list[Episode]:
    """A person's episodes (in workspace ``team_id``), newest first."""
    if not statuses:
        return []
    where = ["requester_id = %s", "status = ANY(%s)"]
    params: list[Any] = [user_id, [status.value for status in statuses]]
    if scope is not None:
        where.append("enterprise_id = %s AND team_id = %s AND channel_id = %s AND kind = %s")
        params += [scope.enterprise_id, scope.team_id, scope.channel_id, scope.kind.value]
    if team_id is not None:
        where.append("team_id = %s")
        params.append(team_id)
    if since is not None:
        where.append("created_at >= %s")
        params.append(since)
    rows = await db.rows(
        f"SELECT * FROM episodes WHERE {' AND '.join(where)}"
        " ORDER BY created_at DESC, id DESC LIMIT %s",
        [*params, limit],
    )
    return [episode_from_row(row) for row in rows]


async def scopes_with_recent_episodes(db: Session, since: datetime) -> list[tuple[Scope, str]]:
    rows = await db.rows(
        "SELECT DISTINCT enterprise_id, team_id, channel_id, kind, requester_id FROM episodes"
        " WHERE status = ANY(%s) AND validated_at >= %s"
        " ORDER BY enterprise_id, team_id, channel_id, kind, requester_id",
        [_VALIDATED, since],
    )
    return [(scope_from_row(row), row["requester_id"]) for row in rows]
