"""Recall: full-text candidates from the asker's own partition, re-ranked within a budget."""

from __future__ import annotations

from sqlite_utils import Database

from memory.config import MemoryConfig
from memory.models import RecalledEpisode, RecallRequest
from memory.ranking import Candidate, fit_budget, rank
from memory.recall_query import question_match
from memory.sqlite.codec import episode_from_row
from memory.sqlite.counters import increment
from memory.sqlite.fts import BM25_WEIGHTS
from memory.sqlite.scope_tokens import channel_key, personal_key

__all__ = ["CANDIDATES_PER_RESULT", "partition_keys", "recall", "recall_matching"]

CANDIDATES_PER_RESULT = 1
"""Full-text candidates fetched per requested result, for recency and importance to re-rank.

One: BM25 alone chooses which episodes are recalled, and the weighted score orders them
(so it decides which fit the token budget). A wider pool lets a recent or important but
barely related episode displace a relevant one: on the dev questions of
``benchmarks/recall_quality.py`` recall@5 falls from 0.924 (one) to 0.916 (two to four).
Among equally relevant episodes the most recently validated come first.
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
WHERE episodes.team_id = :team_id
  AND episodes.channel_id = :channel_id
  AND episodes.kind = :kind
  AND episodes.status IN ('success', 'failure')
  AND (
    episodes.requester_id = :requester_id
    OR (:shared AND episodes.kind = 'channel' AND episodes.status = 'success')
  )
GROUP BY episodes.id
ORDER BY bm25, episodes.validated_at DESC, episodes.id DESC
LIMIT :candidates
"""


def _shares_channel(request: RecallRequest, config: MemoryConfig) -> bool:
    return config.visibility.shares_in(request.scope)


def partition_keys(request: RecallRequest, config: MemoryConfig) -> list[str]:
    """The keys of the partitions the asker may recall from."""
    keys = [personal_key(request.scope, request.requester_id)]
    if _shares_channel(request, config):
        keys.append(channel_key(request.scope))
    return keys


def recall_matching(
    db: Database,
    request: RecallRequest,
    config: MemoryConfig,
    match: str,
    *,
    candidates_per_result: int = CANDIDATES_PER_RESULT,
) -> list[RecalledEpisode]:
    """Rank the episodes of the asker's partition that ``match`` finds, within the budget.

    ``match`` must confine itself to :func:`partition_keys`; the SQL checks the scope
    again. Separate from :func:`recall` so other queries and pools can be measured the
    same way.
    """
    scope = request.scope
    rows = db.query(
        _CANDIDATES_SQL,
        {
            "match": match,
            "team_id": scope.team_id,
            "channel_id": scope.channel_id,
            "kind": scope.kind.value,
            "requester_id": request.requester_id,
            "shared": _shares_channel(request, config),
            "candidates": candidates_per_result * request.limit,
        },
    )
    found = [(episode_from_row(row), row["bm25"]) for row in rows]
    candidates = [
        Candidate(episode=episode, bm25=bm25)
        for episode, bm25 in found
        if config.visibility.may_see(episode, viewer_id=request.requester_id, scope=scope)
    ]
    ranked = rank(candidates, now=request.now, weights=config.weights)
    return fit_budget(ranked, limit=request.limit, token_budget=request.token_budget)


def recall(db: Database, request: RecallRequest, config: MemoryConfig) -> list[RecalledEpisode]:
    match = question_match(request.text, partition_keys(request, config))
    if match is None:
        return []
    recalled = recall_matching(db, request, config, match)
    if recalled:
        increment(db, "recalls")
    return recalled
