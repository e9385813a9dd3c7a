"""Showing a person everything kept about them, and erasing it.

Erasure deletes every row holding the person's data, in one transaction, and fences them
off (:mod:`memory.postgres.fence`). Unlike SQLite's ``secure_delete``, PostgreSQL cannot
overwrite what it deleted: the old row versions stay in their pages until ``VACUUM``
marks the space reusable and a later write reuses it, and the write-ahead log keeps them
until it is recycled. The README says exactly what that does and does not promise.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory.config import MemoryConfig
from memory.models import ExportedVote, ForgetReport, UserExport, WorkspaceReport
from memory.postgres.codec import episode_from_row
from memory.postgres.fence import erase_replies, lock_person, lock_workspace, record_forgetting
from memory.postgres.session import Session
from memory.postgres.votes import settle_status
from memory.sql.questions import forget_questions
from memory.sql.wisdom import list_wisdom
from memory.subjects import workspace_subject

__all__ = [
    "export_user",
    "forget_episode",
    "forget_user",
    "forget_wisdom",
    "forget_workspace",
    "withdraw_exchange",
]


async def _count(db: Session, sql: str, params: list[Any]) -> int:
    row = await db.row(f"SELECT count(*) AS n FROM ({sql}) AS counted", params)
    assert row is not None
    return int(row["n"])


async def forget_user(
    db: Session, user_id: str, at: datetime, config: MemoryConfig
) -> ForgetReport:
    """Delete every row holding the person's data; return how many of each kind.

    Their episodes take their ledger rows, full-text rows and everyone's votes on them
    along (cascade), and their questions not answered yet go too. What stays is the
    erasure fence (a keyed hash of the person's id, and ``at``) and the dedupe claims
    (keyed hashes of event ids), neither holding anything they said.
    """
    await lock_person(db, user_id)
    own_filter = "SELECT id FROM episodes WHERE requester_id = %s"
    counts = {
        "episodes": await _count(db, own_filter, [user_id]),
        "ledger": await _count(
            db, f"SELECT 1 FROM ledger WHERE episode_id IN ({own_filter})", [user_id]
        ),
        "votes": await _count(
            db,
            f"SELECT 1 FROM votes WHERE episode_id IN ({own_filter}) OR voter_id = %s",
            [user_id, user_id],
        ),
        "wisdom": await _count(db, "SELECT 1 FROM wisdom WHERE user_id = %s", [user_id]),
    }
    # Votes they cast on other people's exchanges decided those statuses too.
    others_voted = [
        row["episode_id"]
        for row in await db.rows(
            "SELECT DISTINCT votes.episode_id FROM votes JOIN episodes"
            " ON episodes.id = votes.episode_id"
            " WHERE votes.voter_id = %s AND episodes.requester_id != %s"
            " ORDER BY votes.episode_id",
            [user_id, user_id],
        )
    ]
    for row in await db.rows(
        f"SELECT channel_id, message_ts FROM ledger WHERE episode_id IN ({own_filter})", [user_id]
    ):
        await erase_replies(db, row["channel_id"], [row["message_ts"]])
    await db.execute("DELETE FROM episodes WHERE requester_id = %s", [user_id])
    await db.execute("DELETE FROM votes WHERE voter_id = %s", [user_id])
    await db.execute("DELETE FROM wisdom WHERE user_id = %s", [user_id])
    counts["questions"] = await forget_questions(db, user_id=user_id)
    for episode_id in others_voted:
        await settle_status(db, episode_id, config)
    await record_forgetting(db, user_id, at)
    return ForgetReport(user_id=user_id, counts=counts)


async def forget_workspace(db: Session, team_id: str, at: datetime) -> WorkspaceReport:
    """Delete everything kept of a workspace that uninstalled the app: its episodes (with
    their ledger, votes, full-text rows and vectors), notes, questions not answered yet,
    dedupe claims and installations; and fence it off. The workspace's lock waits for
    every write about one of its people that began before
    (:func:`memory.postgres.fence.lock_person`)."""
    await lock_workspace(db, team_id)
    workspace = db.digest(workspace_subject(team_id))
    own_filter = "SELECT id FROM episodes WHERE team_id = %s"
    counts = {
        "episodes": await _count(db, own_filter, [team_id]),
        "ledger": await _count(
            db, f"SELECT 1 FROM ledger WHERE episode_id IN ({own_filter})", [team_id]
        ),
        "votes": await _count(
            db, f"SELECT 1 FROM votes WHERE episode_id IN ({own_filter})", [team_id]
        ),
        "wisdom": await _count(db, "SELECT 1 FROM wisdom WHERE team_id = %s", [team_id]),
        "claims": await _count(db, "SELECT 1 FROM claims WHERE workspace = %s", [workspace]),
        "installations": await _count(
            db, "SELECT 1 FROM installations WHERE team_id = %s", [team_id]
        ),
    }
    for row in await db.rows(
        f"SELECT channel_id, message_ts FROM ledger WHERE episode_id IN ({own_filter})", [team_id]
    ):
        await erase_replies(db, row["channel_id"], [row["message_ts"]])
    await db.execute("DELETE FROM episodes WHERE team_id = %s", [team_id])
    await db.execute("DELETE FROM wisdom WHERE team_id = %s", [team_id])
    await db.execute("DELETE FROM claims WHERE workspace = %s", [workspace])
    await db.execute("DELETE FROM installations WHERE team_id = %s", [team_id])
    counts["questions"] = await forget_questions(db, team_id=team_id)
    await record_forgetting(db, workspace_subject(team_id), at)
    return WorkspaceReport(team_id=team_id, counts=counts)


async def forget_episode(db: Session, user_id: str, episode_id: int) -> bool:
    """Erase one of the person's own episodes (with its votes, ledger and index rows)."""
    deleted = await db.execute(
        "DELETE FROM episodes WHERE id = %s AND requester_id = %s", [episode_id, user_id]
    )
    return bool(deleted)


async def withdraw_exchange(db: Session, episode_id: int) -> bool:
    """Delete an exchange that turned out not to be an answer (a notice), with its ledger,
    index rows and any votes cast on it meanwhile; True when there was one."""
    return bool(await db.execute("DELETE FROM episodes WHERE id = %s", [episode_id]))


async def forget_wisdom(db: Session, user_id: str, note_id: int) -> bool:
    deleted = await db.execute(
        "DELETE FROM wisdom WHERE id = %s AND user_id = %s", [note_id, user_id]
    )
    return bool(deleted)


def _in_workspace(where: str, params: list[str], team_id: str | None) -> tuple[str, list[str]]:
    """``where`` narrowed to the episodes of workspace ``team_id``, when given."""
    if team_id is None:
        return where, params
    return f"{where} AND episodes.team_id = %s", [*params, team_id]


async def export_user(db: Session, user_id: str, team_id: str | None = None) -> UserExport:
    """Everything kept about the person (in workspace ``team_id``, when given)."""
    where, params = _in_workspace("episodes.requester_id = %s", [user_id], team_id)
    episodes = [
        episode_from_row(row)
        for row in await db.rows(
            f"SELECT * FROM episodes WHERE {where} ORDER BY created_at, id", params
        )
    ]
    ledger_entries = await _count(
        db,
        f"SELECT 1 FROM ledger JOIN episodes ON episodes.id = ledger.episode_id WHERE {where}",
        params,
    )
    voted, voted_params = _in_workspace("votes.voter_id = %s", [user_id], team_id)
    votes = [
        ExportedVote(
            episode_id=row["episode_id"],
            reaction=row["reaction"],
            vote=row["vote"],
            at=row["at"],
        )
        for row in await db.rows(
            "SELECT votes.episode_id, reaction, vote, at FROM votes"
            " JOIN episodes ON episodes.id = votes.episode_id"
            f" WHERE {voted} ORDER BY at, votes.id",
            voted_params,
        )
    ]
    return UserExport(
        user_id=user_id,
        episodes=episodes,
        wisdom=await list_wisdom(db, user_id, team_id),
        ledger_entries=ledger_entries,
        votes=votes,
    )
