"""Recall: full-text and semantic candidates from the asker's partitions, each checked again
against its episode's own columns (:data:`IN_SCOPE`), fused and ranked within a budget
(memory/README.md, *Recall*)."""

from __future__ import annotations

from typing import Any

from memory import ranking
from memory.config import MemoryConfig
from memory.models import Episode, RecalledEpisode, RecallRequest
from memory.privacy import partition_keys
from memory.rows import episode_from_row
from memory.sql.session import Session
from memory.vectors import most_similar, nearest

IN_SCOPE = """
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

_NEIGHBOUR = """
  CASE WHEN %(context)s THEN (SELECT {n}.id FROM episodes AS {n}
   WHERE {n}.requester_id = episodes.requester_id AND {n}.team_id = episodes.team_id
     AND {n}.channel_id = episodes.channel_id AND {n}.kind = episodes.kind
     AND {n}.status IN ('success', 'failure')
     AND ({n}.created_at, {n}.id) {cmp} (episodes.created_at, episodes.id)
     AND {n}.created_at {bound}
   ORDER BY {n}.created_at{desc}, {n}.id{desc} LIMIT 1) END AS {name}"""


def _around(db: Session) -> str:
    """The ids of each episode's validated neighbours ``before`` and ``after`` it in its asker's
    conversation within the window, each read from the ``(requester_id, created_at)`` index."""
    earliest = db.time_shifted.format(time="episodes.created_at", sign="-")
    latest = db.time_shifted.format(time="episodes.created_at", sign="+")
    before = _NEIGHBOUR.format(n="p", cmp="<", bound=f">= {earliest}", desc=" DESC", name="before")
    after = _NEIGHBOUR.format(n="n", cmp=">", bound=f"<= {latest}", desc="", name="after")
    return f"{before},{after}"


def matches(db: Session) -> str:
    """The query of a backend's search reading its ``hits`` (``id`` and ``bm25``, lower is
    better, of each episode its full-text query found): the ``%(candidates)s`` best in scope,
    best first, with their neighbours; a channel success in two partitions counts once."""
    return f"""
  SELECT episodes.*, min(hits.bm25) AS bm25, {_around(db)}
  FROM hits JOIN episodes ON episodes.id = hits.id
  WHERE {IN_SCOPE}
  GROUP BY episodes.id
  ORDER BY bm25, episodes.validated_at DESC, episodes.id DESC
  LIMIT %(candidates)s"""


_Found = list[tuple[Episode, float | None]]
_Around = dict[int, tuple[int | None, int | None]]


def _note(around: _Around, rows: list[dict[str, Any]]) -> None:
    around.update((row["id"], (row["before"], row["after"])) for row in rows)


def _found(db: Session, rows: list[dict[str, Any]], around: _Around) -> _Found:
    """The rows' episodes with their ``bm25`` (None: found by meaning alone), neighbours noted."""
    _note(around, rows)
    return [(episode_from_row(row, db.read_time), row.get("bm25")) for row in rows]


async def _by_id(db: Session, ids: list[int], params: dict[str, Any], around: _Around) -> _Found:
    sql = f"SELECT episodes.*, {_around(db)} FROM {db.episodes_by_id} WHERE {IN_SCOPE}"
    return _found(db, await db.rows(sql, {**params, "ids": ids}), around)


async def recall(
    db: Session, request: RecallRequest, config: MemoryConfig
) -> list[RecalledEpisode]:
    hybrid = config.hybrid
    pool = hybrid.candidates_per_result * request.limit
    params: dict[str, Any] = {
        **request.scope.model_dump(mode="json"),
        "requester_id": request.requester_id,
        "shared": config.visibility.shares_in(request.scope),
        "candidates": pool,
        "context": ranking.reads_context(config) and db.neighbours_with_rows,
        "window": hybrid.context_window,
    }
    keys = partition_keys(request, config)
    rows, vector_ids, vectors = await db.recall_search(
        request, keys, params, lexical=hybrid.semantic < 1, semantic=hybrid.semantic > 0
    )
    comparing = db.computed(nearest, request.text, vector_ids, vectors) if vector_ids else None
    around: _Around = {}
    found = _found(db, rows, around)  # while the vectors are compared
    cosines = await comparing if comparing else {}
    lexical = {episode.id for episode, _ in found}
    similar = most_similar(cosines, pool, floor=hybrid.min_similarity)
    semantic_only = [episode_id for episode_id in similar if episode_id not in lexical]
    if semantic_only:
        found += await _by_id(db, semantic_only, params, around)
    candidates = ranking.visible_candidates(found, cosines, request, config)
    sources = ranking.context_sources(candidates, request, config)
    if sources and not db.neighbours_with_rows:
        read = f"SELECT episodes.id, {_around(db)} FROM {db.episodes_by_id}"
        _note(around, await db.rows(read, {**params, "context": True, "ids": sources}))
    adjacent = ranking.neighbours((source, *around[source]) for source in sources)
    unread = ranking.related_neighbours(adjacent, candidates, cosines, floor=hybrid.min_similarity)
    if unread:
        pulled = await _by_id(db, unread, {**params, "context": False}, around)
        candidates += ranking.visible_candidates(pulled, cosines, request, config)
    ranked = ranking.rank(
        candidates, now=request.now, weights=config.weights, hybrid=hybrid, adjacent=adjacent
    )
    recalled = ranking.fit_budget(ranked, limit=request.limit, token_budget=request.token_budget)
    if recalled:
        await db.increment("recalls", 1)
    return recalled
