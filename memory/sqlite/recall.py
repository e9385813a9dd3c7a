"""Recall: full-text and semantic candidates from the asker's own partitions, fused and
ranked within a budget.

Both searches read only the partitions the visibility rule lets the asker see
(:func:`partition_keys`), every candidate is checked again against the episode's own
columns in SQL and against :class:`memory.Visibility` before it is ranked.
"""

from __future__ import annotations

import json
from datetime import timedelta

from sqlite_utils import Database

from memory.config import MemoryConfig
from memory.models import Episode, RecalledEpisode, RecallRequest
from memory.partitions import partition_keys
from memory.ranking import (
    context_sources,
    fit_budget,
    neighbours,
    rank,
    related_neighbours,
    visible_candidates,
)
from memory.recall_query import question_match
from memory.sqlite.codec import episode_from_row
from memory.sqlite.fts import BM25_WEIGHTS, file_waiting
from memory.sqlite.session import increment
from memory.sqlite.vectors import similarities
from memory.vectors import most_similar

__all__ = ["recall", "recall_matching"]

_IN_SCOPE = """
  episodes.enterprise_id = :enterprise_id
  AND episodes.team_id = :team_id
  AND episodes.channel_id = :channel_id
  AND episodes.kind = :kind
  AND episodes.status IN ('success', 'failure')
  AND (
    episodes.requester_id = :requester_id
    OR (:shared AND episodes.kind = 'channel' AND episodes.status = 'success')
  )
"""

# The scope is enforced twice: by the partition keys inside the MATCH (so the index only
# visits the asker's partitions) and by the columns of the episode itself. A channel
# success can match in two partitions (rowid id and -id): it counts once, at its best.
_CANDIDATES_SQL = f"""
WITH hits AS MATERIALIZED (
  SELECT abs(rowid) AS id, bm25(episodes_fts, {BM25_WEIGHTS}) AS bm25
  FROM episodes_fts
  WHERE episodes_fts MATCH :match
)
SELECT episodes.*, min(hits.bm25) AS bm25
FROM hits JOIN episodes ON episodes.id = hits.id
WHERE {_IN_SCOPE}
GROUP BY episodes.id
ORDER BY bm25, episodes.validated_at DESC, episodes.id DESC
LIMIT :candidates
"""


def _shares_channel(request: RecallRequest, config: MemoryConfig) -> bool:
    return config.visibility.shares_in(request.scope)


_BY_ID_SQL = f"""
SELECT episodes.* FROM json_each(:ids) AS wanted CROSS JOIN episodes ON episodes.id = wanted.value
WHERE {_IN_SCOPE}
"""
"""The semantic-only candidates' rows, each read by its id: ``CROSS JOIN`` keeps the ids
in charge (with ``id IN (...)`` the planner read every validated episode of the store
through the status index, 100 ms and more a recall at a million episodes)."""


_ADJACENT_SQL = """
SELECT c.id,
  (SELECT p.id FROM episodes AS p
   WHERE p.requester_id = c.requester_id AND p.team_id = c.team_id
     AND p.channel_id = c.channel_id AND p.kind = c.kind AND p.status IN ('success', 'failure')
     AND (p.created_at, p.id) < (c.created_at, c.id)
     AND p.created_at >= printf('%018d', c.created_at - :window)
   ORDER BY p.created_at DESC, p.id DESC LIMIT 1),
  (SELECT n.id FROM episodes AS n
   WHERE n.requester_id = c.requester_id AND n.team_id = c.team_id
     AND n.channel_id = c.channel_id AND n.kind = c.kind AND n.status IN ('success', 'failure')
     AND (n.created_at, n.id) > (c.created_at, c.id)
     AND n.created_at <= printf('%018d', c.created_at + :window)
   ORDER BY n.created_at, n.id LIMIT 1)
FROM json_each(:ids) AS wanted CROSS JOIN episodes AS c ON c.id = wanted.value
"""
"""Each episode's validated neighbours in its asker's conversation: the one just before
it and the one just after, within the window (times are microseconds, see
:mod:`memory.sqlite.codec`); each read from the ``(requester_id, created_at)`` index."""


def _adjacent(db: Database, episode_ids: list[int], window: timedelta) -> dict[int, set[int]]:
    rows = db.execute(
        _ADJACENT_SQL,
        {"ids": json.dumps(episode_ids), "window": window // timedelta(microseconds=1)},
    ).fetchall()
    return neighbours(rows)


def _by_id(
    db: Database, episode_ids: list[int], params: dict[str, object]
) -> list[tuple[Episode, float | None]]:
    """The episodes of these ids that are in the request's scope, found by no full-text
    search."""
    rows = db.query(_BY_ID_SQL, {**params, "ids": json.dumps(episode_ids)})
    return [(episode_from_row(row), None) for row in rows]


def _lexical(
    db: Database, match: str | None, params: dict[str, object]
) -> dict[int, tuple[Episode, float]]:
    if match is None:
        return {}
    rows = db.query(_CANDIDATES_SQL, {**params, "match": match})
    return {row["id"]: (episode_from_row(row), row["bm25"]) for row in rows}


def recall_matching(
    db: Database,
    request: RecallRequest,
    config: MemoryConfig,
    match: str | None,
    *,
    candidates_per_result: int | None = None,
) -> list[RecalledEpisode]:
    """Rank the episodes of the asker's partitions that ``match`` (full text) or the
    question's vector finds, within the budget.

    ``match`` must confine itself to :func:`partition_keys`; the SQL checks the scope
    again. Separate from :func:`recall` so other queries and pools can be measured the
    same way.
    """
    hybrid = config.hybrid
    scope = request.scope
    pool = (candidates_per_result or hybrid.candidates_per_result) * request.limit
    params: dict[str, object] = {
        "enterprise_id": scope.enterprise_id,
        "team_id": scope.team_id,
        "channel_id": scope.channel_id,
        "kind": scope.kind.value,
        "requester_id": request.requester_id,
        "shared": _shares_channel(request, config),
        "candidates": pool,
    }
    lexical = _lexical(db, match if hybrid.semantic < 1 else None, params)
    cosines = (
        similarities(db, request.text, partition_keys(request, config))
        if hybrid.semantic > 0
        else {}
    )
    semantic_only = [
        episode_id
        for episode_id in most_similar(cosines, pool, floor=hybrid.min_similarity)
        if episode_id not in lexical
    ]
    found = [(episode, bm25) for episode, bm25 in lexical.values()]
    if semantic_only:
        found += _by_id(db, semantic_only, params)
    candidates = visible_candidates(found, cosines, request, config)
    sources = context_sources(candidates, request, config)
    adjacent = _adjacent(db, sources, hybrid.context_window) if sources else {}
    unread = related_neighbours(adjacent, candidates, cosines, floor=hybrid.min_similarity)
    if unread:
        pulled = _by_id(db, unread, params)
        candidates += visible_candidates(pulled, cosines, request, config)
    ranked = rank(
        candidates, now=request.now, weights=config.weights, hybrid=hybrid, adjacent=adjacent
    )
    return fit_budget(ranked, limit=request.limit, token_budget=request.token_budget)


def recall(db: Database, request: RecallRequest, config: MemoryConfig) -> list[RecalledEpisode]:
    """Recall for the request, after filing the episodes of its conversation that a vote
    left waiting (see :mod:`memory.sqlite.fts`): the question right after a vote sees it."""
    file_waiting(db, scope=request.scope)
    match = question_match(request.text, partition_keys(request, config))
    recalled = recall_matching(db, request, config, match)
    if recalled:
        increment(db, "recalls")
    return recalled
