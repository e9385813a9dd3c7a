"""The SQL of the installations and OAuth states, written once for both backends.

Saving the first installation of a workspace that belongs to an Enterprise Grid org
also moves what the bot kept of that workspace before (in single-token mode, without the
org) into the org's scopes, and re-files it under their keys (:mod:`memory.partitions`),
so a workspace that starts distributing the app keeps its memories.

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
    "ADOPT_EPISODES",
    "ADOPT_WISDOM",
    "CONSUME_STATE",
    "DELETE_EXPIRED_STATES",
    "DELETE_USER",
    "DELETE_WORKSPACE",
    "FIND_LATEST",
    "FIND_USER",
    "INSERT_STATE",
    "INSTALLED",
    "SAVE",
    "UNADOPTED",
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
INSTALLED = "SELECT 1 FROM installations WHERE enterprise_id = %s AND team_id = %s"
UNADOPTED = "SELECT id FROM episodes WHERE team_id = %s AND enterprise_id = ''"
ADOPT_EPISODES = "UPDATE episodes SET enterprise_id = %s WHERE team_id = %s AND enterprise_id = ''"
ADOPT_WISDOM = "UPDATE wisdom SET enterprise_id = %s WHERE team_id = %s AND enterprise_id = ''"
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
