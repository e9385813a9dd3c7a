"""Why a person 👎'd an answer of theirs: asking once, and keeping what they said.

That a person was asked about an answer is a claim (:func:`memory.sqlite.counters.claim`)
of a key naming the answer: a keyed hash, kept as long as the answer can be voted on."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlite_utils import Database

from memory.models import Episode
from memory.sqlite.codec import episode_from_row, to_db_time
from memory.sqlite.counters import claim
from memory.sqlite.fence import forgotten_since
from memory.sqlite.fts import reindexing
from memory.sqlite.transactions import transaction

__all__ = ["ask_reason_once", "awaiting_reason", "first_parts", "give_reason"]

_THEIR_FAILURE = "id = ? AND requester_id = ? AND status = 'failure'"


def _episode(db: Database, episode_id: int) -> Episode:
    return episode_from_row(next(db.query("SELECT * FROM episodes WHERE id = ?", [episode_id])))


def ask_reason_once(
    db: Database, episode_id: int, user_id: str, at: datetime, claim_key: str
) -> Episode | None:
    with transaction(db):
        rows = list(
            db.query(
                f"SELECT * FROM episodes WHERE {_THEIR_FAILURE} AND reason IS NULL",
                [episode_id, user_id],
            )
        )
        if not rows:
            return None
        episode = episode_from_row(rows[0])
        first = claim(db, [claim_key], at, episode.scope.team_id)
        return episode if first else None


def awaiting_reason(
    db: Database, channel_id: str, thread_ts: str, user_id: str, since: datetime
) -> Episode | None:
    rows = list(
        db.query(
            "SELECT * FROM episodes WHERE channel_id = ? AND thread_ts = ? AND requester_id = ?"
            " AND status = 'failure' AND reason IS NULL AND validated_at >= ?"
            " AND EXISTS (SELECT 1 FROM votes WHERE votes.episode_id = episodes.id"
            " AND voter_id = episodes.requester_id AND vote = 'down')"
            " ORDER BY validated_at DESC, id DESC LIMIT 1",
            [channel_id, thread_ts, user_id, to_db_time(since)],
        )
    )
    return episode_from_row(rows[0]) if rows else None


def give_reason(
    db: Database, episode_id: int, user_id: str, reason: str, at: datetime
) -> Episode | None:
    with transaction(db):
        theirs = db.execute(f"SELECT 1 FROM episodes WHERE {_THEIR_FAILURE}", [episode_id, user_id])
        if theirs.fetchone() is None or forgotten_since(db, user_id, at):
            return None
        with reindexing(db, episode_id):  # the lesson leaves the index until it is redrafted
            db.execute(
                "UPDATE episodes SET reason = ?, lesson = NULL WHERE id = ?", [reason, episode_id]
            )
        return _episode(db, episode_id)


def first_parts(db: Database, episode_ids: Sequence[int]) -> dict[int, str]:
    rows = db.execute(
        "SELECT episode_id, min(message_ts) FROM ledger"
        " WHERE episode_id IN (SELECT value FROM json_each(?)) GROUP BY episode_id",
        [f"[{','.join(str(int(id_)) for id_ in episode_ids)}]"],
    )
    return {int(row[0]): str(row[1]) for row in rows}
