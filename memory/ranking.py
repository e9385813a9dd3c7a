"""Rank recall's candidates by relevance, recency and importance, within a budget
(README.md, *How recall ranks memories*)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel

from memory.config import Fusion, HybridRecall, MemoryConfig, RecallWeights
from memory.models import Episode, RecalledEpisode, RecallRequest
from memory.text import estimate_tokens

UNSCORED_IMPORTANCE = 5
RRF_K = 60
"""The constant of reciprocal rank fusion (Cormack et al., 2009)."""
CONTEXT_SOURCES_PER_RESULT = 2
"""Recall reads the neighbours of this many of its best candidates per result asked for:
an exchange next to a weak candidate gains little from it."""


class Candidate(BaseModel):
    """An episode a search found, with its BM25 score (lower is better) when the full-text
    search found it and its cosine with the question when it has a vector."""

    episode: Episode
    bm25: float | None = None
    cosine: float | None = None


def visible_candidates(
    found: Sequence[tuple[Episode, float | None]],
    cosines: Mapping[int, float],
    request: RecallRequest,
    config: MemoryConfig,
) -> list[Candidate]:
    """The found ``(episode, bm25)`` that the asker may see, as candidates."""
    return [
        Candidate(episode=episode, bm25=bm25, cosine=cosines.get(episode.id))
        for episode, bm25 in found
        if config.visibility.may_see(episode, viewer_id=request.requester_id, scope=request.scope)
    ]


def min_max(values: Sequence[float | None]) -> list[float]:
    """Each value scaled to 0..1 over the present ones (all 1.0 when they are equal); an
    absent value (the search did not find that candidate) is 0."""
    present = [value for value in values if value is not None]
    if not present:
        return [0.0] * len(values)
    low, high = min(present), max(present)
    return [
        0.0 if value is None else 1.0 if high == low else (value - low) / (high - low)
        for value in values
    ]


def fused_relevance(
    lexical: Sequence[float | None], semantic: Sequence[float | None], settings: HybridRecall
) -> list[float]:
    """The relevance (0..1) of each candidate from its full-text goodness (``-bm25``,
    higher is better) and its cosine, either None when that search did not score it."""
    if settings.fusion is Fusion.RRF:
        fused = [0.0] * len(lexical)
        for values in (lexical, semantic):
            best_first = sorted(
                (-value, index) for index, value in enumerate(values) if value is not None
            )
            for rank, (_, index) in enumerate(best_first, start=1):
                fused[index] += 1 / (RRF_K + rank)
        best = max(fused, default=0.0)
        return [value / best if best else 0.0 for value in fused]
    share = settings.semantic
    if all(value is None for value in semantic):
        share = 0.0  # one search alone: its own normalised score
    elif all(value is None for value in lexical):
        share = 1.0
    return [
        (1 - share) * lex + share * sem
        for lex, sem in zip(min_max(lexical), min_max(semantic), strict=True)
    ]


def recency_score(validated_at: datetime, now: datetime, half_life: timedelta) -> float:
    return 0.5 ** (max(now - validated_at, timedelta(0)) / half_life)


def importance_score(importance: int | None) -> float:
    return (importance if importance is not None else UNSCORED_IMPORTANCE) / 10


def reads_context(config: MemoryConfig) -> bool:
    """Whether recall reads the candidates' neighbours (:func:`context_sources`)."""
    return config.hybrid.context != 0 and config.hybrid.fusion is not Fusion.RRF


def context_sources(
    candidates: Sequence[Candidate], request: RecallRequest, config: MemoryConfig
) -> list[int]:
    """The ids of the candidates whose neighbours recall reads: the
    :data:`CONTEXT_SOURCES_PER_RESULT` × ``limit`` best by the weighted sum alone. None
    under reciprocal rank fusion, whose relevances are all close to the best one's
    (``1 / (60 + rank)``): half a neighbour's would outweigh any difference between them."""
    if not reads_context(config):
        return []
    ranked = rank(candidates, now=request.now, weights=config.weights, hybrid=config.hybrid)
    return [item.episode.id for item in ranked[: CONTEXT_SOURCES_PER_RESULT * request.limit]]


def rank(
    candidates: Sequence[Candidate],
    *,
    now: datetime,
    weights: RecallWeights,
    hybrid: HybridRecall | None = None,
    adjacent: Mapping[int, Collection[int]] | None = None,
) -> list[RecalledEpisode]:
    """Candidates scored by the weighted sum, best first. With ``adjacent`` (see
    :func:`neighbours`), each score also gains ``hybrid.context`` times the best weighted sum
    among its neighbours: their own sums only, never what they gained from theirs."""
    hybrid = hybrid or HybridRecall()
    relevances = fused_relevance(
        [None if candidate.bm25 is None else -candidate.bm25 for candidate in candidates],
        [candidate.cosine for candidate in candidates],
        hybrid,
    )
    ranked = []
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
        ranked.append(
            RecalledEpisode(
                episode=episode,
                score=score,
                relevance=relevance,
                recency=recency,
                importance=importance,
            )
        )
    sums = {item.episode.id: item.score for item in ranked}
    for item in ranked:
        others = (adjacent or {}).get(item.episode.id, ())
        item.score += hybrid.context * max((sums.get(other, 0.0) for other in others), default=0.0)
    return sorted(ranked, key=lambda item: (-item.score, -item.relevance, -item.episode.id))


def neighbours(rows: Iterable[tuple[int, int | None, int | None]]) -> dict[int, set[int]]:
    """Episode id -> the ids of the episodes right before and after it, from rows of
    ``(id, before, after)``, both ways: an episode is its neighbour's neighbour even when
    only one of them was asked about."""
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
    """The ids in ``adjacent``, not candidates yet, whose cosine with the question reaches
    ``floor`` (none without vectors): a match never brings along the unrelated exchange
    that happened to follow it."""
    known = {candidate.episode.id for candidate in candidates}
    return [
        episode_id
        for episode_id in adjacent
        if episode_id not in known and cosines.get(episode_id, floor - 1) >= floor
    ]


def token_estimate(episode: Episode) -> int:
    return estimate_tokens(episode.question + episode.answer + (episode.lesson or ""))


def fit_budget(
    ranked: Sequence[RecalledEpisode], *, limit: int, token_budget: int
) -> list[RecalledEpisode]:
    """The best ``limit`` episodes, in order, while their token estimates fit the budget;
    the best is kept even alone over budget: one memory beats none."""
    kept: list[RecalledEpisode] = []
    used = 0
    for item in ranked[:limit]:
        cost = token_estimate(item.episode)
        if kept and used + cost > token_budget:
            break
        kept.append(item)
        used += cost
    return kept
