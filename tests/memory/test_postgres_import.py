"""PostgreSQL's bulk import (``COPY``) stores what the verbs store for the same exchanges."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from memory_helpers import CHANNEL, DM, T0, Memory

from memory import EpisodeStatus, ImportedEpisode, MemoryStore, Vote

pytestmark = pytest.mark.postgres_only

EXCHANGES = [
    ("How do I deploy the billing service to staging?", "Run the crème brûlée job.", DM, Vote.UP),
    ("Which runner builds the docs?", "The small one, nightly.", CHANNEL, Vote.UP),
    ("Why did the VPN drop?", "Blame the adapter.", DM, Vote.DOWN),
]
LESSON = "Check the MTU first."


async def _stored(url: str, ids: list[int]) -> list[tuple[Any, ...]]:
    """Each episode's row and its recall row, without its id, in the order of ``ids``."""
    async with await psycopg.AsyncConnection.connect(url) as conn:
        cursor = await conn.execute(
            "SELECT e.enterprise_id, e.team_id, e.channel_id, e.kind, e.requester_id,"
            " e.thread_ts, e.question, e.answer, e.status, e.lesson, e.importance,"
            " e.created_at, e.validated_at, r.partitions, r.doc::text, r.vector"
            " FROM unnest(%s::bigint[]) WITH ORDINALITY AS i (id, n)"
            " JOIN episodes AS e ON e.id = i.id"
            " LEFT JOIN episode_recall AS r ON r.episode_id = e.id"
            " ORDER BY i.n",
            [ids],
        )
        return await cursor.fetchall()


async def test_an_import_stores_the_rows_and_recall_rows_the_verbs_store(
    store: MemoryStore, url: str
) -> None:
    memory = Memory(store)
    voted = []
    for index, (question, answer, scope, vote) in enumerate(EXCHANGES):
        at = T0 + timedelta(hours=index)
        episode = await memory.answered(question, answer, scope=scope, at=at, vote=vote)
        if vote is Vote.DOWN:
            assert await store.set_lesson(episode.id, LESSON)
        voted.append(episode.id)

    imported = await store.import_episodes(
        [
            ImportedEpisode(
                scope=scope,
                requester_id="U1",
                question=question,
                answer=answer,
                status=EpisodeStatus.SUCCESS if vote is Vote.UP else EpisodeStatus.FAILURE,
                lesson=None if vote is Vote.UP else LESSON,
                created_at=T0 + timedelta(hours=index),
                validated_at=T0 + timedelta(hours=index, minutes=1),
            )
            for index, (question, answer, scope, vote) in enumerate(EXCHANGES)
        ]
    )

    assert all(episode_id is not None for episode_id in imported)
    await store.settle()  # the votes' episodes filed in recall's index
    assert sorted(imported) == imported and min(imported) > max(voted)  # type: ignore[type-var]
    by_verbs = await _stored(url, voted)
    assert all(row[-3] and row[-1] for row in by_verbs), "every episode has words and a vector"
    assert await _stored(url, imported) == by_verbs  # type: ignore[arg-type]


async def test_imports_of_the_same_people_at_once_each_store_all_theirs(
    store: MemoryStore,
) -> None:
    def batch(start: int) -> list[ImportedEpisode]:
        return [
            ImportedEpisode(
                scope=DM,
                requester_id=f"U{index % 3}",
                question=f"What is code {index}?",
                answer=f"It is {index}.",
                status=EpisodeStatus.SUCCESS,
                created_at=T0,
                validated_at=T0,
            )
            for index in range(start, start + 30)
        ]

    results = await asyncio.gather(*(store.import_episodes(batch(30 * n)) for n in range(4)))
    ids = [episode_id for result in results for episode_id in result]
    assert None not in ids and len(set(ids)) == 120
    for person in range(3):
        listed = await store.list_episodes(f"U{person}", limit=1000)
        assert len(listed) == 40
