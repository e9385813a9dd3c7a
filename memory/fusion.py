"""One relevance from two searches: full-text (BM25) and semantic (cosine of embeddings).

Pure functions over the candidates either search found; the settings are documented on
:class:`memory.HybridRecall`.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.config import Fusion, HybridRecall

RRF_K = 60
"""The constant of reciprocal rank fusion (Cormack et al., 2009)."""


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


def _ranks(values: Sequence[float | None]) -> list[int | None]:
    """1 for the best present value, 2 for the next...; None when absent."""
    order = sorted(
        (index for index, value in enumerate(values) if value is not None),
        key=lambda index: -(values[index] or 0.0),
    )
    ranks: list[int | None] = [None] * len(values)
    for rank, index in enumerate(order, start=1):
        ranks[index] = rank
    return ranks


def _rrf(lexical: Sequence[float | None], semantic: Sequence[float | None]) -> list[float]:
    fused = [0.0] * len(lexical)
    for ranks in (_ranks(lexical), _ranks(semantic)):
        for index, rank in enumerate(ranks):
            if rank is not None:
                fused[index] += 1 / (RRF_K + rank)
    best = max(fused, default=0.0)
    return [value / best if best else 0.0 for value in fused]


def fused_relevance(
    lexical: Sequence[float | None], semantic: Sequence[float | None], settings: HybridRecall
) -> list[float]:
    """The relevance (0..1) of each candidate from its full-text goodness (``-bm25``,
    higher is better) and its cosine, either None when that search did not score it."""
    if settings.fusion is Fusion.RRF:
        return _rrf(lexical, semantic)
    share = settings.semantic
    if all(value is None for value in semantic):
        share = 0.0  # one search alone: its own normalised score
    elif all(value is None for value in lexical):
        share = 1.0
    return [
        (1 - share) * lex + share * sem
        for lex, sem in zip(min_max(lexical), min_max(semantic), strict=True)
    ]
