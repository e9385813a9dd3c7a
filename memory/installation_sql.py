"""The SQL of the installations and OAuth states, written once for both backends.

The two backends agree on all of it (``ON CONFLICT ... DO UPDATE``, ``RETURNING``); they
differ only in their parameter markers, so it is written with ``%s`` (PostgreSQL's) and
SQLite's module swaps them for ``?``, and in how a time is stored, so each backend passes
its own.
"""

from __future__ import annotations

import json
from typing import Any

from memory.models import InstallationRecord

__all__ = [
    "CONSUME_STATE",
    "DELETE_EXPIRED_STATES",
    "DELETE_USER",
    "DELETE_WORKSPACE",
    "FIND_LATEST",
    "FIND_USER",
    "INSERT_STATE",
    "SAVE",
    "record_from_row",
    "save_params",
]

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
INSERT_STATE = "INSERT INTO oauth_states (state, expires_at) VALUES (%s, %s)"
DELETE_EXPIRED_STATES = "DELETE FROM oauth_states WHERE expires_at <= %s"
CONSUME_STATE = "DELETE FROM oauth_states WHERE state = %s RETURNING expires_at"


def save_params(record: InstallationRecord, installed_at: Any) -> list[Any]:
    """The parameters of :data:`SAVE`, the time as the backend stores it."""
    data = json.dumps(record.data, separators=(",", ":"))
    return [record.enterprise_id, record.team_id, record.user_id, data, installed_at]


def record_from_row(row: dict[str, Any], installed_at: Any) -> InstallationRecord:
    return InstallationRecord(
        enterprise_id=row["enterprise_id"],
        team_id=row["team_id"],
        user_id=row["user_id"],
        data=json.loads(row["data"]),
        installed_at=installed_at,
    )
