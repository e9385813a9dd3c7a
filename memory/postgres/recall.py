"""Recall: full-text candidates from the asker's own partition, re-ranked within a budget.

The same query as the SQLite backend's (:mod:`memory.sqlite.recall`): the question's
content words (:func:`memory.recall_query.search_terms`), joined by OR, long ones as
prefixes, each written in the asker's partitions; ``ts_rank`` stands in for BM25.
"""

from __future__ import annotations

from memory.config import MemoryConfig
from memory.models import RecalledEpisode, RecallRequest
from memory.postgres.codec import episode_from_row
from memory.postgres.counters import increment
from memory.postgres.fts import RANK_WEIGHTS, folded_words
from memory.postgres.session import Session
from memory.ranking import Candidate, fit_budget, rank
from memory.recall_query import MIN_PREFIX_LENGTH, search_terms
from memory.sqlite.recall import CANDIDATES_PER_RESULT, partition_keys

__all__ = ["recall"]

# The tsquery is built in the database, so the question's words are stemmed by the same
# function as the indexed ones. The scope is enforced twice, as in SQLite: by the
# partition keys in every lexeme, and by the episode's own columns.
_CANDIDATES_SQL = """
WITH hits AS (
  SELECT episode_id AS id, max(ts_rank(%(weights)s::float4[], doc, query)) AS rank
  FROM episode_terms, (
    SELECT string_agg(
      quote_literal(k || '_' || memory_stem(w)) || CASE WHEN p THEN ':*' ELSE '' END, ' | '
    )::tsquery AS query
    FROM unnest(%(keys)s::text[]) AS k, unnest(%(words)s::text[], %(prefix)s::bool[]) AS t (w, p)
  ) AS q
  WHERE doc @@ query AND partition = ANY(%(keys)s)
  GROUP BY episode_id
)
SELECT episodes.*, hits.rank
FROM hits JOIN episodes ON episodes.id = hits.id
WHERE episodes.team_id = %(team_id)s
  AND episodes.channel_id = %(channel_id)s
  AND episodes.kind = %(kind)s
  AND episodes.status IN ('success', 'failure')
  AND (
    episodes.requester_id = %(requester_id)s
    OR (%(shared)s AND episodes.kind = 'channel' AND episodes.status = 'success')
  )
ORDER BY hits.rank DESC, episodes.validated_at DESC, episodes.id DESC
LIMIT %(candidates)s
"""


async def recall(
    db: Session, request: RecallRequest, config: MemoryConfig
) -> list[RecalledEpisode]:
    words = folded_words(search_terms(request.text))
    if not words:
        return []
    scope = request.scope
    rows = await db.rows(
        _CANDIDATES_SQL,
        {
            "weights": RANK_WEIGHTS,
            "keys": partition_keys(request, config),
            "words": words,
            "prefix": [len(word) >= MIN_PREFIX_LENGTH and not word.isdigit() for word in words],
            "team_id": scope.team_id,
            "channel_id": scope.channel_id,
            "kind": scope.kind.value,
            "requester_id": request.requester_id,
            "shared": config.visibility.shares_in(scope),
            "candidates": CANDIDATES_PER_RESULT * request.limit,
        },
    )
    candidates = [
        Candidate(episode=episode_from_row(row), bm25=-row["rank"])
        for row in rows
        if config.visibility.may_see(
            episode_from_row(row), viewer_id=request.requester_id, scope=scope
        )
    ]
    ranked = rank(candidates, now=request.now, weights=config.weights)
    recalled = fit_budget(ranked, limit=request.limit, token_budget=request.token_budget)
    if recalled:
        await increment(db, "recalls")
    return recalled
