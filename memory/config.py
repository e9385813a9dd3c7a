"""Tunable behaviour of the memory package, independent of where it is stored, and which
reactions are votes under it."""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum
from typing import NamedTuple

from pydantic import BaseModel, Field

from memory.models import EpisodeStatus, Vote, VoteEvent
from memory.privacy import Visibility


class RecallWeights(BaseModel):
    """Weights of the recall score, after Generative Agents (Park et al., 2023); README.md
    (*How recall ranks memories*) gives the formula."""

    relevance: float = Field(default=1.0, ge=0)
    recency: float = Field(default=0.0, ge=0)
    importance: float = Field(default=0.0, ge=0)
    recency_half_life: timedelta = timedelta(days=14)


class Fusion(StrEnum):
    """How the full-text and the semantic rankings become one."""

    SCORE = "score"
    """Each score min-max normalised over the candidates, then weighted and summed."""
    RRF = "rrf"
    """Reciprocal rank fusion: ``1 / (60 + rank)`` summed over both rankings."""


class HybridRecall(BaseModel):
    """How recall combines full-text (BM25) and semantic (embedding) search, and how much an
    episode gains from its neighbours (README.md, *How recall ranks memories*)."""

    semantic: float = Field(default=0.3, ge=0, le=1)
    fusion: Fusion = Fusion.SCORE
    candidates_per_result: int = Field(default=4, ge=1, le=20)
    min_similarity: float = Field(default=0.3, ge=-1, le=1)
    context: float = Field(default=0.5, ge=0, le=1)
    context_window: timedelta = Field(default=timedelta(hours=1), gt=timedelta(0))


class MemoryConfig(BaseModel):
    ledger_ttl: timedelta = timedelta(days=30)
    positive_reactions: frozenset[str] = frozenset({"+1", "thumbsup"})
    negative_reactions: frozenset[str] = frozenset({"-1", "thumbsdown"})
    anyone_may_vote: bool = False
    """When False (the default) only the person who asked can validate an answer."""
    share_channel_successes: bool = False
    """When True, a channel's successes are recalled for its members (:mod:`memory.privacy`)."""
    weights: RecallWeights = RecallWeights()
    hybrid: HybridRecall = HybridRecall()

    @property
    def visibility(self) -> Visibility:
        return Visibility(share_channel_successes=self.share_channel_successes)


BUTTON = "button"
"""The ``reaction`` of a feedback-button click; one slot per voter, a new click replaces it."""


class Ballot(NamedTuple):
    """A vote event as stored: the voter's slot on the episode (one per distinct emoji, so
    the same reaction twice is one vote, and one for the buttons) and its vote."""

    slot: str
    vote: Vote


def base_emoji(name: str) -> str:
    """``+1::skin-tone-3`` -> ``+1``; colons around a name are dropped too."""
    return name.strip().strip(":").split("::", 1)[0]


def vote_for_emoji(name: str, config: MemoryConfig) -> Vote | None:
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
