"""The SQLite backend of :class:`memory.MemoryStore`.

Each method hands one synchronous function of :mod:`memory.sqlite` to the store's
database thread and awaits it; the SQL lives in those modules, grouped by concern.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

from sqlite_utils import Database

from memory.config import MemoryConfig
from memory.models import (
    Episode,
    EpisodeStatus,
    ForgetReport,
    NewExchange,
    RecalledEpisode,
    RecallRequest,
    Scope,
    StoreStats,
    UserExport,
    VoteEvent,
    VoteOutcome,
    WisdomNote,
)
from memory.sqlite import counters, episodes, erasure, fence, recall, votes, wisdom
from memory.sqlite.connection import DatabaseThread
from memory.store import MemoryStore
from memory.visibility import Visibility

__all__ = ["SQLiteMemoryStore"]


def _checkpoint(db: Database) -> None:
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _ping(db: Database) -> None:
    db.execute("SELECT 1 FROM episodes LIMIT 1").fetchall()


class SQLiteMemoryStore(MemoryStore):
    """Memory in one SQLite file (WAL mode), used from asyncio through one thread."""

    def __init__(self, thread: DatabaseThread, config: MemoryConfig) -> None:
        self._thread = thread
        self._config = config

    @classmethod
    async def open(cls, path: Path | str, config: MemoryConfig) -> SQLiteMemoryStore:
        """Open (creating and migrating if needed) the database at ``path``."""
        return cls(await DatabaseThread.open(Path(path)), config)

    async def close(self) -> None:
        await self._thread.close(_checkpoint)

    async def ping(self) -> None:
        await self._thread.run(_ping)

    @property
    def visibility(self) -> Visibility:
        return self._config.visibility

    async def claim(self, *keys: str, at: datetime) -> bool:
        return await self._thread.run(partial(counters.claim, keys=keys, at=at))

    async def record_exchange(self, exchange: NewExchange) -> Episode | None:
        return await self._thread.run(
            partial(episodes.record_exchange, exchange=exchange, config=self._config)
        )

    async def extend_exchange(self, episode_id: int, *, message_ts: list[str], answer: str) -> bool:
        return await self._thread.run(
            partial(
                episodes.extend_exchange,
                episode_id=episode_id,
                message_ts=message_ts,
                answer=answer,
                config=self._config,
            )
        )

    async def withdraw_exchange(self, episode_id: int) -> bool:
        return await self._thread.run(partial(erasure.withdraw_exchange, episode_id=episode_id))

    async def answered_in_thread(self, channel_id: str, thread_ts: str) -> bool:
        return await self._thread.run(
            partial(episodes.answered_in_thread, channel_id=channel_id, thread_ts=thread_ts)
        )

    async def apply_vote(self, event: VoteEvent) -> VoteOutcome:
        return await self._thread.run(partial(votes.apply_vote, event=event, config=self._config))

    async def episodes_awaiting_reflection(self, *, limit: int) -> list[Episode]:
        return await self._thread.run(partial(episodes.awaiting_reflection, limit=limit))

    async def set_lesson(self, episode_id: int, lesson: str) -> bool:
        return await self._thread.run(
            partial(episodes.set_lesson, episode_id=episode_id, lesson=lesson)
        )

    async def set_importance(self, episode_id: int, importance: int) -> bool:
        return await self._thread.run(
            partial(episodes.set_importance, episode_id=episode_id, importance=importance)
        )

    async def purge_expired(self, *, now: datetime) -> int:
        return await self._thread.run(partial(episodes.purge_expired, now=now, config=self._config))

    async def recall(self, request: RecallRequest) -> list[RecalledEpisode]:
        return await self._thread.run(partial(recall.recall, request=request, config=self._config))

    async def replace_wisdom(
        self, scope: Scope, user_id: str, notes: list[str], *, episode_count: int, at: datetime
    ) -> list[WisdomNote]:
        return await self._thread.run(
            partial(
                wisdom.replace_wisdom,
                scope=scope,
                user_id=user_id,
                notes=notes,
                episode_count=episode_count,
                at=at,
            )
        )

    async def wisdom(self, scope: Scope, user_id: str) -> list[WisdomNote]:
        return await self._thread.run(partial(wisdom.wisdom_for, scope=scope, user_id=user_id))

    async def list_episodes(
        self,
        user_id: str,
        *,
        scope: Scope | None = None,
        statuses: frozenset[EpisodeStatus] = frozenset(
            {EpisodeStatus.SUCCESS, EpisodeStatus.FAILURE}
        ),
        since: datetime | None = None,
        limit: int = 100,
    ) -> list[Episode]:
        return await self._thread.run(
            partial(
                episodes.list_episodes,
                user_id=user_id,
                scope=scope,
                statuses=statuses,
                since=since,
                limit=limit,
            )
        )

    async def list_wisdom(self, user_id: str) -> list[WisdomNote]:
        return await self._thread.run(partial(wisdom.list_wisdom, user_id=user_id))

    async def forget_episode(self, user_id: str, episode_id: int) -> bool:
        return await self._thread.run(
            partial(erasure.forget_episode, user_id=user_id, episode_id=episode_id)
        )

    async def forget_wisdom(self, user_id: str, note_id: int) -> bool:
        return await self._thread.run(
            partial(erasure.forget_wisdom, user_id=user_id, note_id=note_id)
        )

    async def forget_user(self, user_id: str, *, at: datetime | None = None) -> ForgetReport:
        return await self._thread.run(
            partial(
                erasure.forget_user,
                user_id=user_id,
                at=at or datetime.now(UTC),
                config=self._config,
            )
        )

    async def erase_replies(self, channel_id: str, message_ts: list[str]) -> None:
        await self._thread.run(
            partial(fence.erase_replies, channel_id=channel_id, message_ts=message_ts)
        )

    async def erased_replies(self, channel_id: str, message_ts: Iterable[str]) -> set[str]:
        return await self._thread.run(
            partial(fence.erased_replies, channel_id=channel_id, message_ts=list(message_ts))
        )

    async def forgotten_at(self, user_ids: Iterable[str]) -> dict[str, datetime]:
        return await self._thread.run(partial(fence.forgotten_at, user_ids=list(user_ids)))

    async def export_user(self, user_id: str) -> UserExport:
        return await self._thread.run(partial(erasure.export_user, user_id=user_id))

    async def scopes_with_recent_episodes(self, *, since: datetime) -> list[tuple[Scope, str]]:
        return await self._thread.run(partial(episodes.scopes_with_recent_episodes, since=since))

    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        """Always True: a SQLite file is served by one bot process."""
        return True

    async def count(self, counter: str, *, by: int = 1) -> None:
        await self._thread.run(partial(counters.increment, name=counter, by=by))

    async def stats(self) -> StoreStats:
        return await self._thread.run(counters.stats)
