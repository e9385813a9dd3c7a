"""Re-rank full-text candidates by relevance, recency and importance, within a budget.

Pure functions, independent of where episodes are stored; the weights and their meaning
are documented on :class:`memory.RecallWeights`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel

from memory.config import RecallWeights
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
    """An episode the full-text search found, with its BM25 score (lower is better)."""

    episode: Episode
    bm25: float


def relevance_scores(bm25_scores: Sequence[float]) -> list[float]:
    """Min-max normalised ``-bm25``: the best candidate 1.0, the worst 0.0.

    A single candidate, or candidates that all score the same, are all fully relevant.
    """
    goodness = [-score for score in bm25_scores]
    if not goodness:
        return []
    low, high = min(goodness), max(goodness)
    if high == low:
        return [1.0] * len(goodness)
    return [(value - low) / (high - low) for value in goodness]


def recency_score(validated_at: datetime, now: datetime, half_life: timedelta) -> float:
    """``0.5 ** (age / half_life)``: 1.0 when just validated, halving every half-life."""
    age = max(now - validated_at, timedelta(0))
    return 0.5 ** (age / half_life)


def importance_score(importance: int | None) -> float:
    return (importance if importance is not None else UNSCORED_IMPORTANCE) / 10


def rank(
    candidates: Sequence[Candidate], *, now: datetime, weights: RecallWeights
) -> list[RecalledEpisode]:
    """Candidates scored by the weighted sum, best first."""
    relevances = relevance_scores([candidate.bm25 for candidate in candidates])
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
