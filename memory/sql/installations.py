"""Installations and OAuth states; the first installation of an Enterprise Grid org's workspace
adopts what the bot kept of it (memory/README.md, *Privacy partitions and their keys*)."""

from __future__ import annotations

import json
from datetime import datetime

from memory.models import InstallationRecord
from memory.sql.session import Session

_WORKSPACE = "enterprise_id = %s AND team_id = %s"
_UNADOPTED = "team_id = %s AND enterprise_id = ''"
_LATEST_INSTALLER = " AND user_id <> '' ORDER BY installed_at DESC LIMIT 1"


async def save_installation(db: Session, record: InstallationRecord) -> None:
    workspace = [record.enterprise_id, record.team_id]
    data = json.dumps(record.data, separators=(",", ":"))
    async with db.transaction():
        new = await db.row(f"SELECT 1 FROM installations WHERE {_WORKSPACE}", workspace) is None
        await db.execute(
            "INSERT INTO installations (enterprise_id, team_id, user_id, data, installed_at)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (enterprise_id, team_id, user_id)"
            " DO UPDATE SET data = excluded.data, installed_at = excluded.installed_at",
            [*workspace, record.user_id, data, record.installed_at],
        )
        if new and record.enterprise_id and record.team_id:
            # Adopted by the org; the workspace's lock keeps its writes out meanwhile.
            await db.lock_workspace(record.team_id)
            found = await db.rows(f"SELECT id FROM episodes WHERE {_UNADOPTED}", [record.team_id])
            async with db.refiling([row["id"] for row in found]):
                for table in ("episodes", "wisdom"):
                    await db.execute(
                        f"UPDATE {table} SET enterprise_id = %s WHERE {_UNADOPTED}", workspace
                    )


async def find_installation(
    db: Session, enterprise_id: str, team_id: str, user_id: str | None
) -> InstallationRecord | None:
    which, user = (_LATEST_INSTALLER, []) if user_id is None else (" AND user_id = %s", [user_id])
    row = await db.row(
        f"SELECT * FROM installations WHERE {_WORKSPACE}{which}", [enterprise_id, team_id, *user]
    )
    if row is None:
        return None
    read = {"data": json.loads(row["data"]), "installed_at": db.read_time(row["installed_at"])}
    return InstallationRecord.model_validate({**row, **read})


async def delete_installations(
    db: Session, enterprise_id: str, team_id: str, user_id: str | None = None
) -> int:
    which, user = ("", []) if user_id is None else (" AND user_id = %s", [user_id])
    async with db.transaction():
        deleted = await db.execute(
            f"DELETE FROM installations WHERE {_WORKSPACE}{which}", [enterprise_id, team_id, *user]
        )
    if deleted:
        await db.scrub()  # the tokens leave what the database keeps besides its tables
    return deleted


async def issue_oauth_state(db: Session, state: str, expires_at: datetime, now: datetime) -> None:
    async with db.transaction():
        await db.execute("DELETE FROM oauth_states WHERE expires_at <= %s", [now])
        issued = "INSERT INTO oauth_states (state, expires_at) VALUES (%s, %s)"
        await db.execute(issued, [state, expires_at])


async def consume_oauth_state(db: Session, state: str, now: datetime) -> bool:
    async with db.transaction():
        row = await db.row(
            "DELETE FROM oauth_states WHERE state = %s RETURNING expires_at", [state]
        )
    return row is not None and db.read_time(row["expires_at"]) > now
