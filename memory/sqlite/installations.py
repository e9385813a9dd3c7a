"""Installations and OAuth states in SQLite (the SQL is :mod:`memory.installation_sql`)."""

from __future__ import annotations

from datetime import datetime

from sqlite_utils import Database

from memory import installation_sql as sql
from memory.models import InstallationRecord
from memory.sqlite.codec import from_db_time, to_db_time
from memory.sqlite.erasure import scrub
from memory.sqlite.fts import file_episodes, unindex_episodes
from memory.sqlite.transactions import transaction

__all__ = [
    "consume_oauth_state",
    "delete_installations",
    "find_installation",
    "issue_oauth_state",
    "save_installation",
]


def _q(statement: str) -> str:
    """SQLite's parameter markers in place of PostgreSQL's."""
    return statement.replace("%s", "?")


def save_installation(db: Database, record: InstallationRecord) -> None:
    with transaction(db):
        workspace = [record.enterprise_id, record.team_id]
        new = db.execute(_q(sql.INSTALLED), workspace).fetchone() is None
        db.execute(_q(sql.SAVE), sql.save_params(record, to_db_time(record.installed_at)))
        if new and record.enterprise_id and record.team_id:
            _adopt(db, record.enterprise_id, record.team_id)


def _adopt(db: Database, enterprise_id: str, team_id: str) -> None:
    """Move the workspace's episodes and notes kept without its org into the org's scopes,
    re-filed under their keys."""
    ids = [row[0] for row in db.execute(_q(sql.UNADOPTED), [team_id])]
    unindex_episodes(db, ids)  # under the keys they were filed with
    db.execute(_q(sql.ADOPT_EPISODES), [enterprise_id, team_id])
    db.execute(_q(sql.ADOPT_WISDOM), [enterprise_id, team_id])
    file_episodes(db, ids)


def find_installation(
    db: Database, enterprise_id: str, team_id: str, user_id: str | None
) -> InstallationRecord | None:
    if user_id is None:
        rows = db.query(_q(sql.FIND_LATEST), [enterprise_id, team_id])
    else:
        rows = db.query(_q(sql.FIND_USER), [enterprise_id, team_id, user_id])
    row = next(iter(rows), None)
    return None if row is None else sql.record_from_row(row, from_db_time(row["installed_at"]))


def delete_installations(
    db: Database, enterprise_id: str, team_id: str, user_id: str | None
) -> int:
    with transaction(db):
        if user_id is None:
            deleted = db.execute(_q(sql.DELETE_WORKSPACE), [enterprise_id, team_id]).rowcount
        else:
            deleted = db.execute(_q(sql.DELETE_USER), [enterprise_id, team_id, user_id]).rowcount
    if deleted:
        scrub(db)  # the tokens leave the write-ahead log too
    return deleted


def issue_oauth_state(db: Database, state: str, expires_at: datetime, now: datetime) -> None:
    with transaction(db):
        db.execute(_q(sql.DELETE_EXPIRED_STATES), [to_db_time(now)])
        db.execute(_q(sql.INSERT_STATE), [state, to_db_time(expires_at)])


def consume_oauth_state(db: Database, state: str, now: datetime) -> bool:
    with transaction(db):
        row = db.execute(_q(sql.CONSUME_STATE), [state]).fetchone()
    return row is not None and from_db_time(row[0]) > now
