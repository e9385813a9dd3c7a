"""Votes on the bot's messages, and the episode status derived from them.

An episode's status is never set directly: it is whatever the latest still-present
counting vote says (PENDING when none is left), so adding, repeating and removing
reactions in any order always leaves the status the votes imply.
"""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database

from memory.config import MemoryConfig
from memory.models import EpisodeStatus, Vote, VoteEvent, VoteOutcome
from memory.reactions import BUTTON, Ballot, ballot_for, counted, refusal, status_for, untracked
from memory.sql import fence
from memory.sqlite.codec import to_db_time
from memory.sqlite.fts import reindexing
from memory.sqlite.reflection_queue import queue_for_score
from memory.sqlite.session import shared
from memory.sqlite.transactions import transaction

__all__ = ["apply_vote", "settle_status"]

_fence = shared(fence)
"""The erasure fence's verbs, as this database thread runs them."""


def _first(db: Database, sql: str, params: list[Any]) -> tuple[Any, ...] | None:
    row: tuple[Any, ...] | None = db.conn.execute(sql, params).fetchone()
    return row


def settle_status(db: Database, episode_id: int, config: MemoryConfig) -> EpisodeStatus:
    """Derive the episode's status from its votes and store it if it changed.

    A changed status drops the lesson, importance and reason, which described the old
    verdict.
    """
    episode = _first(db, "SELECT status, requester_id FROM episodes WHERE id = ?", [episode_id])
    if episode is None:
        return EpisodeStatus.PENDING
    return _settle(db, episode_id, EpisodeStatus(episode[0]), episode[1], config)


def _settle(
    db: Database, episode_id: int, was: EpisodeStatus, requester_id: str, config: MemoryConfig
) -> EpisodeStatus:
    """:func:`settle_status` of an episode whose status and asker are known. Its index
    entries are filed later, in a batch (see :mod:`memory.sqlite.fts`)."""
    latest = _first(
        db,
        "SELECT vote, at FROM votes WHERE episode_id = ?"
        + ("" if config.anyone_may_vote else " AND voter_id = ?")
        + " ORDER BY at DESC, id DESC LIMIT 1",
        [episode_id] if config.anyone_may_vote else [episode_id, requester_id],
    )
    status = status_for(Vote(latest[0]) if latest else None)
    if status != was:
        with reindexing(db, episode_id, later=True, indexed=was is not EpisodeStatus.PENDING):
            db.conn.execute(
                "UPDATE episodes SET status = ?, validated_at = ?, lesson = NULL, reason = NULL,"
                " importance = NULL WHERE id = ?",
                [status.value, latest[1] if latest else None, episode_id],
            )
            queue_for_score(db, episode_id, was, status, config)
    return status


def _add(db: Database, episode_id: int, event: VoteEvent, ballot: Ballot) -> str | None:
    """Store the ballot; the reason it is a no-op, or None when it was stored."""
    at = to_db_time(event.at)
    if ballot.slot == BUTTON:
        previous = _first(
            db,
            "SELECT vote, at FROM votes WHERE episode_id = ? AND voter_id = ? AND reaction = ?",
            [episode_id, event.voter_id, BUTTON],
        )
        if previous is not None and previous[0] == ballot.vote and previous[1] == at:
            return "this click was already counted"
        db.execute(
            "DELETE FROM votes WHERE episode_id = ? AND voter_id = ? AND reaction = ?",
            [episode_id, event.voter_id, BUTTON],
        )
    cursor = db.conn.execute(
        "INSERT OR IGNORE INTO votes (episode_id, voter_id, reaction, vote, at)"
        " VALUES (?, ?, ?, ?, ?)",
        [episode_id, event.voter_id, ballot.slot, ballot.vote.value, at],
    )
    return None if cursor.rowcount == 1 else "this reaction was already counted"


def _remove(db: Database, episode_id: int, event: VoteEvent, ballot: Ballot) -> str | None:
    cursor = db.conn.execute(
        "DELETE FROM votes WHERE episode_id = ? AND voter_id = ? AND reaction = ?",
        [episode_id, event.voter_id, ballot.slot],
    )
    return None if cursor.rowcount else "there was no such vote to remove"


def apply_vote(db: Database, event: VoteEvent, config: MemoryConfig) -> VoteOutcome:
    """Apply one reaction or button event; every vote that cannot count is a no-op."""
    ballot = ballot_for(event, config)
    if ballot is None:
        return VoteOutcome(applied=False, reason="not a feedback reaction")
    with transaction(db, "vote"):
        episode = _first(
            db,
            "SELECT episodes.id, episodes.requester_id, episodes.status, ledger.expires_at"
            " FROM ledger JOIN episodes ON episodes.id = ledger.episode_id"
            " WHERE ledger.channel_id = ? AND ledger.message_ts = ?",
            [event.channel_id, event.message_ts],
        )
        if episode is None:
            return untracked()
        episode_id: int = episode[0]
        requester_id: str = episode[1]
        was = EpisodeStatus(episode[2])
        refused = refusal(
            event,
            config,
            episode_id=episode_id,
            requester_id=requester_id,
            status=was,
            window_closed=episode[3] <= to_db_time(event.at),
        )
        if refused is not None:
            return refused
        if _fence.forgotten_since(db, event.voter_id, event.at):
            return VoteOutcome(
                applied=False, reason="the voter was forgotten since", episode_id=episode_id
            )
        change = _add if event.added else _remove
        no_op = change(db, episode_id, event, ballot)
        if no_op is not None:
            return VoteOutcome(
                applied=False,
                reason=no_op,
                episode_id=episode_id,
                status=was,
            )
        status = _settle(db, episode_id, was, requester_id, config)
    return counted(event, episode_id, status)
