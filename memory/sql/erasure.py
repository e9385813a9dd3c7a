"""Showing a person everything kept about them, and erasing it (memory/README.md, *What
erasure leaves on disk*)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory.config import MemoryConfig
from memory.models import ExportedVote, ForgetReport, UserExport, WorkspaceReport
from memory.sql.episodes import list_wisdom, read_episodes
from memory.sql.fence import erase_messages, record_forgetting, workspace_subject
from memory.sql.session import Session
from memory.sql.votes import settle_status


async def _count(db: Session, sql: str, params: list[Any]) -> int:
    [row] = await db.rows(f"SELECT count(*) AS n FROM ({sql}) AS counted", params)
    return int(row["n"])


async def _unfile(db: Session, column: str, owner: str, cast: bool = False) -> dict[str, int]:
    """Ready the episodes whose ``column`` is ``owner`` to go (unindexed, replies fenced off);
    how many there are, their ledger rows, and votes on them (``cast``: and by ``owner``)."""
    own = f"SELECT id FROM episodes WHERE {column} = %s"
    ids = [row["id"] for row in await db.rows(own, [owner])]
    ledger = await db.rows(
        f"SELECT channel_id, message_ts FROM ledger WHERE episode_id IN ({own})", [owner]
    )
    await erase_messages(db, [(row["channel_id"], row["message_ts"]) for row in ledger])
    await db.unindex(ids)
    votes, params = f"SELECT 1 FROM votes WHERE episode_id IN ({own})", [owner]
    if cast:
        votes, params = f"{votes} OR voter_id = %s", [owner, owner]
    return {"episodes": len(ids), "ledger": len(ledger), "votes": await _count(db, votes, params)}


async def forget_user(
    db: Session, user_id: str, at: datetime, config: MemoryConfig
) -> ForgetReport:
    """Their episodes take their ledger rows and everyone's votes on them along (cascade);
    what stays is the fence and the claims, keyed hashes holding nothing they said."""
    async with db.transaction():
        await db.lock_person(user_id)
        counts = await _unfile(db, "requester_id", user_id, cast=True)
        # Votes they cast on other people's exchanges decided those statuses too (in
        # order: PostgreSQL locks each episode's row).
        others_voted = await db.rows(
            "SELECT DISTINCT votes.episode_id FROM votes JOIN episodes"
            " ON episodes.id = votes.episode_id"
            " WHERE votes.voter_id = %s AND episodes.requester_id != %s"
            " ORDER BY votes.episode_id",
            [user_id, user_id],
        )
        await db.execute("DELETE FROM episodes WHERE requester_id = %s", [user_id])
        await db.execute("DELETE FROM votes WHERE voter_id = %s", [user_id])
        for kind in ("wisdom", "questions"):
            counts[kind] = await db.execute(f"DELETE FROM {kind} WHERE user_id = %s", [user_id])
        for row in others_voted:
            await settle_status(db, row["episode_id"], config)
        await record_forgetting(db, user_id, at)
    await db.scrub()
    return ForgetReport(user_id=user_id, counts=counts)


async def forget_workspace(db: Session, team_id: str, at: datetime) -> WorkspaceReport:
    """Everything kept of the workspace, once every write about its people begun before ends."""
    workspace = db.digest(workspace_subject(team_id))
    async with db.transaction():
        await db.lock_workspace(team_id)
        counts = await _unfile(db, "team_id", team_id)
        await db.execute("DELETE FROM episodes WHERE team_id = %s", [team_id])
        for kind, column, value in (
            ("wisdom", "team_id", team_id),
            ("claims", "workspace", workspace),
            ("installations", "team_id", team_id),
            ("questions", "team_id", team_id),
        ):
            counts[kind] = await db.execute(f"DELETE FROM {kind} WHERE {column} = %s", [value])
        await record_forgetting(db, workspace_subject(team_id), at)
    await db.scrub()
    return WorkspaceReport(team_id=team_id, counts=counts)


async def forget_episode(db: Session, user_id: str, episode_id: int) -> bool:
    async with db.transaction():
        mine = "SELECT 1 FROM episodes WHERE id = %s AND requester_id = %s"
        owned = await db.row(mine, [episode_id, user_id])
        if owned is not None:
            await db.unindex([episode_id])
            await db.execute("DELETE FROM episodes WHERE id = %s", [episode_id])
    if owned is not None:
        await db.scrub()
    return owned is not None


async def withdraw_exchange(db: Session, episode_id: int) -> bool:
    async with db.transaction():
        await db.unindex([episode_id])
        deleted = await db.row("DELETE FROM episodes WHERE id = %s RETURNING status", [episode_id])
    if deleted is not None and deleted["status"] != "pending":
        await db.scrub()  # a pending exchange was never indexed
    return deleted is not None


async def forget_wisdom(db: Session, user_id: str, note_id: int) -> bool:
    mine = "DELETE FROM wisdom WHERE id = %s AND user_id = %s"
    if deleted := await db.execute(mine, [note_id, user_id]):
        await db.scrub()
    return bool(deleted)


async def export_user(db: Session, user_id: str, team_id: str | None = None) -> UserExport:
    workspace = "" if team_id is None else " AND episodes.team_id = %s"
    params = [user_id] if team_id is None else [user_id, team_id]
    mine = f"episodes.requester_id = %s{workspace}"
    return UserExport(
        user_id=user_id,
        episodes=await read_episodes(
            db, f"SELECT * FROM episodes WHERE {mine} ORDER BY created_at, id", params
        ),
        ledger_entries=await _count(
            db,
            f"SELECT 1 FROM ledger JOIN episodes ON episodes.id = ledger.episode_id WHERE {mine}",
            params,
        ),
        votes=[
            ExportedVote.model_validate({**row, "at": db.read_time(row["at"])})
            for row in await db.rows(
                "SELECT votes.episode_id, reaction, vote, at FROM votes"
                " JOIN episodes ON episodes.id = votes.episode_id"
                f" WHERE votes.voter_id = %s{workspace} ORDER BY at, votes.id",
                params,
            )
        ],
        wisdom=await list_wisdom(db, user_id, team_id),
    )
