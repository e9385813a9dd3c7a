"""Wisdom notes: what consolidation distilled from one person's episodes in one scope."""

from __future__ import annotations

from datetime import datetime

from memory import rows
from memory.models import Scope, WisdomNote
from memory.sql.fence import forgotten_since
from memory.sql.session import Session

_SCOPE_AND_USER = (
    "enterprise_id = %s AND team_id = %s AND channel_id = %s AND kind = %s AND user_id = %s"
)


def _params(scope: Scope, user_id: str) -> list[str]:
    return [scope.enterprise_id, scope.team_id, scope.channel_id, scope.kind.value, user_id]


async def wisdom_for(db: Session, scope: Scope, user_id: str) -> list[WisdomNote]:
    found = await db.rows(
        f"SELECT * FROM wisdom WHERE {_SCOPE_AND_USER} ORDER BY id", _params(scope, user_id)
    )
    return [rows.wisdom_from_row(row, db.read_time) for row in found]


async def replace_wisdom(
    db: Session,
    scope: Scope,
    user_id: str,
    notes: list[str],
    *,
    episode_count: int,
    at: datetime,
) -> list[WisdomNote]:
    """Replace the person's notes in ``scope`` with ``notes``, distilled by work that began
    at ``at``; nothing is written (and [] returned) when they were forgotten since."""
    async with db.transaction():
        await db.lock_person(user_id, scope.team_id)
        if await forgotten_since(db, user_id, at, scope.team_id):
            return []
        await db.execute(f"DELETE FROM wisdom WHERE {_SCOPE_AND_USER}", _params(scope, user_id))
        for text in notes:
            await db.execute(
                "INSERT INTO wisdom (enterprise_id, team_id, channel_id, kind, user_id, text,"
                " episode_count, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                [*_params(scope, user_id), text, episode_count, at],
            )
        return await wisdom_for(db, scope, user_id)


async def list_wisdom(db: Session, user_id: str, team_id: str | None = None) -> list[WisdomNote]:
    """A person's notes (in workspace ``team_id``)."""
    where, params = "user_id = %s", [user_id]
    if team_id is not None:
        where, params = "user_id = %s AND team_id = %s", [user_id, team_id]
    found = await db.rows(f"SELECT * FROM wisdom WHERE {where} ORDER BY id", params)
    return [rows.wisdom_from_row(row, db.read_time) for row in found]
