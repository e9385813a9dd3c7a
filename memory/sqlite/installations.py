"""Installations and OAuth states in SQLite (the SQL is :mod:`memory.installation_sql`)."""

from __future__ import annotations

from datetime import datetime

from sqlite_utils import Database

from memory import installation_sql as sql
from memory.models import InstallationRecord
from memory.sqlite.codec import from_db_time, to_db_time
from memory.sqlite.erasure import scrub
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
        db.execute(_q(sql.SAVE), sql.save_params(record, to_db_time(record.installed_at)))


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
