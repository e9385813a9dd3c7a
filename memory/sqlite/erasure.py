"""Showing a person everything kept about them, and erasing it without a trace.

Deleting rows is not enough to forget: SQLite keeps deleted text in free pages, and the
write-ahead log keeps old page images. ``secure_delete`` (set on connect) zeroes what a
delete frees, the full-text index removes a deleted row's postings in place (FTS5's
``secure-delete``, see :mod:`memory.sqlite.fts`), and every erasure ends with
:func:`scrub`, which empties the write-ahead log into the zeroed file.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlite_utils import Database

from memory.config import MemoryConfig
from memory.models import ExportedVote, ForgetReport, UserExport, WorkspaceReport
from memory.sql.questions import forget_questions
from memory.sql.wisdom import list_wisdom
from memory.sqlite.codec import episode_from_row, from_db_time
from memory.sqlite.fence import digest, erase_replies, record_forgetting
from memory.sqlite.fts import unindex_episodes
from memory.sqlite.session import SQLiteSession, run_to_end
from memory.sqlite.transactions import transaction
from memory.sqlite.votes import settle_status
from memory.subjects import workspace_subject

__all__ = [
    "export_user",
    "forget_episode",
    "forget_user",
    "forget_wisdom",
    "forget_workspace",
    "scrub",
    "withdraw_exchange",
]

logger = logging.getLogger(__name__)


def scrub(db: Database) -> None:
    """Empty the write-ahead log into the zeroed file."""
    busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        # Another connection (say, a CLI next to the running bot) is mid-read; the rows
        # are gone, and the old pages leave the log at the next complete checkpoint.
        logger.warning("erased rows; the write-ahead log could not be emptied yet")


def _count(db: Database, sql: str, params: list[str]) -> int:
    return int(next(db.query(f"SELECT count(*) AS n FROM ({sql})", params))["n"])


def forget_user(db: Database, user_id: str, at: datetime, config: MemoryConfig) -> ForgetReport:
    """Delete every row holding the person's data; return how many of each kind.

    Their episodes take their ledger rows and everyone's votes on them along (cascade).
    Their questions not answered yet go too. What stays is the erasure fence (a keyed
    hash of the person's id, and ``at``) and the dedupe claims (keyed hashes of event
    ids), neither holding anything they said.
    """
    with transaction(db):
        own_filter = "SELECT id FROM episodes WHERE requester_id = ?"
        own = [row["id"] for row in db.query(own_filter, [user_id])]
        counts = {
            "episodes": len(own),
            "ledger": _count(
                db, f"SELECT 1 FROM ledger WHERE episode_id IN ({own_filter})", [user_id]
            ),
            "votes": _count(
                db,
                f"SELECT 1 FROM votes WHERE episode_id IN ({own_filter}) OR voter_id = ?",
                [user_id, user_id],
            ),
            "wisdom": _count(db, "SELECT 1 FROM wisdom WHERE user_id = ?", [user_id]),
        }
        for row in list(
            db.query(
                f"SELECT channel_id, message_ts FROM ledger WHERE episode_id IN ({own_filter})",
                [user_id],
            )
        ):
            erase_replies(db, row["channel_id"], [row["message_ts"]])
        # Votes they cast on other people's exchanges decided those statuses too.
        others_voted = [
            row["episode_id"]
            for row in db.query(
                "SELECT DISTINCT votes.episode_id FROM votes JOIN episodes"
                " ON episodes.id = votes.episode_id"
                " WHERE votes.voter_id = ? AND episodes.requester_id != ?",
                [user_id, user_id],
            )
        ]
        unindex_episodes(db, own)
        db.execute("DELETE FROM episodes WHERE requester_id = ?", [user_id])
        db.execute("DELETE FROM votes WHERE voter_id = ?", [user_id])
        db.execute("DELETE FROM wisdom WHERE user_id = ?", [user_id])
        counts["questions"] = run_to_end(forget_questions(SQLiteSession(db), user_id=user_id))
        for episode_id in others_voted:
            settle_status(db, episode_id, config)
        record_forgetting(db, user_id, at)
    scrub(db)
    return ForgetReport(user_id=user_id, counts=counts)


def _in_workspace(where: str, params: list[str], team_id: str | None) -> tuple[str, list[str]]:
    """``where`` narrowed to the episodes of workspace ``team_id``, when given."""
    if team_id is None:
        return where, params
    return f"{where} AND episodes.team_id = ?", [*params, team_id]


def forget_workspace(db: Database, team_id: str, at: datetime) -> WorkspaceReport:
    """Delete everything kept of a workspace that uninstalled the app: its episodes (with
    their ledger rows, votes, index entries and vectors), notes, questions not answered
    yet, dedupe claims and installations; and fence it off as :func:`forget_user` fences
    a person."""
    workspace = digest(db, workspace_subject(team_id))
    with transaction(db):
        own_filter = "SELECT id FROM episodes WHERE team_id = ?"
        own = [row["id"] for row in db.query(own_filter, [team_id])]
        counts = {
            "episodes": len(own),
            "ledger": _count(
                db, f"SELECT 1 FROM ledger WHERE episode_id IN ({own_filter})", [team_id]
            ),
            "votes": _count(
                db, f"SELECT 1 FROM votes WHERE episode_id IN ({own_filter})", [team_id]
            ),
            "wisdom": _count(db, "SELECT 1 FROM wisdom WHERE team_id = ?", [team_id]),
            "claims": _count(db, "SELECT 1 FROM claims WHERE workspace = ?", [workspace]),
            "installations": _count(db, "SELECT 1 FROM installations WHERE team_id = ?", [team_id]),
        }
        for row in list(
            db.query(
                f"SELECT channel_id, message_ts FROM ledger WHERE episode_id IN ({own_filter})",
                [team_id],
            )
        ):
            erase_replies(db, row["channel_id"], [row["message_ts"]])
        unindex_episodes(db, own)
        db.execute("DELETE FROM episodes WHERE team_id = ?", [team_id])
        db.execute("DELETE FROM wisdom WHERE team_id = ?", [team_id])
        db.execute("DELETE FROM claims WHERE workspace = ?", [workspace])
        db.execute("DELETE FROM installations WHERE team_id = ?", [team_id])
        counts["questions"] = run_to_end(forget_questions(SQLiteSession(db), team_id=team_id))
        record_forgetting(db, workspace_subject(team_id), at)
    scrub(db)
    return WorkspaceReport(team_id=team_id, counts=counts)


def forget_episode(db: Database, user_id: str, episode_id: int) -> bool:
    """Erase one of the person's own episodes (with its votes and ledger rows)."""
    with transaction(db):
        owned = (
            db.execute(
                "SELECT 1 FROM episodes WHERE id = ? AND requester_id = ?", [episode_id, user_id]
            ).fetchone()
            is not None
        )
        if owned:
            unindex_episodes(db, [episode_id])
            db.execute("DELETE FROM episodes WHERE id = ?", [episode_id])
    if owned:
        scrub(db)
    return owned


