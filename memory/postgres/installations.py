"""Installations and OAuth states in PostgreSQL (the SQL is :mod:`memory.installation_sql`)."""

from __future__ import annotations

from datetime import datetime

from memory import installation_sql as sql
from memory.models import InstallationRecord
from memory.postgres.fence import lock_workspace
from memory.postgres.fts import reindex_episode
from memory.postgres.session import Session

__all__ = [
    "consume_oauth_state",
    "delete_installations",
    "find_installation",
    "issue_oauth_state",
    "save_installation",
]


async def save_installation(db: Session, record: InstallationRecord) -> None:
    workspace = [record.enterprise_id, record.team_id]
    new = await db.row(sql.INSTALLED, workspace) is None
    await db.execute(sql.SAVE, sql.save_params(record, record.installed_at))
    if new and record.enterprise_id and record.team_id:
        await _adopt(db, record.enterprise_id, record.team_id)


async def _adopt(db: Session, enterprise_id: str, team_id: str) -> None:
    """Move the workspace's episodes and notes kept without its org into the org's scopes,
    re-filed under their keys (the workspace's lock keeps its writes out meanwhile)."""
    await lock_workspace(db, team_id)
    ids = [row["id"] for row in await db.rows(sql.UNADOPTED, [team_id])]
    await db.execute(sql.ADOPT_EPISODES, [enterprise_id, team_id])
    await db.execute(sql.ADOPT_WISDOM, [enterprise_id, team_id])
    for episode_id in ids:
        await reindex_episode(db, episode_id)


async def find_installation(
    db: Session, enterprise_id: str, team_id: str, user_id: str | None
) -> InstallationRecord | None:
    if user_id is None:
        row = await db.row(sql.FIND_LATEST, [enterprise_id, team_id])
    else:
        row = await db.row(sql.FIND_USER, [enterprise_id, team_id, user_id])
    return None if row is None else sql.record_from_row(row, row["installed_at"])


async def delete_installations(
    db: Session, enterprise_id: str, team_id: str, user_id: str | None
) -> int:
    if user_id is None:
        return await db.execute(sql.DELETE_WORKSPACE, [enterprise_id, team_id])
    return await db.execute(sql.DELETE_USER, [enterprise_id, team_id, user_id])


async def issue_oauth_state(db: Session, state: str, expires_at: datetime, now: datetime) -> None:
    await db.execute(sql.DELETE_EXPIRED_STATES, [now])
    await db.execute(sql.INSERT_STATE, [state, expires_at])


async def consume_oauth_state(db: Session, state: str, now: datetime) -> bool:
    row = await db.row(sql.CONSUME_STATE, [state])
    return row is not None and row["expires_at"] > now
