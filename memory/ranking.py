"""Rank recall's candidates by relevance, recency and importance, within a budget.

Pure functions, independent of where episodes are stored; relevance fuses the full-text
and semantic scores (:mod:`memory.fusion`); the weights and their meaning are documented
on :class:`memory.RecallWeights`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

from pydantic import BaseModel

from memory.config import Fusion, HybridRecall, MemoryConfig, RecallWeights
from memory.fusion import fused_relevance
from memory.models import Episode, RecalledEpisode, RecallRequest
from memory.text import estimate_tokens

UNSCORED_IMPORTANCE = 5
"""The importance assumed for an episode nobody has scored yet: the middle of 1..10."""


CONTEXT_SOURCES_PER_RESULT = 2
"""Recall looks for the neighbours of this many of its best candidates per result asked
for: an exchange next to a weak candidate gains little from it."""


class Candidate(BaseModel):
    """An episode a search found: its BM25 score (lower is better) when the full-text
    search found it, its cosine with the question when it has a vector."""

    episode: Episode
    bm25: float | None = None
    cosine: float | None = None


def visible_candidates(
    found: Sequence[tuple[Episode, float | None]],
    cosines: Mapping[int, float],
    request: RecallRequest,
    config: MemoryConfig,
) -> list[Candidate]:
    """The found episodes (each with its BM25 score, None when the full-text search did
    not find it) that the asker may see, as candidates with their cosines."""
    return [
        Candidate(episode=episode, bm25=bm25, cosine=cosines.get(episode.id))
        for episode, bm25 in found
        if config.visibility.may_see(episode, viewer_id=request.requester_id, scope=request.scope)
    ]


def recency_score(validated_at: datetime, now: datetime, half_life: timedelta) -> float:
    """``0.5 ** (age / half_life)``: 1.0 when just validated, halving every half-life."""
    age = max(now - validated_at, timedelta(0))
    return 0.5 ** (age / half_life)


def importance_score(importance: int | None) -> float:
    return (importance if importance is not None else UNSCORED_IMPORTANCE) / 10


class _Scored(NamedTuple):
    candidate: Candidate
    relevance: float
    recency: float
    importance: float
    score: float


def _scored(
    candidates: Sequence[Candidate], now: datetime, weights: RecallWeights, hybrid: HybridRecall
) -> list[_Scored]:
    relevances = fused_relevance(
        [None if candidate.bm25 is None else -candidate.bm25 for candidate in candidates],
        [candidate.cosine for candidate in candidates],
        hybrid,
    )
    scored = []
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
        scored.append(_Scored(candidate, relevance, recency, importance, score))
    return scored


def reads_context(config: MemoryConfig) -> bool:
    """Whether recall reads the candidates' neighbours (:func:`context_sources`)."""
    return config.hybrid.context != 0 and config.hybrid.fusion is not Fusion.RRF


def context_sources(
    candidates: Sequence[Candidate], request: RecallRequest, config: MemoryConfig
) -> list[int]:
    """The ids of the candidates whose neighbours recall reads (see
    :class:`memory.HybridRecall`): the :data:`CONTEXT_SOURCES_PER_RESULT` × ``limit``
    best by the weighted sum alone. None when the context is off, and none under reciprocal
    rank fusion, whose relevances are all close to the best one's (``1 / (60 + rank)``):
    half a neighbour's would outweigh any difference between them."""
    if not reads_context(config):
        return []
    scored = _scored(candidates, request.now, config.weights, config.hybrid)
    scored.sort(key=lambda item: (-item.score, -item.relevance, -item.candidate.episode.id))
    count = CONTEXT_SOURCES_PER_RESULT * request.limit
    return [item.candidate.episode.id for item in scored[:count]]


def rank(
    candidates: Sequence[Candidate],
    *,
    now: datetime,
    weights: RecallWeights,
    hybrid: HybridRecall | None = None,
    adjacent: Mapping[int, Collection[int]] | None = None,
) -> list[RecalledEpisode]:
    """Candidates scored by the weighted sum, best first.

    With ``adjacent`` (episode id -> the ids of the episodes right before and after it in
    its conversation, see :func:`neighbours`), each score also gains ``hybrid.context``
    times the best weighted sum among those neighbours (see :class:`memory.HybridRecall`):
    an episode lends its own sum only, never what it gained from its own neighbours.
    """
    hybrid = hybrid or HybridRecall()
    scored = _scored(candidates, now, weights, hybrid)
    sums = {item.candidate.episode.id: item.score for item in scored}
    recalled = []
    for item in scored:
        episode = item.candidate.episode
        context = max(
            (sums.get(other, 0.0) for other in (adjacent or {}).get(episode.id, ())),
            default=0.0,
        )
        recalled.append(
            RecalledEpisode(
                episode=episode,
                score=item.score + hybrid.context * context,
                relevance=item.relevance,
                recency=item.recency,
                importance=item.importance,
            )
        )
    recalled.sort(key=lambda item: (-item.score, -item.relevance, -item.episode.id))
    return recalled


def neighbours(rows: Iterable[tuple[int, int | None, int | None]]) -> dict[int, set[int]]:
    """Episode id -> the ids of the episodes right before and after it, from rows of
    ``(id, before, after)`` (either None when there is none), both ways: an episode
    is its neighbour's neighbour even when only one of them was asked about."""
    found: dict[int, set[int]] = {}
    for episode_id, before, after in rows:
        for other in (before, after):
            if other is not None:
                found.setdefault(episode_id, set()).add(other)
                found.setdefault(other, set()).add(episode_id)
    return found


def related_neighbours(
    adjacent: Mapping[int, Collection[int]],
    candidates: Sequence[Candidate],
    cosines: Mapping[int, float],
    *,
    floor: float,
) -> list[int]:
    """The ids in ``adjacent`` that are not candidates yet and whose cosine with the
    question reaches ``floor``: a neighbour joins the candidates only when it is related
    to the question itself (none without vectors), so a match never brings along the
    unrelated exchange that happened to follow it."""
    known = {candidate.episode.id for candidate in candidates}
    return [
        episode_id
        for episode_id in adjacent
        if episode_id not in known and cosines.get(episode_id, floor - 1) >= floor
    ]


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
