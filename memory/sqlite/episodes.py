"""Exchanges, their ledger entries, and the episodes' life cycle outside voting."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from memory.config import MemoryConfig
from memory.models import Episode, EpisodeStatus, ImportedEpisode, NewExchange, Scope
from memory.rows import IMPORTED_COLUMNS, imported_row, scope_from_row
from memory.sql import fence
from memory.sqlite.codec import episode_from_row, from_db_time, to_db_time
from memory.sqlite.fts import reindexing
from memory.sqlite.session import shared
from memory.sqlite.transactions import transaction

__all__ = [
    "AWAITING_REFLECTION_SQL",
    "answered_in_thread",
    "awaiting_reflection",
    "extend_exchange",
    "import_episodes",
    "list_episodes",
    "purge_expired",
    "queue_for_score",
    "record_exchange",
    "scopes_with_recent_episodes",
    "set_importance",
    "set_lesson",
]

_fence = shared(fence)
"""The erasure fence's verbs, as this database thread runs them."""

_VALIDATED = (EpisodeStatus.SUCCESS.value, EpisodeStatus.FAILURE.value)


def _episode(db: Database, episode_id: int) -> Episode:
    return episode_from_row(next(db.query("SELECT * FROM episodes WHERE id = ?", [episode_id])))


_ISSUED = "episode_ids_issued"
"""The counter of episode ids handed out: an id is never reused, even after an erasure."""


def _next_episode_id(db: Database) -> int:
    """An id no episode ever had, so a lesson or score computed for an erased episode can
    never land on a newer one (SQLite would reuse the largest rowid once it is deleted)."""
    row = next(
        db.query(
            "SELECT max(coalesce((SELECT value FROM counters WHERE name = ?), 0),"
            " coalesce((SELECT max(id) FROM episodes), 0)) + 1 AS id",
            [_ISSUED],
        )
    )
    episode_id = int(row["id"])
    db.execute(
        "INSERT INTO counters (name, value) VALUES (?, ?)"
        " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        [_ISSUED, episode_id],
    )
    return episode_id


def record_exchange(db: Database, exchange: NewExchange, config: MemoryConfig) -> Episode | None:
    """Store a pending episode and its ledger rows; None when the asker was forgotten since
    the exchange began (the erasure fence: nothing that started before it writes after)."""
    expires_at = to_db_time(exchange.created_at + config.ledger_ttl)
    with transaction(db):
        if _fence.forgotten_since(
            db, exchange.requester_id, exchange.created_at, exchange.scope.team_id
        ):
            return None
        episode_id = _next_episode_id(db)
        db.execute(
            "INSERT INTO episodes (id, enterprise_id, team_id, channel_id, kind, requester_id,"
            " thread_ts, question, answer, status, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                episode_id,
                exchange.scope.enterprise_id,
                exchange.scope.team_id,
                exchange.scope.channel_id,
                exchange.scope.kind.value,
                exchange.requester_id,
                exchange.thread_ts,
                exchange.question,
                exchange.answer,
                EpisodeStatus.PENDING.value,
                to_db_time(exchange.created_at),
            ],
        )
        _add_parts(db, exchange.scope.channel_id, exchange.message_ts, episode_id, expires_at)
        return _episode(db, episode_id)


def import_episodes(db: Database, episodes: Sequence[ImportedEpisode]) -> list[int | None]:
    """Store validated episodes as they are, indexed at once, in one transaction; their
    ids (None for one whose asker was forgotten after it was created)."""
    ids: list[int | None] = []
    with transaction(db):
        for item in episodes:
            if _fence.forgotten_since(db, item.requester_id, item.created_at, item.scope.team_id):
                ids.append(None)
                continue
            episode_id = _next_episode_id(db)
            with reindexing(db, episode_id):
                db.execute(
                    f"INSERT INTO episodes (id, {IMPORTED_COLUMNS})"
                    f" VALUES ({', '.join(['?'] * 13)})",
                    [episode_id, *imported_row(item, to_db_time)],
                )
            ids.append(episode_id)
    return ids


def _add_parts(
    db: Database, channel_id: str, message_ts: list[str], episode_id: int, expires_at: str
) -> None:
    for ts in dict.fromkeys(message_ts):
        db.execute(
            "INSERT OR REPLACE INTO ledger (channel_id, message_ts, episode_id, expires_at)"
            " VALUES (?, ?, ?, ?)",
            [channel_id, ts, episode_id, expires_at],
        )


def extend_exchange(
    db: Database, episode_id: int, message_ts: list[str], answer: str, config: MemoryConfig
) -> bool:
    """Add ledger rows for more parts of a recorded answer and store its text so far;
    False when the episode is gone (erased, or withdrawn)."""
    with transaction(db):
        rows = list(
            db.query(
                "SELECT channel_id, status, created_at FROM episodes WHERE id = ?", [episode_id]
            )
        )
        if not rows:
            return False
        [row] = rows
        expires_at = to_db_time(from_db_time(row["created_at"]) + config.ledger_ttl)
        with reindexing(db, episode_id):
            db.execute("UPDATE episodes SET answer = ? WHERE id = ?", [answer, episode_id])
        _add_parts(db, row["channel_id"], message_ts, episode_id, expires_at)
    return True


def answered_in_thread(db: Database, channel_id: str, thread_ts: str) -> bool:
    row = next(
        db.query(
            "SELECT EXISTS (SELECT 1 FROM episodes WHERE channel_id = :c AND thread_ts = :t)"
            " OR EXISTS (SELECT 1 FROM ledger WHERE channel_id = :c AND message_ts = :t)"
            " AS answered",
            {"c": channel_id, "t": thread_ts},
        )
    )
    return bool(row["answered"])


