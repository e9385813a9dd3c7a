"""Votes on the bot's messages, and the episode status derived from them.

As in :mod:`memory.sqlite.votes`: an episode's status is whatever its latest still-present
counting vote says. Votes on one episode may arrive at different processes at once, so
applying one locks the episode's row first (``FOR UPDATE``): they apply one after the
other, each settling the status from every vote committed before it.
"""

from __future__ import annotations

from typing import Any

from memory.config import MemoryConfig
from memory.models import EpisodeStatus, Vote, VoteEvent, VoteOutcome
from memory.postgres.codec import episode_from_row, utc
from memory.postgres.fts import reindex
from memory.postgres.session import Session
from memory.reactions import BUTTON, Ballot, ballot_for, counted, refusal, status_for, untracked
from memory.sql.fence import forgotten_since

__all__ = ["apply_vote", "settle_status"]


def _row_status(row: dict[str, Any]) -> EpisodeStatus:
    return EpisodeStatus(row["status"])


async def settle_status(db: Session, episode_id: int, config: MemoryConfig) -> EpisodeStatus:
    """Derive the episode's status from its votes and store it if it changed.

    A changed status drops the lesson, importance and reason, which described the old
    verdict.
    """
    episode = await db.row(
        "SELECT status, requester_id FROM episodes WHERE id = %s FOR UPDATE", [episode_id]
    )
    if episode is None:
        return EpisodeStatus.PENDING
    return await _settle(db, episode_id, _row_status(episode), episode["requester_id"], config)


async def _settle(
    db: Session, episode_id: int, was: EpisodeStatus, requester_id: str, config: MemoryConfig
) -> EpisodeStatus:
    """:func:`settle_status` of an episode whose row this transaction has locked, and whose
    status and asker it read."""
    only_requester = "" if config.anyone_may_vote else "AND voter_id = %(requester)s"
    latest = await db.row(
        f"SELECT vote, at FROM votes WHERE episode_id = %(episode)s {only_requester}"
        " ORDER BY at DESC, id DESC LIMIT 1",
        {"episode": episode_id, "requester": requester_id},
    )
    status = status_for(Vote(latest["vote"]) if latest else None)
    if status != was:
        row = await db.row(
            "UPDATE episodes SET status = %s, validated_at = %s, lesson = NULL, reason = NULL,"
            " importance = NULL, reflection_holder = NULL, reflection_until = NULL"
            " WHERE id = %s RETURNING *",
            [status.value, latest["at"] if latest else None, episode_id],
        )
        assert row is not None, "the row is locked by this transaction"
        await reindex(db, episode_from_row(row), indexed=was is not EpisodeStatus.PENDING)
    return status


async def _add(db: Session, episode_id: int, event: VoteEvent, ballot: Ballot) -> str | None:
    """Store the ballot; the reason it is a no-op, or None when it was stored."""
    if ballot.slot == BUTTON:
        previous = await db.row(
            "SELECT vote, at FROM votes WHERE episode_id = %s AND voter_id = %s AND reaction = %s",
            [episode_id, event.voter_id, BUTTON],
        )
        if (
            previous is not None
            and previous["vote"] == ballot.vote.value
            and previous["at"] == event.at
        ):
            return "this click was already counted"
        await db.execute(
            "DELETE FROM votes WHERE episode_id = %s AND voter_id = %s AND reaction = %s",
            [episode_id, event.voter_id, BUTTON],
        )
    inserted = await db.execute(
        "INSERT INTO votes (episode_id, voter_id, reaction, vote, at)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (episode_id, voter_id, reaction) DO NOTHING",
        [episode_id, event.voter_id, ballot.slot, ballot.vote.value, event.at],
    )
    return None if inserted == 1 else "this reaction was already counted"


async def _remove(db: Session, episode_id: int, event: VoteEvent, ballot: Ballot) -> str | None:
    removed = await db.execute(
        "DELETE FROM votes WHERE episode_id = %s AND voter_id = %s AND reaction = %s",
        [episode_id, event.voter_id, ballot.slot],
    )
    return None if removed else "there was no such vote to remove"


async def apply_vote(db: Session, event: VoteEvent, config: MemoryConfig) -> VoteOutcome:
    """Apply one reaction or button event; every vote that cannot count is a no-op."""
    ballot = ballot_for(event, config)
    event = event.model_copy(update={"at": utc(event.at)})
    if ballot is None:
        return VoteOutcome(applied=False, reason="not a feedback reaction")
    await db.lock_person(event.voter_id)
    episode = await db.row(
        "SELECT episodes.id, episodes.requester_id, episodes.status, ledger.expires_at"
        " FROM ledger JOIN episodes ON episodes.id = ledger.episode_id"
        " WHERE ledger.channel_id = %s AND ledger.message_ts = %s"
        " FOR UPDATE OF episodes",
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
        status=_row_status(episode),
        window_closed=episode["expires_at"] <= event.at,
    )
    if refused is not None:
        return refused
    if await forgotten_since(db, event.voter_id, event.at):
        return VoteOutcome(
            applied=False, reason="the voter was forgotten since", episode_id=episode_id
        )
    change = _add if event.added else _remove
    no_op = await change(db, episode_id, event, ballot)
    if no_op is not None:
        return VoteOutcome(
            applied=False, reason=no_op, episode_id=episode_id, status=_row_status(episode)
        )
    settled = await _settle(db, episode_id, _row_status(episode), episode["requester_id"], config)
    return counted(event, episode_id, settled)
