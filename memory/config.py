"""Tunable behaviour of the memory package, independent of where it is stored."""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

from pydantic import BaseModel, Field

from memory.privacy import Visibility


class RecallWeights(BaseModel):
    """Weights of the recall score, after Generative Agents (Park et al., 2023).

    ``score = relevance_weight * relevance + recency_weight * recency
    + importance_weight * importance``, each term scaled to [0, 1]:
    relevance is BM25 min-max normalised over the candidates, recency is
    ``0.5 ** (age / recency_half_life)`` since validation, importance is ``score / 10``
    (5 when not scored yet).
    """

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
    """How recall combines full-text (BM25) and semantic (embedding) search.

    ``relevance = (1 - semantic) * bm25_normalised + semantic * cosine_normalised`` over a
    pool of ``candidates_per_result`` candidates per result from each search; a candidate
    only the semantic search found is kept when its cosine is at least ``min_similarity``.
    ``semantic = 0`` is full-text recall alone, ``1`` semantic recall alone.

    A conversation stays on a topic for a few exchanges, and the exchange that answers a
    question often shares no word with it while the one before or after it does. So the
    exchanges right before and after each candidate (in its conversation, within
    ``context_window``) are candidates too, and each episode's score gains ``context``
    times the best score of those two neighbours (0: off; off under reciprocal rank fusion).
    """

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
    """When True, a channel's successful episodes are recalled for its other members too.

    Never applies to DMs, and never to failures or pending exchanges."""
    weights: RecallWeights = RecallWeights()
    hybrid: HybridRecall = HybridRecall()

    @property
    def visibility(self) -> Visibility:
        """Who may see what, under these settings (see :mod:`memory.privacy`)."""
        return Visibility(share_channel_successes=self.share_channel_successes)
