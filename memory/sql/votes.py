"""Votes on the bot's messages, and the episode status derived from them (memory/README.md,
*Votes in groups*)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory.config import BUTTON, Ballot, MemoryConfig, ballot_for, status_for
from memory.models import EpisodeStatus, Vote, VoteEvent, VoteOutcome
from memory.rows import utc
from memory.sql.fence import forgotten_from, forgotten_read
from memory.sql.session import Params, Session, placeholders

_Latest = tuple[Vote, datetime] | None
"""An episode's latest still-present counting vote and when it was cast (None: none)."""


@dataclass(eq=False)
class _Episode:
    """A voted episode as its group knows it, kept current: one object for all its messages."""

    id: int
    requester_id: str
    status: EpisodeStatus
    latest: _Latest

    def refusal(
        self, event: VoteEvent, closes: datetime, forgotten: datetime | None, anyone: bool
    ) -> VoteOutcome | None:
        """Why a vote on the episode cannot count, from what its group read (None: it may)."""
        at, status = utc(event.at), None
        if closes <= at:
            reason = "the feedback window has closed"
        elif not anyone and event.voter_id != self.requester_id:
            reason, status = "only the person who asked can validate this answer", self.status
        elif forgotten is not None and forgotten >= at:
            reason = "the voter was forgotten since"
        else:
            return None
        return VoteOutcome(applied=False, reason=reason, episode_id=self.id, status=status)

    async def settled(
        self, db: Session, event: VoteEvent, ballot: Ballot, no_op: str | None, config: MemoryConfig
    ) -> VoteOutcome:
        """The outcome of a vote written (``no_op`` None) or not, the episode settled after it."""
        if no_op is not None:
            return VoteOutcome(applied=False, reason=no_op, episode_id=self.id, status=self.status)
        # A vote only just stored is the latest unless one cast later is there (it has the
        # highest id, which breaks ties of time); any other change reads the latest again.
        at = utc(event.at)
        if event.added and (self.latest is None or at >= self.latest[1]):
            self.latest = (ballot.vote, at)
        else:
            self.latest = (await _latest_votes(db, [self.id], config))[self.id]
        self.status = await _settle(db, self.id, self.status, self.latest, config)
        reason = "vote recorded" if event.added else "vote removed"
        return VoteOutcome(applied=True, reason=reason, episode_id=self.id, status=self.status)


def _latest_read(where: str, params: list[Any], config: MemoryConfig) -> tuple[str, list[Any]]:
    """The read of the latest counting vote of each locked episode ``where`` picks: a statement
    of its own, as one that waited for a lock sees what committed meanwhile only in the next."""
    counting = "" if config.anyone_may_vote else " AND votes.voter_id = episodes.requester_id"
    latest = (
        "(SELECT votes.{} FROM votes WHERE votes.episode_id = episodes.id"
        f"{counting} ORDER BY votes.at DESC, votes.id DESC LIMIT 1)"
    )
    vote, at = latest.format("vote"), latest.format("at")
    return f"SELECT id, {vote} AS vote, {at} AS at FROM episodes WHERE {where}", params


def _latest_of(db: Session, found: list[dict[str, Any]]) -> dict[int, _Latest]:
    return {
        row["id"]: (Vote(row["vote"]), db.read_time(row["at"])) if row["vote"] else None
        for row in found
    }


async def _latest_votes(
    db: Session, episode_ids: Sequence[int], config: MemoryConfig
) -> dict[int, _Latest]:
    member, ids = db.one_of(episode_ids)
    return _latest_of(db, await db.rows(*_latest_read(f"id {member}", [ids], config)))


async def settle_status(db: Session, episode_id: int, config: MemoryConfig) -> None:
    row = await db.row(f"SELECT status FROM episodes WHERE id = %s{db.for_update}", [episode_id])
    if row is not None:
        latest = (await _latest_votes(db, [episode_id], config))[episode_id]
        await _settle(db, episode_id, EpisodeStatus(row["status"]), latest, config)


async def _settle(
    db: Session, episode_id: int, was: EpisodeStatus, latest: _Latest, config: MemoryConfig
) -> EpisodeStatus:
    """Store the status the latest vote implies if it changed, dropping the lesson,
    importance and reason, which described the old verdict (the episode's row is locked)."""
    status = status_for(latest[0] if latest else None)
    if status != was:
        async with db.restating(episode_id, was, status, config):
            await db.send(
                "UPDATE episodes SET status = %s, validated_at = %s, lesson = NULL,"
                f" reason = NULL, importance = NULL{db.lease_cleared} WHERE id = %s",
                [status.value, latest[1] if latest else None, episode_id],
            )
    return status


_INSERT = (
    "INSERT INTO votes (episode_id, voter_id, reaction, vote, at) VALUES {rows}"
    " ON CONFLICT (episode_id, voter_id, reaction) DO NOTHING"
)
_WRITES = {
    True: f"{_INSERT} RETURNING episode_id",
    False: "DELETE FROM votes WHERE (episode_id, voter_id, reaction) IN (VALUES {rows})"
    " RETURNING episode_id",
}
_NO_OP = {True: "this reaction was already counted", False: "there was no such vote to remove"}
"""By whether a vote is added: its statement, and why it is a no-op when it changed no row."""
CHUNK = 1_000  # votes one statement writes at most (well under either database's parameters)

_Waiting = dict[_Episode, tuple[int, VoteEvent, Ballot]]
"""Votes waiting to be written, by episode (one each): place in the group, event, ballot."""


