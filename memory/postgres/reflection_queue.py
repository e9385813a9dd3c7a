"""The episodes awaiting reflection, each leased to one replica at a time."""

from __future__ import annotations

from datetime import timedelta

from memory.models import Episode
from memory.postgres.session import Session
from memory.rows import episode_from_row

__all__ = ["REFLECTION_LEASE", "awaiting_reflection"]

REFLECTION_LEASE = timedelta(minutes=10)
"""How long an episode handed to one process for reflection is not handed to another; if
that process dies meanwhile, another takes the episode over when the lease runs out."""


async def awaiting_reflection(
    db: Session, limit: int, with_successes: bool, holder: str
) -> list[Episode]:
    """Failures without a lesson and (``with_successes``) successes without a score, oldest
    vote first, that no other process is reflecting on; they are leased to ``holder``
    (:data:`REFLECTION_LEASE`) until a lesson or a score clears the lease
    (:attr:`Session.lease_cleared`).

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
    episodes = [episode_from_row(row, db.read_time) for row in rows]
    return sorted(episodes, key=lambda episode: (episode.validated_at, episode.id))
