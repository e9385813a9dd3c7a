"""Recall: full-text and semantic candidates from the asker's own partitions, fused and
ranked within a budget.

The same searches as the SQLite backend's (:mod:`memory.sqlite.recall`): the question's
content words (:func:`memory.recall_query.search_terms`), joined by OR, long ones as
prefixes, matched in the rows of the asker's partitions (:mod:`memory.postgres.fts`),
``ts_rank`` standing in for BM25; and the vectors of the same rows, compared by brute force
(:func:`memory.vectors.nearest`), so the nearest neighbours are exact. One statement reads
both, and the best matches' neighbours in their conversations. Every candidate is checked
against the episode's own columns and :class:`memory.Visibility` before it is ranked.
"""

from __future__ import annotations

from typing import Any

from memory.config import MemoryConfig
from memory.models import Episode, RecalledEpisode, RecallRequest
from memory.partitions import partition_keys
from memory.postgres.fts import RANK_WEIGHTS, folded_words
from memory.postgres.session import Session
from memory.ranking import (
    context_sources,
    fit_budget,
    neighbours,
    rank,
    reads_context,
    related_neighbours,
    visible_candidates,
)
from memory.recall_query import MIN_PREFIX_LENGTH, search_terms
from memory.rows import episode_from_row
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

_AROUND = """
  CASE WHEN %(context)s THEN (SELECT p.id FROM episodes AS p
   WHERE p.requester_id = {episode}.requester_id AND p.team_id = {episode}.team_id
     AND p.channel_id = {episode}.channel_id AND p.kind = {episode}.kind
     AND p.status IN ('success', 'failure')
     AND (p.created_at, p.id) < ({episode}.created_at, {episode}.id)
     AND p.created_at >= {episode}.created_at - %(window)s
   ORDER BY p.created_at DESC, p.id DESC LIMIT 1) END AS before,
  CASE WHEN %(context)s THEN (SELECT n.id FROM episodes AS n
   WHERE n.requester_id = {episode}.requester_id AND n.team_id = {episode}.team_id
     AND n.channel_id = {episode}.channel_id AND n.kind = {episode}.kind
     AND n.status IN ('success', 'failure')
     AND (n.created_at, n.id) > ({episode}.created_at, {episode}.id)
     AND n.created_at <= {episode}.created_at + %(window)s
   ORDER BY n.created_at, n.id LIMIT 1) END AS after
"""
"""An episode's validated neighbours in its asker's conversation, as in SQLite: the one
just before it and the one just after, within the window, from the ``(requester_id,
created_at)`` index; read with the candidate itself (when the context is on), so that a
recall takes no round trip of its own for them."""

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
), lexical_around AS (
  SELECT lexical.*, {_AROUND.format(episode="lexical")} FROM lexical
)
SELECT partition_rows.episode_id, partition_rows.vector, lexical_around.*
FROM partition_rows LEFT JOIN lexical_around ON lexical_around.id = partition_rows.episode_id
ORDER BY lexical_around.rank DESC NULLS LAST, lexical_around.validated_at DESC,
  lexical_around.id DESC
"""
"""Both searches in one read of the partitions' rows: each row's vector, and the episode,
rank and neighbours of the best full-text matches (the others' columns are null)."""

_BY_ID_SQL = f"""
SELECT episodes.*, {_AROUND.format(episode="episodes")}
FROM episodes WHERE episodes.id = ANY(%(ids)s) AND {_IN_SCOPE}
"""

_Around = dict[int, tuple[int | None, int | None]]
"""Each candidate's neighbours as its row was read with them: the ids before and after it."""


async def _by_id(
    db: Session, episode_ids: list[int], params: dict[str, object]
) -> tuple[list[tuple[Episode, float | None]], _Around]:
    """The episodes of these ids that are in the request's scope, found by no full-text
    search, and their neighbours."""
    rows = await db.rows(_BY_ID_SQL, {**params, "ids": episode_ids})
    return [(episode_from_row(row, db.read_time), None) for row in rows], _around(rows)


def _around(rows: list[dict[str, Any]]) -> _Around:
    return {row["id"]: (row["before"], row["after"]) for row in rows}


async def _search(
    db: Session, text: str, params: dict[str, object], *, lexical: bool, semantic: bool
) -> tuple[dict[int, tuple[Episode, float]], dict[int, float], _Around]:
    """The full-text candidates, best first, with their ``-rank``; the cosine of the text
    with every episode of the partitions, by id; and the candidates' neighbours."""
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
    matched = [row for row in rows if row["id"] is not None]
    found = {row["id"]: (episode_from_row(row, db.read_time), -row["rank"]) for row in matched}
    stored = [row for row in rows if row["vector"] is not None]
    cosines = nearest(
        text, [row["episode_id"] for row in stored], [bytes(row["vector"]) for row in stored]
    )
    return found, cosines, _around(matched)


async def recall(
    db: Session, request: RecallRequest, config: MemoryConfig
) -> list[RecalledEpisode]:
    """Three reads at most, each a round trip: the partitions' rows (with the full-text
    matches and their neighbours), the episodes found by meaning alone (with theirs), and
    the neighbours related to the question that neither found; the recalls counter goes
    with the commit."""
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
        "context": reads_context(config),
        "window": hybrid.context_window,
    }
    lexical, cosines, around = await _search(
        db, request.text, params, lexical=hybrid.semantic < 1, semantic=hybrid.semantic > 0
    )
    semantic_only = [
        episode_id
        for episode_id in most_similar(cosines, pool, floor=hybrid.min_similarity)
        if episode_id not in lexical
    ]
    found: list[tuple[Episode, float | None]] = list(lexical.values())
    if semantic_only:
        by_meaning, theirs = await _by_id(db, semantic_only, params)
        found += by_meaning
        around.update(theirs)
    candidates = visible_candidates(found, cosines, request, config)
    sources = context_sources(candidates, request, config)
    adjacent = neighbours((source, *around[source]) for source in sources)
    unread = related_neighbours(adjacent, candidates, cosines, floor=hybrid.min_similarity)
    if unread:
        pulled, _ = await _by_id(db, unread, {**params, "context": False})
        candidates += visible_candidates(pulled, cosines, request, config)
    ranked = rank(
        candidates, now=request.now, weights=config.weights, hybrid=hybrid, adjacent=adjacent
    )
    recalled = fit_budget(ranked, limit=request.limit, token_budget=request.token_budget)
    if recalled:
        await db.increment("recalls")
    return recalled
