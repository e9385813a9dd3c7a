"""Shorthand for the memory store's tests: fixed scopes and times, and a tiny DSL."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypedDict, Unpack

import sqlite_utils

from memory import (
    ConversationKind,
    Episode,
    MemoryConfig,
    MemoryStore,
    NewExchange,
    RecalledEpisode,
    RecallRequest,
    Scope,
    Vote,
    VoteEvent,
    VoteOutcome,
)
from memory.sqlite.migrations import migrations

__all__ = [
    "CHANNEL",
    "DM",
    "T0",
    "FreshStore",
    "Memory",
    "exchange",
    "older_sqlite_store",
    "thumbs_up",
]

FreshStore = Callable[[MemoryConfig], AbstractAsyncContextManager[MemoryStore]]
"""Opens a new, empty store on the test's backend (the ``fresh_store`` fixture)."""

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DM = Scope(team_id="T1", channel_id="D100", kind=ConversationKind.DM)
CHANNEL = Scope(team_id="T1", channel_id="C100", kind=ConversationKind.CHANNEL)


def exchange(
    question: str,
    answer: str = "An answer.",
    *,
    ts: str | list[str],
    user: str = "U1",
    scope: Scope = DM,
    at: datetime = T0,
    thread_ts: str | None = None,
) -> NewExchange:
    """``user``'s question in ``scope``, answered at ``at`` in the messages ``ts``."""
    return NewExchange(
        scope=scope,
        requester_id=user,
        thread_ts=thread_ts,
        question=question,
        answer=answer,
        message_ts=[ts] if isinstance(ts, str) else ts,
        created_at=at,
    )


def older_sqlite_store(path: Path, before: str) -> sqlite_utils.Database:
    """A SQLite file migrated up to the migration ``before``, as an older bot left it
    (with ``secure_delete``, as the bot connects)."""
    db = sqlite_utils.Database(path)
    db.execute("PRAGMA secure_delete = ON")
    migrations.apply(db, stop_before=before)
    return db


def thumbs_up(scope: Scope, message_ts: str, voter: str) -> VoteEvent:
    """``voter``'s 👍 on the message ``message_ts`` of ``scope``, a minute after :data:`T0`."""
    return VoteEvent(
        channel_id=scope.channel_id,
        message_ts=message_ts,
        voter_id=voter,
        reaction="+1",
        added=True,
        at=T0 + timedelta(minutes=1),
    )


class Asked(TypedDict, total=False):
    """What :meth:`Memory.ask` takes beside the question and the answer."""

    user: str
    scope: Scope
    at: datetime
    thread_ts: str | None
    parts: int


@dataclass
class Memory:
    """A store plus shorthand for the calls tests make over and over."""

    store: MemoryStore
    sent: dict[int, list[str]] = field(default_factory=dict)
    """The ts of every message part sent, by episode id."""
    _last_ts: int = 1000

    def new_ts(self) -> str:
        self._last_ts += 1
        return f"{self._last_ts}.000100"

    async def ask(
        self,
        question: str,
        answer: str = "An answer.",
        *,
        user: str = "U1",
        scope: Scope = DM,
        at: datetime = T0,
        thread_ts: str | None = None,
        parts: int = 1,
    ) -> Episode:
        """A pending exchange, as recorded right after the bot answered."""
        message_ts = [self.new_ts() for _ in range(parts)]
        episode = await self.store.record_exchange(
            exchange(
                question, answer, ts=message_ts, user=user, scope=scope, at=at, thread_ts=thread_ts
            )
        )
        assert episode is not None, "the asker was forgotten after the exchange began"
        self.sent[episode.id] = message_ts
        return episode

    async def answered(
        self,
        question: str,
        answer: str = "An answer.",
        *,
        vote: Vote = Vote.UP,
        **asked: Unpack[Asked],
    ) -> Episode:
        """An exchange (:meth:`ask` with ``asked``), validated by its requester's reaction
        one minute later."""
        episode = await self.ask(question, answer, **asked)
        reaction = "+1" if vote is Vote.UP else "-1"
        outcome = await self.react(
            episode.scope,
            self.sent[episode.id][0],
            episode.requester_id,
            reaction,
            at=episode.created_at + timedelta(minutes=1),
        )
        assert outcome.applied, outcome.reason
        return episode

    async def react(
        self,
        scope: Scope,
        message_ts: str,
        voter: str,
        reaction: str,
        *,
        added: bool = True,
        at: datetime = T0,
        vote: Vote | None = None,
    ) -> VoteOutcome:
        return await self.store.apply_vote(
            VoteEvent(
                channel_id=scope.channel_id,
                message_ts=message_ts,
                voter_id=voter,
                reaction=reaction,
                added=added,
                vote=vote,
                at=at,
            )
        )

    async def library(
        self, exchanges: dict[str, tuple[str, str]], *, user: str = "U1", scope: Scope = DM
    ) -> dict[str, int]:
        """Each topic's (question, answer), validated by its asker; their episodes' ids."""
        return {
            topic: (await self.answered(question, answer, user=user, scope=scope)).id
            for topic, (question, answer) in exchanges.items()
        }

    async def first_recalled(self, text: str) -> int:
        """The id of the episode recalled first for ``text`` (one is)."""
        recalled = await self.recall(text)
        assert recalled, text
        return recalled[0].episode.id

    async def recall(
        self,
        text: str,
        *,
        user: str = "U1",
        scope: Scope = DM,
        now: datetime = T0 + timedelta(hours=1),
        limit: int = 5,
        token_budget: int = 1500,
    ) -> list[RecalledEpisode]:
        return await self.store.recall(
            RecallRequest(
                scope=scope,
                requester_id=user,
                text=text,
                limit=limit,
                token_budget=token_budget,
                now=now,
            )
        )
