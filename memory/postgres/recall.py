"""Recall: full-text and semantic candidates from the asker's own partitions, fused and
ranked within a budget.

The same searches as the SQLite backend's (:mod:`memory.sqlite.recall`): the question's
content words (:func:`memory.recall_query.search_terms`), joined by OR, long ones as
prefixes, matched in the rows of the asker's partitions (:mod:`memory.postgres.fts`),
``ts_rank`` standing in for BM25; and the vectors of the same rows. Every candidate is
checked against the episode's own columns and :class:`memory.Visibility` before it is ranked.
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
from memory.postgres.vectors import similarities
from memory.ranking import (
    context_sources,
    fit_budget,
    neighbours,
    rank,
    related_neighbours,
    visible_candidates,
)
from memory.recall_query import MIN_PREFIX_LENGTH, search_terms
from memory.vectors import most_similar

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

_CANDIDATES_SQL = f"""
WITH hits AS (
  SELECT episode_id AS id, ts_rank(%(weights)s::float4[], doc, query) AS rank
  FROM episode_recall, (
    SELECT string_agg(
      quote_literal(memory_stem(w)) || CASE WHEN p THEN ':*' ELSE '' END, ' | '
    )::tsquery AS query
    FROM unnest(%(words)s::text[], %(prefix)s::bool[]) AS t (w, p)
  ) AS q
  WHERE partitions && %(keys)s::text[] AND doc @@ query
)
SELECT episodes.*, hits.rank
FROM hits JOIN episodes ON episodes.id = hits.id
WHERE {_IN_SCOPE}
ORDER BY hits.rank DESC, episodes.validated_at DESC, episodes.id DESC
LIMIT %(candidates)s
"""

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


async def _lexical(
    db: Session, text: str, params: dict[str, object]
) -> dict[int, tuple[Episode, float]]:
    words = folded_words(search_terms(text))
    if not words:
        return {}
    rows = await db.rows(
        _CANDIDATES_SQL,
        {
            **params,
            "weights": RANK_WEIGHTS,
            "words": words,
            "prefix": [len(word) >= MIN_PREFIX_LENGTH and not word.isdigit() for word in words],
        },
    )
    return {row["id"]: (episode_from_row(row), -row["rank"]) for row in rows}


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
    lexical = await _lexical(db, request.text, params) if hybrid.semantic < 1 else {}
    cosines = await similarities(db, request.text, keys) if hybrid.semantic > 0 else {}
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
