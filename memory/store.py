"""The store every backend is: each verb runs one function of :mod:`memory.sql` in one
unit of work of the backend's database.

The bot talks to memory only through :class:`MemoryStore`; :func:`memory.open_store`
chooses the backend from a URL, so nothing outside this package knows which one runs. A
backend supplies only what really differs: how it runs a verb (SQLite's database thread,
PostgreSQL's pooled transactions), its recall, and opening, closing, pinging and taking
turns at background jobs.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import ParamSpec, TypeVar

from memory import models
from memory.callers import (
    AgentMemory,
    ConsolidationSource,
    Erasure,
    ExchangeLedger,
    Installations,
    Questions,
    Reasons,
    ReflectionQueue,
    VoteRecorder,
)
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
from memory.sql.session import Verb
from memory.sql.vote_queue import VoteQueue

__all__ = ["MemoryStore"]

P = ParamSpec("P")
T = TypeVar("T")


class MemoryStore(
    AgentMemory,
    ExchangeLedger,
    Questions,
    VoteRecorder,
    Reasons,
    Erasure,
    ReflectionQueue,
    ConsolidationSource,
    Installations,
    ABC,
):
    """Everything the bot keeps about people: exchanges, votes, episodes, lessons, notes.

    The verbs each caller uses are declared with its protocol in :mod:`memory.callers`;
    here are the rest: opening and closing, importing, the ledger's upkeep, the Home tab's
    list and forget buttons, and operations."""

    one_process = False
    """Whether one process at most answers from this store (a SQLite file): a question
    another process holds is then one whose process died."""

    def __init__(
        self, config: MemoryConfig, filing: Callable[[int], Awaitable[int]] | None = None
    ) -> None:
        """``filing`` files episodes a vote left to be filed later (SQLite's index queue)."""
        self._config = config
        self._votes = VoteQueue(self._apply_votes, filing)
        self._holder = uuid.uuid4().hex
        """Names this process when it leases questions and episodes to reflect on (SQLite's
        one process leases only questions)."""

    @abstractmethod
    async def _run(self, verb: Verb[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """``verb`` (a function of :mod:`memory.sql`) in one unit of work of the database."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def ping(self) -> None:
        """Read the store once, cheaply; raise if it cannot be read (for ``/readyz``)."""

    @abstractmethod
    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        """Whether this process runs the periodic ``job`` (run every ``every``) now.

        Every process sharing the store schedules the same jobs; True for one of them per
        interval, so background work is done once, not once per process."""

    async def tidy_index(self) -> bool:
        """One short step of the full-text index's upkeep (a few tens of milliseconds at
        most); True while there is more to do. Run by the periodic upkeep, step after step,
        so that other calls are served in between. Nothing to do unless the backend says
        otherwise: PostgreSQL's indexes need no merging from the bot."""
        return False

    @property
    def visibility(self) -> Visibility:
        return self._config.visibility

    async def claim(self, *keys: str, at: datetime, team_id: str | None = None) -> bool:
        return await self._run(counters.claim, keys, at, team_id)

    async def receive_question(
        self, question: models.NewQuestion, *keys: str, lease: timedelta
    ) -> models.PendingQuestion | None:
        lease_until = question.received_at + lease
        return await self._run(
            questions.receive_question, question, keys, self._holder, lease_until
        )

    async def take_questions(
        self, *, now: datetime, lease: timedelta, limit: int
    ) -> list[models.PendingQuestion]:
        return await self._run(
            questions.take_questions,
            holder=self._holder,
            now=now,
            lease_until=now + lease,
            limit=limit,
            others_abandoned=self.one_process,
        )

    async def renew_questions(
        self, question_ids: Iterable[int], *, now: datetime, lease: timedelta
    ) -> int:
        return await self._run(
            questions.renew_questions, self._holder, list(question_ids), now + lease
        )

    async def question_shown(self, question_id: int, episode_id: int) -> bool:
        return await self._run(questions.question_shown, question_id, episode_id)

    async def finish_question(self, question_id: int) -> bool:
        return await self._run(questions.finish_question, question_id)

    async def release_questions(self, *, retry_at: datetime, question_id: int | None = None) -> int:
        return await self._run(questions.release_questions, self._holder, retry_at, question_id)

    async def record_exchange(self, exchange: models.NewExchange) -> models.Episode | None:
        return await self._run(episodes.record_exchange, exchange, self._config)

    async def import_episodes(self, imported: Sequence[models.ImportedEpisode]) -> list[int | None]:
        """Store episodes validated elsewhere, with their own times, in one transaction,
        recallable at once; their ids, in order (None for an episode of a person forgotten
        after it was created: the erasure fence holds for imports too)."""
        return await self._run(episodes.import_episodes, imported)

    async def extend_exchange(self, episode_id: int, *, message_ts: list[str], answer: str) -> bool:
        return await self._run(
            episodes.extend_exchange, episode_id, message_ts, answer, self._config
        )

    async def withdraw_exchange(self, episode_id: int) -> bool:
        return await self._run(erasure.withdraw_exchange, episode_id)

    async def answered_in_thread(self, channel_id: str, thread_ts: str) -> bool:
        """Whether the bot has answered in this thread (so follow-ups need no mention)."""
        return await self._run(episodes.answered_in_thread, channel_id, thread_ts)

    async def apply_vote(self, event: models.VoteEvent) -> models.VoteOutcome:
        """Committed with the other votes waiting (see :mod:`memory.sql.vote_queue`);
        returns once that transaction has committed."""
        return await self._votes.apply(event)

    async def _apply_votes(self, events: list[models.VoteEvent]) -> list[models.VoteOutcome]:
        return await self._run(votes.apply_votes, events, self._config)

    async def settle(self) -> None:
        """Wait until every vote so far is committed, and its episode filed."""
        await self._votes.settle()

    async def episodes_awaiting_reflection(
        self, *, limit: int, with_successes: bool = True
    ) -> list[models.Episode]:
        # Successes wait for an importance score when asked for, and weighed by recall.
        with_successes = with_successes and self._config.weights.importance > 0
        return await self._run(episodes.awaiting_reflection, limit, with_successes, self._holder)

    async def set_lesson(self, episode_id: int, lesson: str, *, reason: str | None = None) -> bool:
        return await self._run(episodes.set_lesson, episode_id, lesson, reason)

    async def ask_reason_once(
        self, episode_id: int, user_id: str, *, at: datetime
    ) -> models.Episode | None:
        # Claimed like a message: a keyed hash, kept as long as the answer is votable.
        claim_key = f"ask-why:{episode_id}"
        return await self._run(reasons.ask_reason_once, episode_id, user_id, at, claim_key)

    async def awaiting_reason(
        self, channel_id: str, thread_ts: str, user_id: str, *, since: datetime
    ) -> models.Episode | None:
        return await self._run(reasons.awaiting_reason, channel_id, thread_ts, user_id, since)

    async def give_reason(
        self, episode_id: int, user_id: str, reason: str, *, at: datetime
    ) -> models.Episode | None:
        return await self._run(reasons.give_reason, episode_id, user_id, reason, at)

    async def first_parts(self, episode_ids: Iterable[int]) -> dict[int, str]:
        return await self._run(reasons.first_parts, list(episode_ids))

    async def set_importance(self, episode_id: int, importance: int) -> bool:
        return await self._run(episodes.set_importance, episode_id, importance)

    async def purge_expired(self, *, now: datetime) -> int:
        """Delete expired ledger entries and the pending episodes nobody can vote on now."""
        return await self._run(episodes.purge_expired, now, self._config)

    async def replace_wisdom(
        self,
        scope: models.Scope,
        user_id: str,
        notes: list[str],
        *,
        episode_count: int,
        at: datetime,
    ) -> list[models.WisdomNote]:
        return await self._run(
            wisdom.replace_wisdom, scope, user_id, notes, episode_count=episode_count, at=at
        )

    async def wisdom(self, scope: models.Scope, user_id: str) -> list[models.WisdomNote]:
        return await self._run(wisdom.wisdom_for, scope, user_id)

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
        return await self._run(
            episodes.list_episodes, user_id, scope, statuses, since, limit, team_id
        )

    async def list_wisdom(
        self, user_id: str, *, team_id: str | None = None
    ) -> list[models.WisdomNote]:
        """A person's notes (in workspace ``team_id``, when given)."""
        return await self._run(wisdom.list_wisdom, user_id, team_id)

    async def forget_episode(self, user_id: str, episode_id: int) -> bool:
        return await self._run(erasure.forget_episode, user_id, episode_id)

    async def forget_wisdom(self, user_id: str, note_id: int) -> bool:
        return await self._run(erasure.forget_wisdom, user_id, note_id)

    async def forget_user(self, user_id: str, *, at: datetime | None = None) -> models.ForgetReport:
        return await self._run(erasure.forget_user, user_id, at or datetime.now(UTC), self._config)

    async def forget_workspace(
        self, team_id: str, *, at: datetime | None = None
    ) -> models.WorkspaceReport:
        return await self._run(erasure.forget_workspace, team_id, at or datetime.now(UTC))

    async def erase_replies(self, channel_id: str, message_ts: list[str]) -> None:
        await self._run(fence.erase_replies, channel_id, message_ts)

    async def erased_replies(self, channel_id: str, message_ts: Iterable[str]) -> set[str]:
        return await self._run(fence.erased_replies, channel_id, list(message_ts))

    async def forgotten_at(
        self, user_ids: Iterable[str], *, team_id: str | None = None
    ) -> dict[str, datetime]:
        return await self._run(fence.forgotten_at, list(user_ids), team_id)

    async def export_user(self, user_id: str, *, team_id: str | None = None) -> models.UserExport:
        return await self._run(erasure.export_user, user_id, team_id)

    async def scopes_with_recent_episodes(
        self, *, since: datetime
    ) -> list[tuple[models.Scope, str]]:
        return await self._run(episodes.scopes_with_recent_episodes, since)

    async def count(self, counter: str, *, by: int = 1) -> None:
        await self._run(counters.increment, counter, by)

    async def stats(self) -> models.StoreStats:
        return await self._run(counters.stats)

    async def save_installation(self, record: models.InstallationRecord) -> None:
        await self._run(installations.save_installation, record)

    async def find_installation(
        self, *, enterprise_id: str, team_id: str, user_id: str | None
    ) -> models.InstallationRecord | None:
        return await self._run(installations.find_installation, enterprise_id, team_id, user_id)

    async def delete_installations(
        self, *, enterprise_id: str, team_id: str, user_id: str | None = None
    ) -> int:
        return await self._run(installations.delete_installations, enterprise_id, team_id, user_id)

    async def issue_oauth_state(self, state: str, *, expires_at: datetime, now: datetime) -> None:
        await self._run(installations.issue_oauth_state, state, expires_at, now)

    async def consume_oauth_state(self, state: str, *, now: datetime) -> bool:
        return await self._run(installations.consume_oauth_state, state, now)