async def _click(db: Session, episode_id: int, event: VoteEvent, ballot: Ballot) -> str | None:
    """Store a button's click in place of the voter's last one; why it is a no-op, or None."""
    key, at = [episode_id, event.voter_id, BUTTON], utc(event.at)
    where = "WHERE episode_id = %s AND voter_id = %s AND reaction = %s"
    previous = await db.row(f"SELECT vote, at FROM votes {where}", key)
    if previous and (previous["vote"], db.read_time(previous["at"])) == (ballot.vote.value, at):
        return "this click was already counted"
    await db.execute(f"DELETE FROM votes {where}", key)
    inserted = await db.execute(
        _INSERT.format(rows="(%s, %s, %s, %s, %s)"), [*key, ballot.vote.value, at]
    )
    return None if inserted == 1 else _NO_OP[True]


async def _read(
    db: Session, events: Sequence[VoteEvent], voters: set[str], config: MemoryConfig
) -> tuple[dict[str, datetime], dict[tuple[str, str], tuple[_Episode, datetime]]]:
    """When each voter was last forgotten, and each message's episode and the end of its
    feedback window, in three reads sent together (one round trip): the second locks the
    episodes' rows in the order of their ids, the third reads their latest votes."""
    messages = sorted({(event.channel_id, event.message_ts) for event in events})
    if not messages:
        return {}, {}
    pairs = ", ".join("(%s, %s)" for _ in messages)
    voted = f"(ledger.channel_id, ledger.message_ts) IN (VALUES {pairs})"
    keys = [value for message in messages for value in message]
    forgotten_found, found, latest_found = await db.rows_together(
        forgotten_read(db, voters),
        (
            "SELECT ledger.channel_id, ledger.message_ts, ledger.expires_at, episodes.id,"
            " episodes.requester_id, episodes.status FROM ledger"
            f" JOIN episodes ON episodes.id = ledger.episode_id WHERE {voted}"
            f" ORDER BY episodes.id{db.for_update}",
            keys,
        ),
        _latest_read(f"id IN (SELECT episode_id FROM ledger WHERE {voted})", keys, config),
    )
    latest = _latest_of(db, latest_found)
    moved = sorted({row["id"] for row in found} - latest.keys())
    if moved:  # a message's ledger row was pointed at another episode between the reads
        latest.update(await _latest_votes(db, moved, config))
    episodes = {
        row["id"]: _Episode(
            row["id"], row["requester_id"], EpisodeStatus(row["status"]), latest[row["id"]]
        )
        for row in found
    }
    return forgotten_from(db, voters, forgotten_found), {
        (row["channel_id"], row["message_ts"]): (
            episodes[row["id"]],
            db.read_time(row["expires_at"]),
        )
        for row in found
    }


async def _write(
    db: Session, waiting: _Waiting, outcomes: dict[int, VoteOutcome], config: MemoryConfig
) -> None:
    """Write the waiting votes in one round trip, each statement returning the episode of each
    row it wrote (a vote that changed nothing is missing), then settle each one's episode."""
    rows: dict[bool, list[tuple[Any, ...]]] = {True: [], False: []}
    for episode, (_, event, ballot) in waiting.items():
        row = (episode.id, event.voter_id, ballot.slot)
        rows[event.added].append((*row, ballot.vote.value, utc(event.at)) if event.added else row)
    writes: list[tuple[str, Params]] = []
    for added, sql in _WRITES.items():
        for start in range(0, len(rows[added]), CHUNK):
            chunk = rows[added][start : start + CHUNK]
            marks = ", ".join([f"({placeholders(len(chunk[0]))})"] * len(chunk))
            writes.append((sql.format(rows=marks), [value for row in chunk for value in row]))
    found = await db.rows_together(*writes) if writes else []
    written = {row["episode_id"] for rows in found for row in rows}
    for episode, (index, event, ballot) in waiting.items():
        no_op = None if episode.id in written else _NO_OP[event.added]
        outcomes[index] = await episode.settled(db, event, ballot, no_op, config)
    waiting.clear()


async def apply_votes(
    db: Session, events: Sequence[VoteEvent], config: MemoryConfig
) -> list[VoteOutcome]:
    """Apply the events in order in one unit of work: all commit, or none. Votes are written
    together up to the next vote on an episode one of them is on, or the next button click
    (which reads before it writes): each finds its episode as the votes before it left it."""
    ballots = [ballot_for(event, config) for event in events]
    cast = [event for event, ballot in zip(events, ballots, strict=True) if ballot is not None]
    voters = {event.voter_id for event in cast}
    outcomes: dict[int, VoteOutcome] = {}
    async with db.transaction():
        await db.lock_people(sorted(voters))
        forgotten, voted = await _read(db, cast, voters, config)
        waiting: _Waiting = {}
        for index, (event, ballot) in enumerate(zip(events, ballots, strict=True)):
            message = voted.get((event.channel_id, event.message_ts))
            if ballot is None or message is None:
                untracked = "not a message the bot is tracking"
                reason = "not a feedback reaction" if ballot is None else untracked
                outcomes[index] = VoteOutcome(applied=False, reason=reason)
                continue
            episode, closes = message
            click = ballot.slot == BUTTON and event.added
            if click or episode in waiting:
                await _write(db, waiting, outcomes, config)
            forgot = forgotten.get(event.voter_id)
            refused = episode.refusal(event, closes, forgot, config.anyone_may_vote)
            if refused is not None:
                outcomes[index] = refused
            elif click:
                no_op = await _click(db, episode.id, event, ballot)
                outcomes[index] = await episode.settled(db, event, ballot, no_op, config)
            else:
                waiting[episode] = (index, event, ballot)
        await _write(db, waiting, outcomes, config)
    return [outcomes[index] for index in range(len(events))]
