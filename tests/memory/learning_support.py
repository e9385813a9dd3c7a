"""Exchanges asked and voted on as people do, for the tests of learning from votes."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from memory import (
    ConversationKind,
    Episode,
    EpisodeStatus,
    MemoryStore,
    NewExchange,
    Scope,
    VoteEvent,
)

__all__ = ["DM", "GENERAL", "T0", "Conversations"]

T0 = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
GENERAL = Scope(team_id="T1", channel_id="C1", kind=ConversationKind.CHANNEL)
DM = Scope(team_id="T1", channel_id="D1", kind=ConversationKind.DM)

_REACTIONS = {EpisodeStatus.SUCCESS: "+1", EpisodeStatus.FAILURE: "-1"}


class Conversations:
    """Records exchanges in a real store and reacts to them, one minute apart."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._ticks = itertools.count(1)

    def _next_time(self) -> datetime:
        return T0 + timedelta(minutes=next(self._ticks))

    async def ask(
        self, question: str, answer: str, *, user: str = "U1", scope: Scope = GENERAL
    ) -> Episode:
        """A pending exchange, as the bot records it after answering."""
        at = self._next_time()
        return await self.store.record_exchange(
            NewExchange(
                scope=scope,
                requester_id=user,
                thread_ts=None,
                question=question,
                answer=answer,
                message_ts=[f"{at.timestamp():.6f}"],
                created_at=at,
            )
        )

    async def react(self, episode: Episode, status: EpisodeStatus, *, added: bool = True) -> None:
        """The asker adds (or removes) 👍 for SUCCESS or 👎 for FAILURE on the answer."""
        outcome = await self.store.apply_vote(
            VoteEvent(
                channel_id=episode.scope.channel_id,
                message_ts=f"{episode.created_at.timestamp():.6f}",
                voter_id=episode.requester_id,
                reaction=_REACTIONS[status],
                added=added,
                at=self._next_time(),
            )
        )
        assert outcome.applied, outcome.reason

    async def validated(
        self,
        question: str,
        answer: str,
        status: EpisodeStatus,
        *,
        user: str = "U1",
        scope: Scope = GENERAL,
    ) -> Episode:
        episode = await self.ask(question, answer, user=user, scope=scope)
        await self.react(episode, status)
        return episode

    async def current(self, episode: Episode) -> Episode:
        """The episode as the store holds it now."""
        [now] = [
            stored
            for stored in await self.store.list_episodes(
                episode.requester_id, scope=episode.scope, statuses=frozenset(EpisodeStatus)
            )
            if stored.id == episode.id
        ]
        return now
