"""The episodes awaiting reflection: failures without a lesson, successes without a score.

SQLite's one process needs no lease on them (PostgreSQL's replicas do, see
:mod:`memory.postgres.reflection_queue`).
"""

from __future__ import annotations

from sqlite_utils import Database

from memory.config import MemoryConfig
from memory.models import Episode, EpisodeStatus
from memory.sqlite.codec import episode_from_row

__all__ = [
    "AWAITING_LESSONS_SQL",
    "AWAITING_REFLECTION_SQL",
    "awaiting_reflection",
    "queue_for_score",
    "scored",
]

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
        scored(db, episode_id)
    if now is EpisodeStatus.SUCCESS and config.weights.importance > 0:
        db.execute("INSERT INTO score_queue (episode_id) VALUES (?)", [episode_id])


def scored(db: Database, episode_id: int) -> None:
    db.execute("DELETE FROM score_queue WHERE episode_id = ?", [episode_id])
