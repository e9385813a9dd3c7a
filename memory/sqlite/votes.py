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
from memory.sqlite.codec import to_db_time
from memory.sqlite.episodes import queue_for_score
from memory.sqlite.fence import forgotten_since
from memory.sqlite.fts import reindexing

__all__ = ["apply_vote", "settle_status"]


def _first(db: Database, sql: str, params: list[Any]) -> dict[str, Any] | None:
    return next(iter(db.query(sql, params)), None)


def settle_status(db: Database, episode_id: int, config: MemoryConfig) -> EpisodeStatus:
    """Derive the episode's status from its votes and store it if it changed.

    A changed status drops the lesson and importance, which described the old verdict.
    """
    episode = _first(db, "SELECT status, requester_id FROM episodes WHERE id = ?", [episode_id])
    if episode is None:
        return EpisodeStatus.PENDING
    only_requester = "" if config.anyone_may_vote else "AND voter_id = :requester"
    latest = _first(
        db,
        f"SELECT vote, at FROM votes WHERE episode_id = :episode {only_requester}"
        " ORDER BY at DESC, id DESC LIMIT 1",
        {"episode": episode_id, "requester": episode["requester_id"]},
    )
    status = status_for(Vote(latest["vote"]) if latest else None)
    if status != episode["status"]:
        with reindexing(db, episode_id):
            db.execute(
                "UPDATE episodes SET status = ?, validated_at = ?, lesson = NULL,"
                " importance = NULL WHERE id = ?",
                [status.value, latest["at"] if latest else None, episode_id],
            )
            queue_for_score(db, episode_id, EpisodeStatus(episode["status"]), status, config)
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
        if previous is not None and previous["vote"] == ballot.vote and previous["at"] == at:
            return "this click was already counted"
        db.execute(
            "DELETE FROM votes WHERE episode_id = ? AND voter_id = ? AND reaction = ?",
            [episode_id, event.voter_id, BUTTON],
        )
    cursor = db.execute(
        "INSERT OR IGNORE INTO votes (episode_id, voter_id, reaction, vote, at)"
        " VALUES (?, ?, ?, ?, ?)",
        [episode_id, event.voter_id, ballot.slot, ballot.vote.value, at],
    )
    return None if cursor.rowcount == 1 else "this reaction was already counted"


def _remove(db: Database, episode_id: int, event: VoteEvent, ballot: Ballot) -> str | None:
    cursor = db.execute(
        "DELETE FROM votes WHERE episode_id = ? AND voter_id = ? AND reaction = ?",
        [episode_id, event.voter_id, ballot.slot],
    )
    return None if cursor.rowcount else "there was no such vote to remove"


def apply_vote(db: Database, event: VoteEvent, config: MemoryConfig) -> VoteOutcome:
    """Apply one reaction or button event; every vote that cannot count is a no-op."""
    ballot = ballot_for(event, config)
    if ballot is None:
        return VoteOutcome(applied=False, reason="not a feedback reaction")
    with db.atomic():
        episode = _first(
            db,
            "SELECT episodes.id, episodes.requester_id, episodes.status, ledger.expires_at"
            " FROM ledger JOIN episodes ON episodes.id = ledger.episode_id"
            " WHERE ledger.channel_id = ? AND ledger.message_ts = ?",
            [event.channel_id, event.message_ts],
        )
        if episode is None:
            return untracked()
        episode_id: int = episode["id"]
        refused = refusal(
            event,
            config,
            episode_id=episode_id,
            requester_id=episode["requester_id"],
            status=EpisodeStatus(episode["status"]),
            window_closed=episode["expires_at"] <= to_db_time(event.at),
        )
        if refused is not None:
            return refused
        if forgotten_since(db, event.voter_id, event.at):
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
                status=EpisodeStatus(episode["status"]),
            )
        status = settle_status(db, episode_id, config)
    return counted(event, episode_id, status)
