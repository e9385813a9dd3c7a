"""Installations and OAuth states, written once for both backends.

Saving the first installation of a workspace that belongs to an Enterprise Grid org
also moves what the bot kept of that workspace before (in single-token mode, without the
org) into the org's scopes, and re-files it under their keys (:mod:`memory.privacy`),
so a workspace that starts distributing the app keeps its memories.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from memory.models import InstallationRecord
from memory.sql.session import Session

SAVE = (
    "INSERT INTO installations (enterprise_id, team_id, user_id, data, installed_at)"
    " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (enterprise_id, team_id, user_id)"
    " DO UPDATE SET data = excluded.data, installed_at = excluded.installed_at"
)
FIND_USER = "SELECT * FROM installations WHERE enterprise_id = %s AND team_id = %s AND user_id = %s"
FIND_LATEST = (
    "SELECT * FROM installations WHERE enterprise_id = %s AND team_id = %s AND user_id <> ''"
    " ORDER BY installed_at DESC LIMIT 1"
)
DELETE_USER = "DELETE FROM installations WHERE enterprise_id = %s AND team_id = %s AND user_id = %s"
DELETE_WORKSPACE = "DELETE FROM installations WHERE enterprise_id = %s AND team_id = %s"
INSTALLED = "SELECT 1 FROM installations WHERE enterprise_id = %s AND team_id = %s"
UNADOPTED = "SELECT id FROM episodes WHERE team_id = %s AND enterprise_id = ''"
ADOPT_EPISODES = "UPDATE episodes SET enterprise_id = %s WHERE team_id = %s AND enterprise_id = ''"
ADOPT_WISDOM = "UPDATE wisdom SET enterprise_id = %s WHERE team_id = %s AND enterprise_id = ''"
INSERT_STATE = "INSERT INTO oauth_states (state, expires_at) VALUES (%s, %s)"
DELETE_EXPIRED_STATES = "DELETE FROM oauth_states WHERE expires_at <= %s"
CONSUME_STATE = "DELETE FROM oauth_states WHERE state = %s RETURNING expires_at"


def _record(db: Session, row: dict[str, Any]) -> InstallationRecord:
    return InstallationRecord(
        enterprise_id=row["enterprise_id"],
        team_id=row["team_id"],
        user_id=row["user_id"],
        data=json.loads(row["data"]),
        installed_at=db.read_time(row["installed_at"]),
    )


async def save_installation(db: Session, record: InstallationRecord) -> None:
    async with db.transaction():
        workspace = [record.enterprise_id, record.team_id]
        new = await db.row(INSTALLED, workspace) is None
        data = json.dumps(record.data, separators=(",", ":"))
        await db.execute(SAVE, [*workspace, record.user_id, data, record.installed_at])
        if new and record.enterprise_id and record.team_id:
            await _adopt(db, record.enterprise_id, record.team_id)


async def _adopt(db: Session, enterprise_id: str, team_id: str) -> None:
    """Move the workspace's episodes and notes kept without its org into the org's scopes,
    re-filed under their keys (the workspace's lock keeps its writes out meanwhile)."""
    await db.lock_workspace(team_id)
    ids = [row["id"] for row in await db.rows(UNADOPTED, [team_id])]
    async with db.refiling(ids):
        await db.execute(ADOPT_EPISODES, [enterprise_id, team_id])
        await db.execute(ADOPT_WISDOM, [enterprise_id, team_id])


async def find_installation(
    db: Session, enterprise_id: str, team_id: str, user_id: str | None
) -> InstallationRecord | None:
    if user_id is None:
        row = await db.row(FIND_LATEST, [enterprise_id, team_id])
    else:
        row = await db.row(FIND_USER, [enterprise_id, team_id, user_id])
    return None if row is None else _record(db, row)


async def delete_installations(
    db: Session, enterprise_id: str, team_id: str, user_id: str | None = None
) -> int:
    async with db.transaction():
        if user_id is None:
            deleted = await db.execute(DELETE_WORKSPACE, [enterprise_id, team_id])
        else:
            deleted = await db.execute(DELETE_USER, [enterprise_id, team_id, user_id])
    if deleted:
        await db.scrub()  # the tokens leave what the database keeps besides its tables
    return deleted


async def issue_oauth_state(db: Session, state: str, expires_at: datetime, now: datetime) -> None:
    async with db.transaction():
        await db.execute(DELETE_EXPIRED_STATES, [now])
        await db.execute(INSERT_STATE, [state, expires_at])


async def consume_oauth_state(db: Session, state: str, now: datetime) -> bool:
    async with db.transaction():
        row = await db.row(CONSUME_STATE, [state])
    return row is not None and db.read_time(row["expires_at"]) > now
