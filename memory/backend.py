"""The method layer the SQL backends share: each verb of :class:`memory.MemoryStore` runs
one function of the backend's modules, in one unit of work of the backend's runner.

A backend supplies only what really differs: its modules (the SQL, grouped by concern),
its runner (SQLite's database thread, PostgreSQL's pooled transactions), and opening,
closing, pinging and taking turns at background jobs.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from types import ModuleType, SimpleNamespace
from typing import Any, Protocol

from memory import models
from memory.config import MemoryConfig
from memory.privacy import VALIDATED, Visibility
from memory.sql import (
    counters,
    episodes,
    erasure,
    fence,
    installations,
    questions,
    reasons,
    votes,
    wisdom,
)
from memory.sql.vote_queue import Filing, VoteQueue
from memory.store import MemoryStore

__all__ = ["BackendModules", "BackendStore", "Runner"]


class Runner(Protocol):
    """Runs one function of a backend's modules against its database, as one unit of work
    (the function may be synchronous or a coroutine function, as the backend's are)."""

    async def run(self, work: Callable[[Any], Any]) -> Any: ...


Verbs = ModuleType | SimpleNamespace
"""A module of a backend's functions, or the verbs of a :mod:`memory.sql` module as SQLite
runs them (:func:`memory.sqlite.session.shared`)."""


@dataclass(frozen=True)
class BackendModules:
    """The verbs a backend runs, one module per concern: those of :mod:`memory.sql`, written
    once, and its own recall (same names and keyword arguments, the database handle first)."""

    counters: Verbs
    episodes: Verbs
    erasure: Verbs
    fence: Verbs
    installations: Verbs
    questions: Verbs
    reasons: Verbs
    recall: ModuleType
    votes: Verbs
    wisdom: Verbs

    @classmethod
    def of(
        cls, recall: ModuleType, run: Callable[[ModuleType], Verbs] = lambda verbs: verbs
    ) -> BackendModules:
        """Each module of :mod:`memory.sql` through ``run`` (SQLite's
        :func:`memory.sqlite.session.shared`, for its database thread), and ``recall``."""
        return cls(
            counters=run(counters),
            episodes=run(episodes),
            erasure=run(erasure),
            fence=run(fence),
            installations=run(installations),
            questions=run(questions),
            reasons=run(reasons),
            recall=recall,
            votes=run(votes),
            wisdom=run(wisdom),
        )


class BackendStore(MemoryStore):
    """A :class:`MemoryStore` whose verbs are functions of :class:`BackendModules`."""

    one_process = False
    """Whether one process at most answers from this store (a SQLite file): a question
    another process holds is then one whose process died."""

    def __init__(
        self,
        runner: Runner,
        modules: BackendModules,
        config: MemoryConfig,
        filing: Filing | None = None,
    ) -> None:
        """``filing`` files episodes a vote left to be filed later (SQLite's index queue)."""
        self._runner = runner
        self._modules = modules
        self._config = config
        self._votes = VoteQueue(runner, modules.votes.apply_votes, config, filing)
        self._holder = uuid.uuid4().hex
        """Names this process when it leases questions and episodes to reflect on (SQLite's
        one process leases only questions)."""

    async def _call(self, function: Callable[..., Any], /, **arguments: Any) -> Any:
        return await self._runner.run(partial(function, **arguments))

    @property
    def visibility(self) -> Visibility:
        return self._config.visibility

    async def claim(self, *keys: str, at: datetime, team_id: str | None = None) -> bool:
        return await self._call(self._modules.counters.claim, keys=keys, at=at, team_id=team_id)

    async def receive_question(
        self, question: models.NewQuestion, *keys: str, lease: timedelta
    ) -> models.PendingQuestion | None:
        return await self._call(
            self._modules.questions.receive_question,
            question=question,
            keys=keys,
            holder=self._holder,
            lease_until=question.received_at + lease,
        )

    async def take_questions(
        self, *, now: datetime, lease: timedelta, limit: int
    ) -> list[models.PendingQuestion]:
        return await self._call(
            self._modules.questions.take_questions,
            holder=self._holder,
            now=now,
            lease_until=now + lease,
            limit=limit,
            others_abandoned=self.one_process,
        )

    async def renew_questions(
        self, question_ids: Iterable[int], *, now: datetime, lease: timedelta
    ) -> int:
        return await self._call(
            self._modules.questions.renew_questions,
            holder=self._holder,
            question_ids=list(question_ids),
            lease_until=now + lease,
        )

    async def question_shown(self, question_id: int, episode_id: int) -> bool:
        return await self._call(
            self._modules.questions.question_shown,
            question_id=question_id,
            episode_id=episode_id,
        )

    async def finish_question(self, question_id: int) -> bool:
        return await self._call(self._modules.questions.finish_question, question_id=question_id)

    async def release_questions(self, *, retry_at: datetime, question_id: int | None = None) -> int:
        return await self._call(
            self._modules.questions.release_questions,
            holder=self._holder,
            retry_at=retry_at,
            question_id=question_id,
        )

    async def record_exchange(self, exchange: models.NewExchange) -> models.Episode | None:
        return await self._call(
            self._modules.episodes.record_exchange, exchange=exchange, config=self._config
        )

    async def import_episodes(self, episodes: Sequence[models.ImportedEpisode]) -> list[int | None]:
        return await self._call(self._modules.episodes.import_episodes, episodes=episodes)

    async def extend_exchange(self, episode_id: int, *, message_ts: list[str], answer: str) -> bool:
        return await self._call(
            self._modules.episodes.extend_exchange,
            episode_id=episode_id,
            message_ts=message_ts,
            answer=answer,
            config=self._config,
        )

    async def withdraw_exchange(self, episode_id: int) -> bool:
        return await self._call(self._modules.erasure.withdraw_exchange, episode_id=episode_id)

    async def answered_in_thread(self, channel_id: str, thread_ts: str) -> bool:
        return await self._call(
            self._modules.episodes.answered_in_thread, channel_id=channel_id, thread_ts=thread_ts
        )

    async def apply_vote(self, event: models.VoteEvent) -> models.VoteOutcome:
        """Committed with the other votes waiting (see :mod:`memory.sql.vote_queue`);
        returns once that transaction has committed."""
        return await self._votes.apply(event)

    async def settle(self) -> None:
        """Wait until every vote so far is committed, and its episode filed."""
        await self._votes.settle()

    async def episodes_awaiting_reflection(
        self, *, limit: int, with_successes: bool = True
    ) -> list[models.Episode]:
        return await self._call(
            self._modules.episodes.awaiting_reflection,
            limit=limit,
            with_successes=self._scores_wanted(with_successes),
            holder=self._holder,
        )

    def _scores_wanted(self, with_successes: bool) -> bool:
        """Whether successes wait for an importance score: asked for, and weighed by recall."""
        return with_successes and self._config.weights.importance > 0

    async def set_lesson(self, episode_id: int, lesson: str, *, reason: str | None = None) -> bool:
        return await self._call(
            self._modules.episodes.set_lesson, episode_id=episode_id, lesson=lesson, reason=reason
        )

    async def ask_reason_once(
        self, episode_id: int, user_id: str, *, at: datetime
    ) -> models.Episode | None:
        return await self._call(
            self._modules.reasons.ask_reason_once,
            episode_id=episode_id,
            user_id=user_id,
            at=at,
            # Claimed like a message: a keyed hash, kept as long as the answer is votable.
            claim_key=f"ask-why:{episode_id}",
        )

    async def awaiting_reason(
        self, channel_id: str, thread_ts: str, user_id: str, *, since: datetime
    ) -> models.Episode | None:
        return await self._call(
            self._modules.reasons.awaiting_reason,
            channel_id=channel_id,
            thread_ts=thread_ts,
            user_id=user_id,
            since=since,
        )

    async def give_reason(
        self, episode_id: int, user_id: str, reason: str, *, at: datetime
    ) -> models.Episode | None:
        return await self._call(
            self._modules.reasons.give_reason,
            episode_id=episode_id,
            user_id=user_id,
            reason=reason,
            at=at,
        )

    async def first_parts(self, episode_ids: Iterable[int]) -> dict[int, str]:
        return await self._call(self._modules.reasons.first_parts, episode_ids=list(episode_ids))

    async def set_importance(self, episode_id: int, importance: int) -> bool:
        return await self._call(
            self._modules.episodes.set_importance, episode_id=episode_id, importance=importance
        )

    async def purge_expired(self, *, now: datetime) -> int:
        return await self._call(self._modules.episodes.purge_expired, now=now, config=self._config)

    async def tidy_index(self) -> bool:
        """Nothing to do unless the backend says otherwise: PostgreSQL's indexes need no
        merging from the bot."""
        return False

    async def recall(self, request: models.RecallRequest) -> list[models.RecalledEpisode]:
        return await self._call(self._modules.recall.recall, request=request, config=self._config)

    async def replace_wisdom(
        self,
        scope: models.Scope,
        user_id: str,
        notes: list[str],
        *,
        episode_count: int,
        at: datetime,
    ) -> list[models.WisdomNote]:
        return await self._call(
            self._modules.wisdom.replace_wisdom,
            scope=scope,
            user_id=user_id,
            notes=notes,
            episode_count=episode_count,
            at=at,
        )

    async def wisdom(self, scope: models.Scope, user_id: str) -> list[models.WisdomNote]:
        return await self._call(self._modules.wisdom.wisdom_for, scope=scope, user_id=user_id)

    async def list_episodes(
        self,
        user_id: str,
        *,
        scope: models.Scope | None = None,
        statuses: frozenset[models.EpisodeStatus] = VALIDATED,
        since: datetime | None = None,
        limit: int = 100,
        team_id: str | None = None,
    ) -> list[models.Episode]:
        return await self._call(
            self._modules.episodes.list_episodes,
            user_id=user_id,
            scope=scope,
            statuses=statuses,
            since=since,
            limit=limit,
            team_id=team_id,
        )

    async def list_wisdom(
        self, user_id: str, *, team_id: str | None = None
    ) -> list[models.WisdomNote]:
        return await self._call(self._modules.wisdom.list_wisdom, user_id=user_id, team_id=team_id)

    async def forget_episode(self, user_id: str, episode_id: int) -> bool:
        return await self._call(
            self._modules.erasure.forget_episode, user_id=user_id, episode_id=episode_id
        )

    async def forget_wisdom(self, user_id: str, note_id: int) -> bool:
        return await self._call(
            self._modules.erasure.forget_wisdom, user_id=user_id, note_id=note_id
        )

    async def forget_user(self, user_id: str, *, at: datetime | None = None) -> models.ForgetReport:
        return await self._call(
            self._modules.erasure.forget_user,
            user_id=user_id,
            at=at or datetime.now(UTC),
            config=self._config,
        )

    async def forget_workspace(
        self, team_id: str, *, at: datetime | None = None
    ) -> models.WorkspaceReport:
        return await self._call(
            self._modules.erasure.forget_workspace, team_id=team_id, at=at or datetime.now(UTC)
        )

    async def erase_replies(self, channel_id: str, message_ts: list[str]) -> None:
        await self._call(
            self._modules.fence.erase_replies, channel_id=channel_id, message_ts=message_ts
        )

    async def erased_replies(self, channel_id: str, message_ts: Iterable[str]) -> set[str]:
        return await self._call(
            self._modules.fence.erased_replies, channel_id=channel_id, message_ts=list(message_ts)
        )

    async def forgotten_at(
        self, user_ids: Iterable[str], *, team_id: str | None = None
    ) -> dict[str, datetime]:
        return await self._call(
            self._modules.fence.forgotten_at, user_ids=list(user_ids), team_id=team_id
        )

    async def export_user(self, user_id: str, *, team_id: str | None = None) -> models.UserExport:
        return await self._call(self._modules.erasure.export_user, user_id=user_id, team_id=team_id)

    async def scopes_with_recent_episodes(
        self, *, since: datetime
    ) -> list[tuple[models.Scope, str]]:
        return await self._call(self._modules.episodes.scopes_with_recent_episodes, since=since)

    async def count(self, counter: str, *, by: int = 1) -> None:
        await self._call(self._modules.counters.increment, name=counter, by=by)

    async def stats(self) -> models.StoreStats:
        return await self._call(self._modules.counters.stats)

    async def save_installation(self, record: models.InstallationRecord) -> None:
        await self._call(self._modules.installations.save_installation, record=record)

    async def find_installation(
        self, *, enterprise_id: str, team_id: str, user_id: str | None
    ) -> models.InstallationRecord | None:
        return await self._call(
            self._modules.installations.find_installation,
            enterprise_id=enterprise_id,
            team_id=team_id,
            user_id=user_id,
        )

    async def delete_installations(
        self, *, enterprise_id: str, team_id: str, user_id: str | None = None
    ) -> int:
        return await self._call(
            self._modules.installations.delete_installations,
            enterprise_id=enterprise_id,
            team_id=team_id,
            user_id=user_id,
        )

    async def issue_oauth_state(self, state: str, *, expires_at: datetime, now: datetime) -> None:
        await self._call(
            self._modules.installations.issue_oauth_state,
            state=state,
            expires_at=expires_at,
            now=now,
        )

    async def consume_oauth_state(self, state: str, *, now: datetime) -> bool:
        return await self._call(
            self._modules.installations.consume_oauth_state, state=state, now=now
        )
