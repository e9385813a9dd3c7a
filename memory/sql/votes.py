"""Votes on the bot's messages, and the episode status derived from them.

An episode's status is never set directly: it is whatever the latest still-present
counting vote says (PENDING when none is left), so adding, repeating and removing
reactions in any order always leaves the status the votes imply.

Votes on one episode may arrive at different processes at once (PostgreSQL), so applying
one locks the episode's row first (:attr:`Session.for_update`): they apply one after the
other, each settling the status from every vote committed before it. The votes waiting
together are applied in one unit of work (:func:`apply_votes`, from
:mod:`memory.sql.vote_queue`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memory.config import MemoryConfig
from memory.models import EpisodeStatus, Vote, VoteEvent, VoteOutcome
from memory.reactions import BUTTON, Ballot, ballot_for, counted, refusal, status_for, untracked
from memory.rows import utc
from memory.sql.fence import forgotten_since
from memory.sql.session import Session

__all__ = ["apply_vote", "apply_votes", "settle_status"]


async def settle_status(db: Session, episode_id: int, config: MemoryConfig) -> EpisodeStatus:
    """Derive the episode's status from its votes and store it if it changed.

    A changed status drops the lesson, importance and reason, which described the old
    verdict.
    """
    episode = await db.row(
        f"SELECT status, requester_id FROM episodes WHERE id = %s{db.for_update}", [episode_id]
    )
    if episode is None:
        return EpisodeStatus.PENDING
    was = EpisodeStatus(episode["status"])
    return await _settle(db, episode_id, was, episode["requester_id"], config)


async def _settle(
    db: Session, episode_id: int, was: EpisodeStatus, requester_id: str, config: MemoryConfig
) -> EpisodeStatus:
    """:func:`settle_status` of an episode whose row this unit of work has locked, and
    whose status and asker it read."""
    only_requester = "" if config.anyone_may_vote else " AND voter_id = %s"
    latest = await db.row(
        f"SELECT vote, at FROM votes WHERE episode_id = %s{only_requester}"
        " ORDER BY at DESC, id DESC LIMIT 1",
        [episode_id] if config.anyone_may_vote else [episode_id, requester_id],
    )
    status = status_for(Vote(latest["vote"]) if latest else None)
    if status != was:
        async with db.restating(episode_id, was, status, config):
            await db.execute(
                "UPDATE episodes SET status = %s, validated_at = %s, lesson = NULL,"
                f" reason = NULL, importance = NULL{db.lease_cleared} WHERE id = %s",
                [status.value, latest["at"] if latest else None, episode_id],
            )
    return status


async def _add(
    db: Session, episode_id: int, event: VoteEvent, ballot: Ballot, at: datetime
) -> str | None:
    """Store the ballot; the reason it is a no-op, or None when it was stored."""
    if ballot.slot == BUTTON:
        previous = await db.row(
            "SELECT vote, at FROM votes WHERE episode_id = %s AND voter_id = %s AND reaction = %s",
            [episode_id, event.voter_id, BUTTON],
        )
        if (
            previous is not None
            and previous["vote"] == ballot.vote.value
            and db.read_time(previous["at"]) == at
        ):
            return "this click was already counted"
        await db.execute(
            "DELETE FROM votes WHERE episode_id = %s AND voter_id = %s AND reaction = %s",
            [episode_id, event.voter_id, BUTTON],
        )
    inserted = await db.execute(
        "INSERT INTO votes (episode_id, voter_id, reaction, vote, at)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (episode_id, voter_id, reaction) DO NOTHING",
        [episode_id, event.voter_id, ballot.slot, ballot.vote.value, at],
    )
    return None if inserted == 1 else "this reaction was already counted"


async def _remove(
    db: Session, episode_id: int, event: VoteEvent, ballot: Ballot, at: datetime
) -> str | None:
    removed = await db.execute(
        "DELETE FROM votes WHERE episode_id = %s AND voter_id = %s AND reaction = %s",
        [episode_id, event.voter_id, ballot.slot],
    )
    return None if removed else "there was no such vote to remove"


async def apply_vote(db: Session, event: VoteEvent, config: MemoryConfig) -> VoteOutcome:
    """Apply one reaction or button event; every vote that cannot count is a no-op."""
    ballot = ballot_for(event, config)
    if ballot is None:
        return VoteOutcome(applied=False, reason="not a feedback reaction")
    at = utc(event.at)
    async with db.transaction():
        await db.lock_person(event.voter_id)
        episode = await db.row(
            "SELECT episodes.id, episodes.requester_id, episodes.status, ledger.expires_at"
            " FROM ledger JOIN episodes ON episodes.id = ledger.episode_id"
            f" WHERE ledger.channel_id = %s AND ledger.message_ts = %s{db.for_update}",
            [event.channel_id, event.message_ts],
        )
        if episode is None:
            return untracked()
        episode_id: int = episode["id"]
        was = EpisodeStatus(episode["status"])
        refused = refusal(
            event,
            config,
            episode_id=episode_id,
            requester_id=episode["requester_id"],
            status=was,
            window_closed=db.read_time(episode["expires_at"]) <= at,
        )
        if refused is not None:
            return refused
        if await forgotten_since(db, event.voter_id, at):
            return VoteOutcome(
                applied=False, reason="the voter was forgotten since", episode_id=episode_id
            )
        change = _add if event.added else _remove
        no_op = await change(db, episode_id, event, ballot, at)
        if no_op is not None:
            return VoteOutcome(applied=False, reason=no_op, episode_id=episode_id, status=was)
        status = await _settle(db, episode_id, was, episode["requester_id"], config)
    return counted(event, episode_id, status)


async def apply_votes(
    db: Session, events: Sequence[VoteEvent], config: MemoryConfig
) -> list[VoteOutcome]:
    """Apply the votes in order, in one unit of work: all of them commit, or none."""
    async with db.transaction():
        return [await apply_vote(db, event, config) for event in events]
