"""Why a person 👎'd an answer of theirs: asking once, and keeping what they said.

That a person was asked about an answer is a claim (:func:`memory.postgres.counters.claim`)
of a key naming the answer: no lock on the episode's row, which the reflection queue takes
with ``SKIP LOCKED`` (a 👎's lesson would otherwise wait for the next poll)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memory.models import Episode
from memory.postgres.codec import episode_from_row
from memory.postgres.counters import claim
from memory.postgres.fence import forgotten_since, lock_person
from memory.postgres.fts import reindex_episode
from memory.postgres.session import Session

__all__ = ["ask_reason_once", "awaiting_reason", "first_parts", "give_reason"]

_THEIR_FAILURE = "id = %s AND requester_id = %s AND status = 'failure'"


async def ask_reason_once(
    db: Session, episode_id: int, user_id: str, at: datetime, claim_key: str
) -> Episode | None:
    row = await db.row(
        f"SELECT * FROM episodes WHERE {_THEIR_FAILURE} AND reason IS NULL",
        [episode_id, user_id],
    )
    if row is None:
        return None
    episode = episode_from_row(row)
    first = await claim(db, [claim_key], at, episode.scope.team_id)
    return episode if first else None


async def awaiting_reason(
    db: Session, channel_id: str, thread_ts: str, user_id: str, since: datetime
) -> Episode | None:
    row = await db.row(
        "SELECT * FROM episodes WHERE channel_id = %s AND thread_ts = %s AND requester_id = %s"
        " AND status = 'failure' AND reason IS NULL AND validated_at >= %s"
        " AND EXISTS (SELECT 1 FROM votes WHERE votes.episode_id = episodes.id"
        " AND voter_id = episodes.requester_id AND vote = 'down')"
        " ORDER BY validated_at DESC, id DESC LIMIT 1",
        [channel_id, thread_ts, user_id, since],
    )
    return episode_from_row(row) if row is not None else None


async def give_reason(
    db: Session, episode_id: int, user_id: str, reason: str, at: datetime
) -> Episode | None:
    """The lesson drafted without the reason goes, and any lease on drafting it (a draft
    under way started without the reason), so any replica drafts it again at once."""
    await lock_person(db, user_id)
    if await forgotten_since(db, user_id, at):
        return None
    row = await db.row(
        "UPDATE episodes SET reason = %s, lesson = NULL, reflection_holder = NULL,"
        f" reflection_until = NULL WHERE {_THEIR_FAILURE} RETURNING *",
        [reason, episode_id, user_id],
    )
    if row is None:
        return None
    await reindex_episode(db, episode_id)
    return episode_from_row(row)


async def first_parts(db: Session, episode_ids: Sequence[int]) -> dict[int, str]:
    rows = await db.rows(
        "SELECT episode_id, min(message_ts) AS ts FROM ledger"
        " WHERE episode_id = ANY(%s) GROUP BY episode_id",
        [list(episode_ids)],
    )
    return {int(row["episode_id"]): str(row["ts"]) for row in rows}
