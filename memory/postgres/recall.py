"""Recall: full-text and semantic candidates from the asker's own partitions, fused and
ranked within a budget.

The same searches as the SQLite backend's (:mod:`memory.sqlite.recall`): the question's
content words (:func:`memory.recall_query.search_terms`), joined by OR, long ones as
prefixes, matched in the rows of the asker's partitions (:mod:`memory.postgres.fts`),
``ts_rank`` standing in for BM25; and the vectors of the same rows, compared by brute force
(:func:`memory.vectors.nearest`), so the nearest neighbours are exact. One statement reads
both. Every candidate is checked against the episode's own columns and
:class:`memory.Visibility` before it is ranked.
"""

from __future__ import annotations

from datetime import timedelta

from memory.config import MemoryConfig
from memory.models import Episode, RecalledEpisode, RecallRequest
from memory.partitions import partition_keys
from memory.postgres.codec import episode_from_row
from memory.postgres.counters import increment
from memory.postgres.fts import RANK_WEIGHTS, folded_words
from memory.postgres.session import Session
from memory.ranking import (
    context_sources,
    fit_budget,
    neighbours,
    rank,
    related_neighbours,
    visible_candidates,
)
from memory.recall_query import MIN_PREFIX_LENGTH, search_terms
from memory.vectors import most_similar, nearest

__all__ = ["recall"]

# The tsquery is built in the database, so the question's words are stemmed by the same
# function as the indexed ones. The scope is enforced twice, as in SQLite: by the
# partition keys of the rows read, and by the episode's own columns.
_IN_SCOPE = """
  episodes.enterprise_id = %(enterprise_id)s
  AND episodes.team_id = %(team_id)s
  AND episodes.channel_id = %(channel_id)s
  AND episodes.kind = %(kind)s
  AND episodes.status IN ('success', 'failure')
  AND (
    episodes.requester_id = %(requester_id)s
    OR (%(shared)s AND episodes.kind = 'channel' AND episodes.status = 'success')
  )
"""

_SEARCH_SQL = f"""
WITH q AS (
  SELECT string_agg(
    quote_literal(memory_stem(w)) || CASE WHEN p THEN ':*' ELSE '' END, ' | '
  )::tsquery AS query
  FROM unnest(%(words)s::text[], %(prefix)s::bool[]) AS t (w, p)
), partition_rows AS MATERIALIZED (
  SELECT episode_id, CASE WHEN %(semantic)s THEN vector END AS vector,
    CASE WHEN doc @@ query THEN ts_rank(%(weights)s::float4[], doc, query) END AS rank
  FROM episode_recall, q
  WHERE partitions && %(keys)s::text[]
), lexical AS (
  SELECT episodes.*, partition_rows.rank
  FROM partition_rows JOIN episodes ON episodes.id = partition_rows.episode_id
  WHERE partition_rows.rank IS NOT NULL AND {_IN_SCOPE}
  ORDER BY partition_rows.rank DESC, episodes.validated_at DESC, episodes.id DESC
  LIMIT %(candidates)s
)
SELECT partition_rows.episode_id, partition_rows.vector, lexical.*
FROM partition_rows LEFT JOIN lexical ON lexical.id = partition_rows.episode_id
ORDER BY lexical.rank DESC NULLS LAST, lexical.validated_at DESC, lexical.id DESC
"""
"""Both searches in one read of the partitions' rows: each row's vector, and the episode
and rank of the best full-text matches (the others' columns are null)."""

_BY_ID_SQL = f"SELECT episodes.* FROM episodes WHERE episodes.id = ANY(%(ids)s) AND {_IN_SCOPE}"

