"""Why a person 👎'd an answer of theirs: asking once, and keeping what they said.

That a person was asked about an answer is a claim (:func:`memory.sql.fence.claim`) of
a key naming the answer: a keyed hash, kept as long as the answer can be voted on, and no
lock on the episode's row, which PostgreSQL's reflection queue takes with ``SKIP LOCKED`` (a 👎's
lesson would otherwise wait for the next poll)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memory import rows
from memory.models import Episode
from memory.sql.fence import claim, forgotten_since
from memory.sql.session import Session

_THEIR_FAILURE = "id = %s AND requester_id = %s AND status = 'failure'"


async def ask_reason_once(
    db: Session, episode_id: int, user_id: str, *, at: datetime
) -> Episode | None:
    async with db.transaction():
        row = await db.row(
            f"SELECT * FROM episodes WHERE {_THEIR_FAILURE} AND reason IS NULL",
            [episode_id, user_id],
        )
        if row is None:
            return None
        episode = rows.episode_from_row(row, db.read_time)
        first = await claim(db, f"ask-why:{episode_id}", at=at, team_id=episode.scope.team_id)
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
    return rows.episode_from_row(row, db.read_time) if row is not None else None


async def give_reason(
    db: Session, episode_id: int, user_id: str, reason: str, at: datetime
) -> Episode | None:
    """The lesson drafted without the reason goes, and any lease on drafting it (a draft
    under way started without the reason), so any replica drafts it again at once; the
    lesson leaves the index until it is drafted again."""
    async with db.transaction():
        await db.lock_person(user_id)
        theirs = await db.row(
            f"SELECT 1 FROM episodes WHERE {_THEIR_FAILURE}", [episode_id, user_id]
        )
        if theirs is None or await forgotten_since(db, user_id, at):
            return None
        async with db.refiling([episode_id]):
            await db.execute(
                f"UPDATE episodes SET reason = %s, lesson = NULL{db.lease_cleared} WHERE id = %s",
                [reason, episode_id],
            )
        row = await db.row("SELECT * FROM episodes WHERE id = %s", [episode_id])
        assert row is not None
        return rows.episode_from_row(row, db.read_time)


async def first_parts(db: Session, episode_ids: Sequence[int]) -> dict[int, str]:
    member, ids = db.one_of(episode_ids)
    found = await db.rows(
        "SELECT episode_id, min(message_ts) AS ts FROM ledger"
        f" WHERE episode_id {member} GROUP BY episode_id",
        [ids],
    )
    return {int(row["episode_id"]): str(row["ts"]) for row in found}
