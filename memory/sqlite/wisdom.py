"""Wisdom notes: what consolidation distilled from one person's episodes in one scope."""

from __future__ import annotations

from datetime import datetime

from sqlite_utils import Database

from memory.models import Scope, WisdomNote
from memory.sqlite.codec import to_db_time, wisdom_from_row
from memory.sqlite.fence import forgotten_since
from memory.sqlite.transactions import transaction

__all__ = ["list_wisdom", "replace_wisdom", "wisdom_for"]

_SCOPE_AND_USER = (
    "enterprise_id = ? AND team_id = ? AND channel_id = ? AND kind = ? AND user_id = ?"
)


def _params(scope: Scope, user_id: str) -> list[str]:
    return [scope.enterprise_id, scope.team_id, scope.channel_id, scope.kind.value, user_id]


def wisdom_for(db: Database, scope: Scope, user_id: str) -> list[WisdomNote]:
    rows = db.query(
        f"SELECT * FROM wisdom WHERE {_SCOPE_AND_USER} ORDER BY id", _params(scope, user_id)
    )
    return [wisdom_from_row(row) for row in rows]


def replace_wisdom(
    db: Database,
    scope: Scope,
    user_id: str,
    notes: list[str],
    *,
    episode_count: int,
    at: datetime,
) -> list[WisdomNote]:
    """Replace the person's notes in ``scope`` with ``notes``, distilled by work that began
    at ``at``; nothing is written (and [] returned) when they were forgotten since."""
    with transaction(db):
        if forgotten_since(db, user_id, at, scope.team_id):
            return []
        db.execute(f"DELETE FROM wisdom WHERE {_SCOPE_AND_USER}", _params(scope, user_id))
        for text in notes:
            db.execute(
                "INSERT INTO wisdom (enterprise_id, team_id, channel_id, kind, user_id, text,"
                " episode_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [*_params(scope, user_id), text, episode_count, to_db_time(at)],
            )
        return wisdom_for(db, scope, user_id)


def list_wisdom(db: Database, user_id: str, team_id: str | None = None) -> list[WisdomNote]:
    """A person's notes (in workspace ``team_id``)."""
    where, params = (
        ("user_id = ?", [user_id])
        if team_id is None
        else (
            "user_id = ? AND team_id = ?",
            [user_id, team_id],
        )
    )
    rows = db.query(f"SELECT * FROM wisdom WHERE {where} ORDER BY id", params)
    return [wisdom_from_row(row) for row in rows]