def withdraw_exchange(db: Database, episode_id: int) -> bool:
    """Delete an exchange that turned out not to be an answer (a notice), with its ledger
    rows and any votes cast on it meanwhile; True when there was one."""
    with transaction(db):
        indexed = db.execute(
            "SELECT status != 'pending' FROM episodes WHERE id = ?", [episode_id]
        ).fetchone()
        unindex_episodes(db, [episode_id])
        db.execute("DELETE FROM episodes WHERE id = ?", [episode_id])
    if indexed and indexed[0]:
        scrub(db)
    return indexed is not None


def forget_wisdom(db: Database, user_id: str, note_id: int) -> bool:
    deleted = db.execute(
        "DELETE FROM wisdom WHERE id = ? AND user_id = ?", [note_id, user_id]
    ).rowcount
    if deleted:
        scrub(db)
    return bool(deleted)


def export_user(db: Database, user_id: str, team_id: str | None = None) -> UserExport:
    """Everything kept about the person (in workspace ``team_id``, when given)."""
    where, params = _in_workspace("episodes.requester_id = ?", [user_id], team_id)
    episodes = [
        episode_from_row(row)
        for row in db.query(f"SELECT * FROM episodes WHERE {where} ORDER BY created_at, id", params)
    ]
    ledger_entries = _count(
        db,
        f"SELECT 1 FROM ledger JOIN episodes ON episodes.id = ledger.episode_id WHERE {where}",
        params,
    )
    voted, voted_params = _in_workspace("votes.voter_id = ?", [user_id], team_id)
    votes = [
        ExportedVote(
            episode_id=row["episode_id"],
            reaction=row["reaction"],
            vote=row["vote"],
            at=from_db_time(row["at"]),
        )
        for row in db.query(
            "SELECT votes.episode_id, reaction, vote, at FROM votes"
            " JOIN episodes ON episodes.id = votes.episode_id"
            f" WHERE {voted} ORDER BY at, votes.id",
            voted_params,
        )
    ]
    return UserExport(
        user_id=user_id,
        episodes=episodes,
        wisdom=run_to_end(list_wisdom(SQLiteSession(db), user_id, team_id)),
        ledger_entries=ledger_entries,
        votes=votes,
    )
