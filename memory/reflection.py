"""Draws lessons from 👎 episodes and scores 👍 episodes, off the event path.

A vote is stored the moment it arrives; asking a model about it takes seconds and may fail,
so the app's scheduler runs :meth:`ReflectionWorker.run_once` after a vote, and
periodically for whatever the model could not handle before. The model is two small
protocols (the bot's are in :mod:`bot.assistant.lessons`); either may raise when the model
fails or answers nonsense: the votes are kept and it retries later.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from datetime import timedelta
from typing import Protocol

from pydantic import BaseModel

from memory.callers import ReflectionQueue
from memory.models import Episode, EpisodeStatus

logger = logging.getLogger(__name__)


class FailureReflector(Protocol):
    """Turns an answer the person rejected (👎) into a lesson, after Reflexion (Shinn et al.)."""

    async def reflect(self, question: str, answer: str, *, reason: str | None = None) -> str:
        """Two or three sentences: what went wrong, and what to do instead next time;
        ``reason`` is what the person said went wrong, when they said."""
        ...


class ImportanceScorer(Protocol):
    """Rates how much a validated exchange is worth remembering, after Generative Agents."""

    async def score(self, question: str, answer: str, status: EpisodeStatus) -> int:
        """An integer from 1 (routine) to 10 (novel, critical, reusable)."""
        ...


class ReflectionReport(BaseModel):
    """What one :meth:`ReflectionWorker.run_once` did."""

    lessons: int = 0
    """Failures that received a lesson."""
    scored: int = 0
    """Successes that received an importance score."""
    stale: int = 0
    """Episodes whose vote changed while the model was thinking; their result was dropped."""
    deferred: int = 0
    """Episodes the model failed on; they are retried after a back-off."""

    @property
    def stored(self) -> int:
        """Episodes that left the queue with a lesson or a score."""
        return self.lessons + self.scored


@dataclass(eq=False, repr=False)
class ReflectionWorker:
    """Gives each validated episode what recall needs: a lesson (👎) or an importance (👍).

    Each run takes at most ``batch`` episodes awaiting reflection. When the model fails on
    one, the episode is deferred (back-off doubling from ``retry_interval`` up to
    ``max_backoff``) and the run stops, since the next call would most likely fail too; an
    outage is logged once, without anyone's text. Without a ``scorer``, successes are never
    sent to the model: a score is worth a model call only when recall weighs it. A vote
    that changes while the model thinks makes the store refuse the stale result.
    """

    store: ReflectionQueue
    reflector: FailureReflector
    scorer: ImportanceScorer | None
    _: KW_ONLY
    batch: int = 20
    """At most this many episodes a run; a full batch means more may be waiting."""
    retry_interval: timedelta = timedelta(minutes=5)
    max_backoff: timedelta = timedelta(hours=6)
    clock: Callable[[], float] = time.monotonic
    _failures: dict[int, int] = field(init=False, default_factory=dict)
    """Episode id -> consecutive model failures on it."""
    _retry_at: dict[int, float] = field(init=False, default_factory=dict)
    """Episode id -> clock time before which it is not retried."""
    _outage_logged: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        if self.batch < 1:
            raise ValueError("batch must be at least 1")

    def has_work_for(self, status: EpisodeStatus) -> bool:
        """Whether an episode that a vote left with ``status`` waits for this worker: a
        failure for its lesson, a success only when there is a scorer."""
        return status is EpisodeStatus.FAILURE or (
            status is EpisodeStatus.SUCCESS and self.scorer is not None
        )

    async def run_once(self) -> ReflectionReport:
        report = ReflectionReport()
        now = self.clock()
        waiting = {episode_id for episode_id, retry_at in self._retry_at.items() if retry_at > now}
        episodes = await self.store.episodes_awaiting_reflection(
            limit=self.batch + len(waiting), with_successes=self.scorer is not None
        )
        self._forget_resolved({episode.id for episode in episodes})
        due = [episode for episode in episodes if episode.id not in waiting][: self.batch]
        for episode in due:
            handle = self._draw_lesson if episode.status is EpisodeStatus.FAILURE else self._score
            try:
                await handle(episode, report)
            except Exception as error:
                self._defer(episode, error)
                report.deferred += 1
                break
            self._recovered(episode.id)
        return report

    async def _draw_lesson(self, episode: Episode, report: ReflectionReport) -> None:
        lesson = await self.reflector.reflect(
            episode.question, episode.answer, reason=episode.reason
        )
        if await self.store.set_lesson(episode.id, lesson, reason=episode.reason):
            report.lessons += 1
        else:
            report.stale += 1

    async def _score(self, episode: Episode, report: ReflectionReport) -> None:
        if self.scorer is None:  # unreachable: without a scorer the queue holds no success
            return
        importance = await self.scorer.score(episode.question, episode.answer, episode.status)
        if await self.store.set_importance(episode.id, importance):
            report.scored += 1
        else:
            report.stale += 1

    def _defer(self, episode: Episode, error: Exception) -> None:
        failures = self._failures.get(episode.id, 0) + 1
        self._failures[episode.id] = failures
        # In seconds: a timedelta doubled on every failure of a long outage would overflow.
        interval, most = self.retry_interval.total_seconds(), self.max_backoff.total_seconds()
        self._retry_at[episode.id] = self.clock() + min(interval * 2 ** (failures - 1), most)
        # The error's text may quote the model's reply, hence people's words: log its class.
        if not self._outage_logged:
            self._outage_logged = True
            logger.warning(
                "model failed to reflect on episode %d (%s); votes are kept, retrying later",
                episode.id,
                type(error).__name__,
            )
        else:
            logger.debug("model failed again on episode %d (%s)", episode.id, type(error).__name__)

    def _recovered(self, episode_id: int) -> None:
        self._failures.pop(episode_id, None)
        self._retry_at.pop(episode_id, None)
        if self._outage_logged:
            self._outage_logged = False
            logger.info("model answers reflection requests again")

    def _forget_resolved(self, awaiting: set[int]) -> None:
        """Drop back-off entries of episodes no longer awaiting (done elsewhere, or forgotten)."""
        for episode_id in [known for known in self._retry_at if known not in awaiting]:
            self._failures.pop(episode_id, None)
            self._retry_at.pop(episode_id, None)
