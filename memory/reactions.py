"""Which reactions are votes, and what a set of votes makes of an episode.

Pure functions over :class:`memory.MemoryConfig`, shared by every backend.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from memory.config import MemoryConfig
from memory.models import EpisodeStatus, Vote, VoteEvent, VoteOutcome

BUTTON = "button"
"""The ``reaction`` of a feedback-button click; one slot per voter, a new click replaces it."""


class Ballot(BaseModel):
    """A vote event reduced to what is stored: the voter's slot on the episode and its vote.

    A voter has one slot per distinct emoji (adding the same reaction twice is one vote)
    and a single slot for the feedback buttons.
    """

    model_config = ConfigDict(frozen=True)

    slot: str
    vote: Vote


def base_emoji(name: str) -> str:
    """``+1::skin-tone-3`` -> ``+1``; colons around a name are dropped too."""
    return name.strip().strip(":").split("::", 1)[0]


def vote_for_emoji(name: str, config: MemoryConfig) -> Vote | None:
    """The vote an emoji casts, or None for every emoji that is not feedback."""
    emoji = base_emoji(name)
    if emoji in config.positive_reactions:
        return Vote.UP
    if emoji in config.negative_reactions:
        return Vote.DOWN
    return None


def ballot_for(event: VoteEvent, config: MemoryConfig) -> Ballot | None:
    """The ballot a vote event adds or removes, or None when the event is not a vote."""
    if event.reaction == BUTTON:
        return Ballot(slot=BUTTON, vote=event.vote) if event.vote is not None else None
    vote = vote_for_emoji(event.reaction, config)
    return Ballot(slot=base_emoji(event.reaction), vote=vote) if vote is not None else None


def status_for(latest_vote: Vote | None) -> EpisodeStatus:
    """The status the latest still-present counting vote gives an episode."""
    if latest_vote is None:
        return EpisodeStatus.PENDING
    return EpisodeStatus.SUCCESS if latest_vote is Vote.UP else EpisodeStatus.FAILURE


def untracked() -> VoteOutcome:
    """The outcome of a reaction on a message the ledger does not hold (never the bot's,
    or already purged)."""
    return VoteOutcome(applied=False, reason="not a message the bot is tracking")


def refusal(
    event: VoteEvent,
    config: MemoryConfig,
    *,
    episode_id: int,
    requester_id: str,
    status: EpisodeStatus,
    window_closed: bool,
) -> VoteOutcome | None:
    """Why a vote on a tracked answer cannot count, judged before anything is written;
    None when it may. Every backend applies these same rules, in this order."""
    if window_closed:
        return VoteOutcome(
            applied=False, reason="the feedback window has closed", episode_id=episode_id
        )
    if not config.anyone_may_vote and event.voter_id != requester_id:
        return VoteOutcome(
            applied=False,
            reason="only the person who asked can validate this answer",
            episode_id=episode_id,
            status=status,
        )
    return None


def counted(event: VoteEvent, episode_id: int, status: EpisodeStatus) -> VoteOutcome:
    """The outcome of a vote that was stored (or removed), with the status it settled."""
    return VoteOutcome(
        applied=True,
        reason="vote recorded" if event.added else "vote removed",
        episode_id=episode_id,
        status=status,
    )
