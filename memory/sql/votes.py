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
from typing import Any

from memory.config import MemoryConfig
from memory.models import EpisodeStatus, Vote, VoteEvent, VoteOutcome
from memory.reactions import BUTTON, Ballot, ballot_for, counted, refusal, status_for, untracked
from memory.rows import utc
from memory.sql.fence import forgotten_at
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


_Episode = dict[str, Any]
"""An episode as a group reads it: ``id``, ``requester_id``, ``status`` and its message's
``expires_at``."""


async def _episodes(db: Session, events: Sequence[VoteEvent]) -> dict[tuple[str, str], _Episode]:
    """The episode of each message voted on, by (channel, ts), its row locked until this
    work ends: all of them in one statement, in the order of their ids (two groups voting
    on some of the same episodes wait for each other rather than deadlock)."""
    messages = sorted({(event.channel_id, event.message_ts) for event in events})
    if not messages:
        return {}
    found = await db.rows(
        "SELECT ledger.channel_id, ledger.message_ts, episodes.id, episodes.requester_id,"
        " episodes.status, ledger.expires_at"
        " FROM ledger JOIN episodes ON episodes.id = ledger.episode_id"
        " WHERE (ledger.channel_id, ledger.message_ts)"
        f" IN (VALUES {', '.join('(%s, %s)' for _ in messages)})"
        f" ORDER BY episodes.id{db.for_update}",
        [value for message in messages for value in message],
    )
    return {(row["channel_id"], row["message_ts"]): row for row in found}


async def _apply(
    db: Session,
    event: VoteEvent,
    ballot: Ballot,
    episode: _Episode | None,
    forgotten: datetime | None,
    config: MemoryConfig,
) -> VoteOutcome:
    """Apply one vote of a group, given what the group read for it: its episode (whose
    ``status`` it keeps current) and when its voter was last forgotten."""
    if episode is None:
        return untracked()
    at = utc(event.at)
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
    if forgotten is not None and forgotten >= at:
        return VoteOutcome(
            applied=False, reason="the voter was forgotten since", episode_id=episode_id
        )
    change = _add if event.added else _remove
    no_op = await change(db, episode_id, event, ballot, at)
    if no_op is not None:
        return VoteOutcome(applied=False, reason=no_op, episode_id=episode_id, status=was)
    status = await _settle(db, episode_id, was, episode["requester_id"], config)
    episode["status"] = status.value
    return counted(event, episode_id, status)


async def apply_votes(
    db: Session, events: Sequence[VoteEvent], config: MemoryConfig
) -> list[VoteOutcome]:
    """Apply the reaction and button events in order, in one unit of work: all of them
    commit, or none. Every vote that cannot count is a no-op.

    What the votes read first is read for the whole group at once: the erasure fence's
    locks of their voters (:meth:`Session.lock_people`), then when each voter was last
    forgotten (a vote of someone forgotten since it was cast writes nothing), then their
    episodes' rows, locked."""
    ballots = [ballot_for(event, config) for event in events]
    cast = [event for event, ballot in zip(events, ballots, strict=True) if ballot is not None]
    voters = sorted({event.voter_id for event in cast})
    async with db.transaction():
        await db.lock_people(voters)
        forgotten = await forgotten_at(db, voters)
        episodes = await _episodes(db, cast)
        outcomes = []
        for event, ballot in zip(events, ballots, strict=True):
            if ballot is None:
                outcomes.append(VoteOutcome(applied=False, reason="not a feedback reaction"))
                continue
            episode = episodes.get((event.channel_id, event.message_ts))
            voter = forgotten.get(event.voter_id)
            outcomes.append(await _apply(db, event, ballot, episode, voter, config))
    return outcomes


async def apply_vote(db: Session, event: VoteEvent, config: MemoryConfig) -> VoteOutcome:
    """:func:`apply_votes` of one vote."""
    [outcome] = await apply_votes(db, [event], config)
    return outcome
