"""Which reactions are votes, and what a set of votes makes of an episode."""

from __future__ import annotations

from typing import NamedTuple

from memory.config import MemoryConfig
from memory.models import EpisodeStatus, Vote, VoteEvent

BUTTON = "button"
"""The ``reaction`` of a feedback-button click; one slot per voter, a new click replaces it."""


class Ballot(NamedTuple):
    """A vote event reduced to what is stored: the voter's slot on the episode (one per
    distinct emoji, so the same reaction twice is one vote, and one for the buttons) and
    its vote."""

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