_LESSONS = (
    "SELECT * FROM episodes INDEXED BY episodes_awaiting_lesson"
    " WHERE status = 'failure' AND lesson IS NULL"
)
_SCORES = (
    "SELECT episodes.* FROM score_queue CROSS JOIN episodes"
    " ON episodes.id = score_queue.episode_id"
    " WHERE episodes.status = 'success' AND episodes.importance IS NULL"
)
AWAITING_LESSONS_SQL = f"{_LESSONS} ORDER BY validated_at, id LIMIT ?"
AWAITING_REFLECTION_SQL = (
    f"SELECT * FROM ({_LESSONS} UNION ALL {_SCORES}) ORDER BY validated_at, id LIMIT ?"
)
"""The reflection queue: failures awaiting a lesson, read from their own partial index,
and (``with_successes``) the successes in ``score_queue``, oldest vote first; only the
episodes waiting, however many validated episodes the store holds. A success is queued
for a score only while recall weighs importance (:func:`queue_for_score`): with the
default weight of 0 no success waits, and none costs the queue a byte. (``CROSS JOIN``
reads the queue first: left to itself, the planner would read every success.)"""


def awaiting_reflection(db: Database, limit: int, with_successes: bool) -> list[Episode]:
    rows = db.query(AWAITING_REFLECTION_SQL if with_successes else AWAITING_LESSONS_SQL, [limit])
    return [episode_from_row(row) for row in rows]


def queue_for_score(
    db: Database, episode_id: int, was: EpisodeStatus, now: EpisodeStatus, config: MemoryConfig
) -> None:
    """Keep the episode in the score queue exactly while it is a success awaiting an
    importance score that recall would use, as its status changes from ``was`` to ``now``."""
    if was is EpisodeStatus.SUCCESS:
        db.execute("DELETE FROM score_queue WHERE episode_id = ?", [episode_id])
    if now is EpisodeStatus.SUCCESS and config.weights.importance > 0:
        db.execute("INSERT INTO score_queue (episode_id) VALUES (?)", [episode_id])


def set_lesson(db: Database, episode_id: int, lesson: str, reason: str | None) -> bool:
    """Attach a lesson to an episode that is still a failure with the reason it was drafted
    from; True when it was attached.

    The check and the write are one statement, so a vote that changed the status, or a
    reason given while the model was reflecting, can never receive a stale lesson."""
    with transaction(db), reindexing(db, episode_id):
        cursor = db.execute(
            "UPDATE episodes SET lesson = ? WHERE id = ? AND status = ? AND reason IS ?",
            [lesson, episode_id, EpisodeStatus.FAILURE.value, reason],
        )
    return bool(cursor.rowcount)


def set_importance(db: Database, episode_id: int, importance: int) -> bool:
    """Score an episode that is still a success 1..10; True when the score was stored."""
    if not 1 <= importance <= 10:
        raise ValueError(f"importance must be between 1 and 10, not {importance}")
    cursor = db.execute(
        "UPDATE episodes SET importance = ? WHERE id = ? AND status = ?",
        [importance, episode_id, EpisodeStatus.SUCCESS.value],
    )
    if cursor.rowcount:
        db.execute("DELETE FROM score_queue WHERE episode_id = ?", [episode_id])
    return bool(cursor.rowcount)


def purge_expired(db: Database, now: datetime, config: MemoryConfig) -> int:
    """Delete expired ledger rows, then what they leave useless; returns rows deleted.

    A pending episode without ledger rows can never be validated, so only holds someone's
    text for nothing. Claims older than the ledger's lifetime cannot meet a retry anymore.
    """
    cutoff = to_db_time(now)
    with transaction(db):
        ledger = db.execute("DELETE FROM ledger WHERE expires_at <= ?", [cutoff]).rowcount
        episodes = db.execute(
            "DELETE FROM episodes WHERE status = 'pending'"
            " AND NOT EXISTS (SELECT 1 FROM ledger WHERE ledger.episode_id = episodes.id)"
        ).rowcount
        claims = db.execute(
            "DELETE FROM claims WHERE at <= ?", [to_db_time(now - config.ledger_ttl)]
        ).rowcount
    return ledger + episodes + claims


def list_episodes(
    db: Database,
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
    where = ["requester_id = ?", f"status IN ({', '.join('?' for _ in statuses)})"]
    params: list[Any] = [user_id, *(status.value for status in statuses)]
    if scope is not None:
        where.append("enterprise_id = ? AND team_id = ? AND channel_id = ? AND kind = ?")
        params += [scope.enterprise_id, scope.team_id, scope.channel_id, scope.kind.value]
    if team_id is not None:
        where.append("team_id = ?")
        params.append(team_id)
    if since is not None:
        where.append("created_at >= ?")
        params.append(to_db_time(since))
    rows = db.query(
        f"SELECT * FROM episodes WHERE {' AND '.join(where)}"
        " ORDER BY created_at DESC, id DESC LIMIT ?",
        [*params, limit],
    )
    return [episode_from_row(row) for row in rows]


def scopes_with_recent_episodes(db: Database, since: datetime) -> list[tuple[Scope, str]]:
    rows = db.query(
        "SELECT DISTINCT enterprise_id, team_id, channel_id, kind, requester_id FROM episodes"
        " WHERE status IN (?, ?) AND validated_at >= ?"
        " ORDER BY enterprise_id, team_id, channel_id, kind, requester_id",
        [*_VALIDATED, to_db_time(since)],
    )
    return [(scope_from_row(row), row["requester_id"]) for row in rows]
