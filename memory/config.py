"""Tunable behaviour of the memory package, independent of where it is stored."""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, Field

from memory.visibility import Visibility

__all__ = ["MemoryConfig", "RecallWeights"]


class RecallWeights(BaseModel):
    """Weights of the recall score, after Generative Agents (Park et al., 2023).

    ``score = relevance_weight * relevance + recency_weight * recency
    + importance_weight * importance``, each term scaled to [0, 1]:
    relevance is BM25 min-max normalised over the candidates, recency is
    ``0.5 ** (age / recency_half_life)`` since validation, importance is ``score / 10``
    (5 when not scored yet).
    """

    relevance: float = Field(default=1.0, ge=0)
    recency: float = Field(default=1.0, ge=0)
    importance: float = Field(default=1.0, ge=0)
    recency_half_life: timedelta = timedelta(days=14)


class MemoryConfig(BaseModel):
    ledger_ttl: timedelta = timedelta(days=30)
    positive_reactions: frozenset[str] = frozenset({"+1", "thumbsup"})
    negative_reactions: frozenset[str] = frozenset({"-1", "thumbsdown"})
    anyone_may_vote: bool = False
    """When False (the default) only the person who asked can validate an answer."""
    share_channel_successes: bool = False
    """When True, a channel's successful episodes are recalled for its other members too.

    Never applies to DMs, and never to failures or pending exchanges."""
    weights: RecallWeights = RecallWeights()

    @property
    def visibility(self) -> Visibility:
        """Who may see what, under these settings (see :mod:`memory.visibility`)."""
        return Visibility(share_channel_successes=self.share_channel_successes)
