"""The recall score: relevance, recency and importance, best first, within a budget."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory import (
    ConversationKind,
    Episode,
    Fusion,
    HybridRecall,
    MemoryConfig,
    RecallRequest,
    RecallWeights,
    Scope,
)
from memory.ranking import (
    Candidate,
    context_sources,
    fit_budget,
    fused_relevance,
    importance_score,
    min_max,
    neighbours,
    rank,
    recency_score,
    related_neighbours,
    token_estimate,
)
from memory.vectors import most_similar
from tests.episodes import make_episode

NOW = datetime(2026, 5, 1, tzinfo=UTC)
SCOPE = Scope(team_id="T", channel_id="D", kind=ConversationKind.DM)


def episode(
    episode_id: int,
    *,
    validated_days_ago: float = 0,
    importance: int | None = None,
    question: str = "q",
    answer: str = "a",
    lesson: str | None = None,
) -> Episode:
    validated_at = NOW - timedelta(days=validated_days_ago)
    return make_episode(
        question,
        answer,
        id=episode_id,
        scope=SCOPE,
        requester_id="U",
        lesson=lesson,
        importance=importance,
        created_at=validated_at - timedelta(minutes=1),
        validated_at=validated_at,
    )


def _lexical_relevance(bm25_scores: list[float]) -> list[float]:
    """Relevance of candidates the full-text search alone found (bm25 lower is better)."""
    return fused_relevance(
        [-score for score in bm25_scores], [None] * len(bm25_scores), HybridRecall()
    )


def test_relevance_is_min_max_normalised_negated_bm25() -> None:
    assert _lexical_relevance([-9.0, -5.0, -1.0]) == [1.0, 0.5, 0.0]


def test_a_single_or_tied_candidate_is_fully_relevant() -> None:
    assert _lexical_relevance([-3.2]) == [1.0]
    assert _lexical_relevance([-2.0, -2.0]) == [1.0, 1.0]
    assert _lexical_relevance([]) == []


def test_recency_halves_every_half_life() -> None:
    half_life = timedelta(days=14)
    assert recency_score(NOW, NOW, half_life) == 1.0
    assert recency_score(NOW - timedelta(days=14), NOW, half_life) == pytest.approx(0.5)
    assert recency_score(NOW - timedelta(days=28), NOW, half_life) == pytest.approx(0.25)


def test_recency_of_a_future_validation_is_capped_at_one() -> None:
    assert recency_score(NOW + timedelta(days=3), NOW, timedelta(days=14)) == 1.0


def test_importance_is_a_tenth_of_the_score_and_middling_when_unscored() -> None:
    assert importance_score(9) == pytest.approx(0.9)
    assert importance_score(None) == pytest.approx(0.5)


def test_score_is_the_weighted_sum_of_the_three_terms() -> None:
    weights = RecallWeights(relevance=2.0, recency=0.5, importance=3.0)
    [only] = rank(
        [Candidate(episode=episode(1, validated_days_ago=14, importance=8), bm25=-4.0)],
        now=NOW,
        weights=weights,
    )
    assert (only.relevance, only.recency, only.importance) == pytest.approx((1.0, 0.5, 0.8))
    assert only.score == pytest.approx(2.0 * 1.0 + 0.5 * 0.5 + 3.0 * 0.8)


def test_rank_orders_best_first_and_recency_can_beat_relevance() -> None:
    old_exact = Candidate(episode=episode(1, validated_days_ago=70), bm25=-6.0)
    fresh_close = Candidate(episode=episode(2, validated_days_ago=0), bm25=-5.5)
    weak = Candidate(episode=episode(3, validated_days_ago=70), bm25=-1.0)
    weights = RecallWeights(recency=1.0, importance=1.0)
    ranked = rank([old_exact, fresh_close, weak], now=NOW, weights=weights)
    assert [item.episode.id for item in ranked] == [2, 1, 3]


def test_by_default_only_relevance_ranks() -> None:
    old_exact = Candidate(episode=episode(1, validated_days_ago=70, importance=1), bm25=-6.0)
    fresh_close = Candidate(episode=episode(2, validated_days_ago=0, importance=10), bm25=-5.5)
    ranked = rank([fresh_close, old_exact], now=NOW, weights=RecallWeights())
    assert [item.episode.id for item in ranked] == [1, 2]


def test_zero_weights_ignore_a_term() -> None:
    weights = RecallWeights(recency=0.0, importance=0.0)
    ranked = rank(
        [
            Candidate(episode=episode(1, validated_days_ago=90, importance=1), bm25=-8.0),
            Candidate(episode=episode(2, validated_days_ago=0, importance=10), bm25=-2.0),
        ],
        now=NOW,
        weights=weights,
    )
    assert [item.episode.id for item in ranked] == [1, 2]


def test_importance_breaks_a_relevance_and_recency_tie() -> None:
    ranked = rank(
        [
            Candidate(episode=episode(1, importance=2), bm25=-3.0),
            Candidate(episode=episode(2, importance=9), bm25=-3.0),
        ],
        now=NOW,
        weights=RecallWeights(recency=1.0, importance=1.0),
    )
    assert [item.episode.id for item in ranked] == [2, 1]


def test_neighbours_are_known_both_ways() -> None:
    adjacent = neighbours([(2, 1, 3), (7, None, 8), (9, None, None)])
    assert adjacent == {1: {2}, 2: {1, 3}, 3: {2}, 7: {8}, 8: {7}}


def test_an_episode_gains_a_share_of_its_best_neighbours_sum() -> None:
    strong = Candidate(episode=episode(1), bm25=-9.0)
    after_strong = Candidate(episode=episode(2), bm25=-3.0)
    alone = Candidate(episode=episode(3), bm25=-3.0)
    weakest = Candidate(episode=episode(4), bm25=-1.0)
    candidates = [strong, after_strong, alone, weakest]
    adjacent = neighbours([(1, None, 2)])
    hybrid = HybridRecall(semantic=0, context=0.5)

    without = rank(candidates, now=NOW, weights=RecallWeights(), hybrid=hybrid)
    ranked = rank(candidates, now=NOW, weights=RecallWeights(), hybrid=hybrid, adjacent=adjacent)

    assert [item.episode.id for item in without] == [1, 3, 2, 4]  # a tie: the later first
    assert [item.episode.id for item in ranked] == [1, 2, 3, 4]
    sums = {item.episode.id: item.score for item in without}
    scores = {item.episode.id: item.score for item in ranked}
    assert scores[2] == pytest.approx(sums[2] + 0.5 * sums[1])
    assert scores[1] == pytest.approx(sums[1] + 0.5 * sums[2])  # its own sum lent, no more
    assert scores[3] == pytest.approx(sums[3])


def test_the_context_comes_from_the_best_candidates_by_their_sums_alone() -> None:
    candidates = [Candidate(episode=episode(i), bm25=-float(i)) for i in range(1, 20)]
    request = RecallRequest(scope=SCOPE, requester_id="U", text="q", limit=2, now=NOW)
    lexical = MemoryConfig(hybrid=HybridRecall(semantic=0))
    assert context_sources(candidates, request, lexical) == [19, 18, 17, 16]
    off = MemoryConfig(hybrid=HybridRecall(semantic=0, context=0))
    assert context_sources(candidates, request, off) == []
    by_rank = MemoryConfig(hybrid=HybridRecall(fusion=Fusion.RRF))
    assert context_sources(candidates, request, by_rank) == []


def test_a_neighbour_joins_only_when_related_to_the_question_itself() -> None:
    found = [Candidate(episode=episode(1), bm25=-2.0)]
    adjacent = neighbours([(1, 2, 3), (5, 4, None)])
    cosines = {1: 0.9, 2: 0.35, 3: 0.1, 5: 0.5}  # 4 has no vector
    assert related_neighbours(adjacent, found, cosines, floor=0.3) == [2, 5]
    assert related_neighbours(adjacent, found, {}, floor=-1.0) == []


def test_token_estimate_counts_question_answer_and_lesson() -> None:
    assert token_estimate(episode(1, question="x" * 40, answer="y" * 40, lesson="z" * 20)) == 25


def _ranked(*sizes: int) -> list:
    candidates = [
        Candidate(episode=episode(i, answer="a" * (4 * size - 1)), bm25=-float(10 - i))
        for i, size in enumerate(sizes, start=1)
    ]
    return rank(candidates, now=NOW, weights=RecallWeights(recency=0, importance=0))


def test_fit_budget_keeps_the_best_until_the_budget_is_spent() -> None:
    ranked = _ranked(40, 40, 40, 5)
    kept = fit_budget(ranked, limit=5, token_budget=100)
    assert [item.episode.id for item in kept] == [1, 2]


def test_fit_budget_respects_the_limit() -> None:
    kept = fit_budget(_ranked(1, 1, 1, 1), limit=3, token_budget=10_000)
    assert [item.episode.id for item in kept] == [1, 2, 3]


def test_fit_budget_always_keeps_the_best_one() -> None:
    kept = fit_budget(_ranked(500, 1), limit=5, token_budget=10)
    assert [item.episode.id for item in kept] == [1]
    assert fit_budget([], limit=5, token_budget=10) == []


def test_min_max_scales_present_values_and_scores_absent_ones_zero() -> None:
    assert min_max([4.0, None, 2.0, 3.0]) == [1.0, 0.0, 0.0, 0.5]
    assert min_max([0.3, 0.3]) == [1.0, 1.0]
    assert min_max([None, None]) == [0.0, 0.0]


def test_score_fusion_weighs_each_search_by_the_semantic_share() -> None:
    settings = HybridRecall(semantic=0.25)
    # the first is the best full-text match, the second the best semantic one
    fused = fused_relevance([2.0, 1.0, None], [0.1, 0.5, 0.3], settings)
    assert fused == pytest.approx([0.75, 0.25, 0.125])


def test_a_candidate_found_by_both_searches_beats_one_found_by_either() -> None:
    fused = fused_relevance([2.0, 2.0, None], [0.6, None, 0.6], HybridRecall(semantic=0.5))
    assert fused[0] > fused[1]
    assert fused[0] > fused[2]


def test_one_search_alone_gives_its_own_normalised_score() -> None:
    settings = HybridRecall(semantic=0.5)
    assert fused_relevance([3.0, 1.0], [None, None], settings) == [1.0, 0.0]
    assert fused_relevance([None, None], [0.2, 0.4], settings) == pytest.approx([0.0, 1.0])


def test_reciprocal_rank_fusion_sums_inverse_ranks() -> None:
    settings = HybridRecall(fusion=Fusion.RRF)
    fused = fused_relevance([3.0, 2.0, None], [0.1, 0.9, 0.5], settings)
    # ranks: lexical 1, 2, -; semantic 3, 1, 2
    raw = [1 / 61 + 1 / 63, 1 / 62 + 1 / 61, 1 / 62]
    assert fused == pytest.approx([value / max(raw) for value in raw])


def test_most_similar_keeps_the_best_above_the_floor() -> None:
    cosines = {1: 0.2, 2: 0.9, 3: 0.5, 4: 0.45}
    assert most_similar(cosines, 2, floor=0.3) == [2, 3]
    assert most_similar(cosines, 5, floor=0.48) == [2, 3]
