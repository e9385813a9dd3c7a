"""Fusing full-text and semantic scores into one relevance."""

from __future__ import annotations

import pytest

from memory import Fusion, HybridRecall
from memory.fusion import fused_relevance, min_max
from memory.vectors import most_similar


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
