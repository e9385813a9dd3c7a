"""Rank recall's candidates by relevance, recency and importance, within a budget.

Pure functions, independent of where episodes are stored; relevance fuses the full-text
and semantic scores (:mod:`memory.fusion`); the weights and their meaning are documented
on :class:`memory.RecallWeights`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel

from memory.config import HybridRecall, RecallWeights
from memory.fusion import fused_relevance, min_max
from memory.models import Episode, RecalledEpisode
from memory.text import estimate_tokens

__all__ = [
    "UNSCORED_IMPORTANCE",
    "Candidate",
    "fit_budget",
    "importance_score",
    "rank",
    "recency_score",
    "relevance_scores",
    "token_estimate",
]

UNSCORED_IMPORTANCE = 5
"""The importance assumed for an episode nobody has scored yet: the middle of 1..10."""


class Candidate(BaseModel):
    """An episode a search found: its BM25 score (lower is better) when the full-text
    search found it, its cosine with the question when it has a vector."""

    episode: Episode
    bm25: float | None = None
    cosine: float | None = None


def relevance_scores(bm25_scores: Sequence[float]) -> list[float]:
    """Min-max normalised ``-bm25``: the best candidate 1.0, the worst 0.0.

    A single candidate, or candidates that all score the same, are all fully relevant.
    """
    return min_max([-score for score in bm25_scores])


def recency_score(validated_at: datetime, now: datetime, half_life: timedelta) -> float:
    """``0.5 ** (age / half_life)``: 1.0 when just validated, halving every half-life."""
    age = max(now - validated_at, timedelta(0))
    return 0.5 ** (age / half_life)


def importance_score(importance: int | None) -> float:
    return (importance if importance is not None else UNSCORED_IMPORTANCE) / 10


def rank(
    candidates: Sequence[Candidate],
    *,
    now: datetime,
    weights: RecallWeights,
    hybrid: HybridRecall | None = None,
) -> list[RecalledEpisode]:
    """Candidates scored by the weighted sum, best first."""
    relevances = fused_relevance(
        [None if candidate.bm25 is None else -candidate.bm25 for candidate in candidates],
        [candidate.cosine for candidate in candidates],
        hybrid or HybridRecall(),
    )
    recalled = []
    for candidate, relevance in zip(candidates, relevances, strict=True):
        episode = candidate.episode
        recency = recency_score(
            episode.validated_at or episode.created_at, now, weights.recency_half_life
        )
        importance = importance_score(episode.importance)
        score = (
            weights.relevance * relevance
            + weights.recency * recency
            + weights.importance * importance
        )
        recalled.append(
            RecalledEpisode(
                episode=episode,
                score=score,
                relevance=relevance,
                recency=recency,
                importance=importance,
            )
        )
    recalled.sort(key=lambda item: (-item.score, -item.relevance, -item.episode.id))
    return recalled


def token_estimate(episode: Episode) -> int:
    """A rough token count (four characters a token) of what recall puts in a prompt."""
    return estimate_tokens(episode.question + episode.answer + (episode.lesson or ""))


def fit_budget(
    ranked: Sequence[RecalledEpisode], *, limit: int, token_budget: int
) -> list[RecalledEpisode]:
    """The best ``limit`` episodes, in order, while their total token estimate fits.

    The best episode is always kept, even alone over budget: one memory beats none.
    """
    kept: list[RecalledEpisode] = []
    used = 0
    for item in ranked[:limit]:
        cost = token_estimate(item.episode)
        if kept and used + cost > token_budget:
            break
        kept.append(item)
        used += cost
    return kept
