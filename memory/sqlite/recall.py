"""Recall: full-text and semantic candidates from the asker's own partitions, fused and
ranked within a budget.

Both searches read only the partitions the visibility rule lets the asker see
(:func:`partition_keys`), every candidate is checked again against the episode's own
columns in SQL and against :class:`memory.Visibility` before it is ranked.
"""

from __future__ import annotations

import json

from sqlite_utils import Database

from memory.config import MemoryConfig
from memory.models import Episode, RecalledEpisode, RecallRequest
from memory.partitions import partition_keys
from memory.ranking import Candidate, fit_budget, rank
from memory.recall_query import question_match
from memory.sqlite.codec import episode_from_row
from memory.sqlite.counters import increment
from memory.sqlite.fts import BM25_WEIGHTS, file_waiting
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
        rows = db.query(_BY_ID_SQL, {**params, "ids": json.dumps(semantic_only)})
        found += [(episode_from_row(row), None) for row in rows]
    candidates = [
        Candidate(episode=episode, bm25=bm25, cosine=cosines.get(episode.id))
        for episode, bm25 in found
        if config.visibility.may_see(episode, viewer_id=request.requester_id, scope=scope)
    ]
    ranked = rank(candidates, now=request.now, weights=config.weights, hybrid=hybrid)
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
