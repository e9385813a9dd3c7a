"""PostgreSQL's :meth:`memory.MemoryStore.import_episodes`: what
:func:`memory.sql.episodes.import_episodes` does, in one transaction, with a few statements a
batch instead of two an episode. The recall rows are made first, on a worker thread
(:func:`memory.postgres.session.recall_rows`), before any lock is taken; then come the
askers' locks and when each was last forgotten (the erasure fence), sent together; the ids,
drawn from the episodes' identity sequence in their order; the rows, by ``COPY``; and the
recall rows, copied into a temporary table and made ``tsvector`` by the same ``memory_doc``
as they are inserted. ``COPY`` cannot run in pipeline mode, so the transaction runs outside
it, in pipeline mode only for the locks and the fence's reads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime

from memory import rows
from memory.models import ImportedEpisode
from memory.postgres.session import DOC, Session, recall_rows
from memory.sql.episodes import imported
from memory.sql.fence import forgotten_at


async def _fenced(db: Session, episodes: Sequence[ImportedEpisode]) -> list[bool]:
    """Lock the askers, then whether each episode's asker (or workspace) was forgotten at
    or after it was created; locks and reads go in one round trip, in order, so the reads
    see an erasure that committed while a lock was awaited."""
    teams: dict[str, set[str]] = {}
    for item in episodes:
        teams.setdefault(item.scope.team_id, set()).add(item.requester_id)
    erased: dict[tuple[str, str], datetime] = {}
    async with db.conn.pipeline():
        for person, team in sorted({(item.requester_id, item.scope.team_id) for item in episodes}):
            await db.lock_person(person, team)
        for team, people in sorted(teams.items()):
            found = await forgotten_at(db, people, team)
            erased.update(((person, team), at) for person, at in found.items())
    return [
        (at := erased.get((item.requester_id, item.scope.team_id))) is not None
        and at >= rows.utc(item.created_at)
        for item in episodes
    ]


async def import_episodes(db: Session, episodes: Sequence[ImportedEpisode]) -> list[int | None]:
    """Run outside pipeline mode."""
    if not episodes:
        return []
    drafts = [imported(item) for item in episodes]
    made = await asyncio.to_thread(recall_rows, drafts)
    fenced = await _fenced(db, episodes)
    kept = [episode for episode, out in zip(drafts, fenced, strict=True) if not out]
    if not kept:
        return [None] * len(episodes)
    numbered = await db.rows(
        "SELECT nextval(pg_get_serial_sequence('episodes', 'id')) AS id"
        " FROM generate_series(1, %s) ORDER BY 1",
        [len(kept)],
    )
    stored = [
        episode.model_copy(update={"id": row["id"]})
        for row, episode in zip(numbered, kept, strict=True)
    ]
    kept_rows = [row for row, out in zip(made, fenced, strict=True) if not out]
    async with db.conn.cursor() as cursor:
        async with cursor.copy(
            "COPY episodes (id, enterprise_id, team_id, channel_id, kind, requester_id, thread_ts,"
            " question, answer, status, lesson, created_at, validated_at) FROM STDIN"
        ) as copy:
            for episode in stored:
                scope = episode.scope
                await copy.write_row(
                    (
                        episode.id,
                        scope.enterprise_id,
                        scope.team_id,
                        scope.channel_id,
                        scope.kind.value,
                        episode.requester_id,
                        episode.thread_ts,
                        episode.question,
                        episode.answer,
                        episode.status.value,
                        episode.lesson,
                        episode.created_at,
                        episode.validated_at,
                    )
                )
        await cursor.execute(
            "CREATE TEMPORARY TABLE imported_recall (episode_id bigint, partitions text[],"
            " question text, answer text, lesson text, vector bytea) ON COMMIT DROP"
        )
        async with cursor.copy("COPY imported_recall FROM STDIN") as copy:
            for episode, row in zip(stored, kept_rows, strict=True):
                fields = [row[name] for name in ("keys", "question", "answer", "lesson", "vector")]
                await copy.write_row((episode.id, *fields))
        await cursor.execute(
            "INSERT INTO episode_recall (episode_id, partitions, doc, vector)"
            f" SELECT episode_id, partitions, {DOC.format('question', 'answer', 'lesson')}, vector"
            " FROM imported_recall"
        )
    ids = iter(episode.id for episode in stored)
    return [None if out else next(ids) for out in fenced]