_ADJACENT_SQL = """
SELECT c.id,
  (SELECT p.id FROM episodes AS p
   WHERE p.requester_id = c.requester_id AND p.team_id = c.team_id
     AND p.channel_id = c.channel_id AND p.kind = c.kind AND p.status IN ('success', 'failure')
     AND (p.created_at, p.id) < (c.created_at, c.id)
     AND p.created_at >= c.created_at - %(window)s
   ORDER BY p.created_at DESC, p.id DESC LIMIT 1) AS before,
  (SELECT n.id FROM episodes AS n
   WHERE n.requester_id = c.requester_id AND n.team_id = c.team_id
     AND n.channel_id = c.channel_id AND n.kind = c.kind AND n.status IN ('success', 'failure')
     AND (n.created_at, n.id) > (c.created_at, c.id)
     AND n.created_at <= c.created_at + %(window)s
   ORDER BY n.created_at, n.id LIMIT 1) AS after
FROM episodes AS c WHERE c.id = ANY(%(ids)s)
"""
"""Each episode's validated neighbours in its asker's conversation, as in SQLite: the one
just before it and the one just after, within the window, from the ``(requester_id,
created_at)`` index."""


async def _adjacent(db: Session, episode_ids: list[int], window: timedelta) -> dict[int, set[int]]:
    rows = await db.rows(_ADJACENT_SQL, {"ids": episode_ids, "window": window})
    return neighbours((row["id"], row["before"], row["after"]) for row in rows)


async def _by_id(
    db: Session, episode_ids: list[int], params: dict[str, object]
) -> list[tuple[Episode, float | None]]:
    """The episodes of these ids that are in the request's scope, found by no full-text
    search."""
    rows = await db.rows(_BY_ID_SQL, {**params, "ids": episode_ids})
    return [(episode_from_row(row), None) for row in rows]


async def _search(
    db: Session, text: str, params: dict[str, object], *, lexical: bool, semantic: bool
) -> tuple[dict[int, tuple[Episode, float]], dict[int, float]]:
    """The full-text candidates, best first, with their ``-rank``; and the cosine of the
    text with every episode of the partitions, by id."""
    words = folded_words(search_terms(text)) if lexical else []
    rows = await db.rows(
        _SEARCH_SQL,
        {
            **params,
            "weights": RANK_WEIGHTS,
            "words": words,
            "prefix": [len(word) >= MIN_PREFIX_LENGTH and not word.isdigit() for word in words],
            "semantic": semantic,
        },
    )
    found = {
        row["id"]: (episode_from_row(row), -row["rank"]) for row in rows if row["id"] is not None
    }
    stored = [row for row in rows if row["vector"] is not None]
    cosines = nearest(
        text, [row["episode_id"] for row in stored], [bytes(row["vector"]) for row in stored]
    )
    return found, cosines


async def recall(
    db: Session, request: RecallRequest, config: MemoryConfig
) -> list[RecalledEpisode]:
    hybrid = config.hybrid
    scope = request.scope
    keys = partition_keys(request, config)
    pool = hybrid.candidates_per_result * request.limit
    params: dict[str, object] = {
        "keys": keys,
        "enterprise_id": scope.enterprise_id,
        "team_id": scope.team_id,
        "channel_id": scope.channel_id,
        "kind": scope.kind.value,
        "requester_id": request.requester_id,
        "shared": config.visibility.shares_in(scope),
        "candidates": pool,
    }
    lexical, cosines = await _search(
        db, request.text, params, lexical=hybrid.semantic < 1, semantic=hybrid.semantic > 0
    )
    semantic_only = [
        episode_id
        for episode_id in most_similar(cosines, pool, floor=hybrid.min_similarity)
        if episode_id not in lexical
    ]
    found: list[tuple[Episode, float | None]] = list(lexical.values())
    if semantic_only:
        found += await _by_id(db, semantic_only, params)
    candidates = visible_candidates(found, cosines, request, config)
    sources = context_sources(candidates, request, config)
    adjacent = await _adjacent(db, sources, hybrid.context_window) if sources else {}
    unread = related_neighbours(adjacent, candidates, cosines, floor=hybrid.min_similarity)
    if unread:
        pulled = await _by_id(db, unread, params)
        candidates += visible_candidates(pulled, cosines, request, config)
    ranked = rank(
        candidates, now=request.now, weights=config.weights, hybrid=hybrid, adjacent=adjacent
    )
    recalled = fit_budget(ranked, limit=request.limit, token_budget=request.token_budget)
    if recalled:
        await increment(db, "recalls")
    return recalled
