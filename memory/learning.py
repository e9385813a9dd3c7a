"""Learning from votes, off the event path: lessons, importance, wisdom notes, and advice
(memory/README.md, *Learning off the event path*)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from pydantic import BaseModel, Field

from memory.callers import ConsolidationSource, Recall, ReflectionQueue
from memory.models import Episode, EpisodeStatus, RecalledEpisode, Scope, WisdomNote
from memory.text import shorten

logger = logging.getLogger(__name__)


class FailureReflector(Protocol):
    """Turns an answer the person rejected (👎) into a lesson, after Reflexion (Shinn et al.)."""

    async def reflect(self, question: str, answer: str, *, reason: str | None = None) -> str:
        """Two or three sentences: what went wrong, and what to do instead next time;
        ``reason`` is what the person said went wrong, when they said."""


class ImportanceScorer(Protocol):
    """Rates how much a validated exchange is worth remembering, after Generative Agents."""

    async def score(self, question: str, answer: str, status: EpisodeStatus) -> int:
        """An integer from 1 (routine) to 10 (novel, critical, reusable)."""


class EpisodeSummarizer(Protocol):
    """Distils validated episodes of one person and scope into wisdom notes."""

    async def summarize(self, episodes: list[Episode]) -> list[str]:
        """A few short, general notes; the caller bounds their number and length."""


class ReflectionReport(BaseModel):
    lessons: int = 0
    scored: int = 0
    stale: int = 0
    """Episodes whose vote changed while the model was thinking; their result was dropped."""
    deferred: int = 0
    """Episodes the model failed on; they are retried after a back-off."""

    @property
    def stored(self) -> int:
        return self.lessons + self.scored


@dataclass(eq=False, repr=False)
class ReflectionWorker:
    """Gives each validated episode what recall needs, a lesson (👎) or an importance (👍), at
    most ``batch`` a run (a full batch: more may wait). An episode the model fails on waits
    (from ``retry_interval``, doubling up to ``max_backoff``) and the run stops: the next call
    would most likely fail too. Without a ``scorer`` no success is sent to the model: a score
    is worth a model call only when recall weighs it."""

    store: ReflectionQueue
    reflector: FailureReflector
    scorer: ImportanceScorer | None
    _: KW_ONLY
    batch: int = 20
    retry_interval: timedelta = timedelta(minutes=5)
    max_backoff: timedelta = timedelta(hours=6)
    clock: Callable[[], float] = time.monotonic
    _backoff: dict[int, tuple[int, float]] = field(init=False, default_factory=dict)
    """Episode id -> (consecutive model failures on it, clock time before which it waits)."""
    _outage_logged: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        if self.batch < 1:
            raise ValueError("batch must be at least 1")

    def has_work_for(self, status: EpisodeStatus) -> bool:
        """Whether an episode that a vote left with ``status`` waits for this worker."""
        return status is EpisodeStatus.FAILURE or (
            status is EpisodeStatus.SUCCESS and self.scorer is not None
        )

    async def run_once(self) -> ReflectionReport:
        report = ReflectionReport()
        now = self.clock()
        waiting = {episode_id for episode_id, (_, at) in self._backoff.items() if at > now}
        episodes = await self.store.episodes_awaiting_reflection(
            limit=self.batch + len(waiting), with_successes=self.scorer is not None
        )
        # Back-off entries of episodes no longer awaiting (done elsewhere, or forgotten) go.
        awaiting = {episode.id for episode in episodes}
        self._backoff = {key: entry for key, entry in self._backoff.items() if key in awaiting}
        due = [episode for episode in episodes if episode.id not in waiting][: self.batch]
        for episode in due:
            handle = self._draw_lesson if episode.status is EpisodeStatus.FAILURE else self._score
            try:
                await handle(episode, report)
            except Exception as error:
                self._defer(episode, error)
                report.deferred += 1
                break
            self._backoff.pop(episode.id, None)
            if self._outage_logged:
                self._outage_logged = False
                logger.info("model answers reflection requests again")
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
        failures = self._backoff.get(episode.id, (0, 0.0))[0] + 1
        # In seconds: a timedelta doubled on every failure of a long outage would overflow.
        interval, most = self.retry_interval.total_seconds(), self.max_backoff.total_seconds()
        retry_at = self.clock() + min(interval * 2 ** (failures - 1), most)
        self._backoff[episode.id] = (failures, retry_at)
        if not self._outage_logged:
            self._outage_logged = True
            logger.warning(
                "model failed to reflect on episode %d (%s); votes are kept, retrying later",
                episode.id,
                type(error).__name__,
            )
        else:
            logger.debug("model failed again on episode %d (%s)", episode.id, type(error).__name__)


class ConsolidationReport(BaseModel):
    scopes: int = 0
    """(scope, person) pairs whose notes were replaced."""
    notes: int = 0
    skipped: int = 0
    """Pairs left as they were: the summarizer failed or produced no usable note."""


@dataclass(eq=False)
class Consolidator:
    """Replaces each (scope, person)'s wisdom notes with what their recent episodes have in
    common ("prefers answers with a runnable command"). Bounded, so a busy person costs no
    more than a quiet one: only pairs with an episode validated within ``lookback``, each from
    its ``max_episodes_per_scope`` latest validated episodes of any age (the new notes replace
    the old ones and must not forget what they held)."""

    store: ConsolidationSource
    summarizer: EpisodeSummarizer
    _: KW_ONLY
    lookback: timedelta
    max_episodes_per_scope: int = 30
    max_notes: int = 5
    max_note_chars: int = 300

    def __post_init__(self) -> None:
        if min(self.max_episodes_per_scope, self.max_notes) < 1 or self.max_note_chars < 2:
            raise ValueError("consolidation bounds must be positive")

    async def consolidate(self, *, now: datetime) -> ConsolidationReport:
        report = ConsolidationReport()
        recent = await self.store.scopes_with_recent_episodes(since=now - self.lookback)
        for scope, user_id in recent:
            written = await self._consolidate_one(scope, user_id, now=now)
            if written:
                report.scopes += 1
                report.notes += written
            else:
                report.skipped += 1
        return report

    async def _consolidate_one(self, scope: Scope, user_id: str, *, now: datetime) -> int:
        episodes = await self.store.list_episodes(
            user_id, scope=scope, limit=self.max_episodes_per_scope
        )
        if not episodes:
            return 0
        try:
            raw_notes = await self.summarizer.summarize(episodes)
        except Exception as error:
            logger.warning(
                "summarizer failed (%s); keeping the previous notes", type(error).__name__
            )
            return 0
        shortened = (shorten(text, self.max_note_chars) for text in raw_notes)
        notes = list(dict.fromkeys(note for note in shortened if note))[: self.max_notes]
        if not notes:
            return 0
        written = await self.store.replace_wisdom(
            scope, user_id, notes, episode_count=len(episodes), at=now
        )
        return len(written)


class Advice(BaseModel):
    """Validated past experience relevant to one question (the bot renders it into the
    prompt: :func:`bot.assistant.prompt.render_experience`), most relevant first."""

    failures: list[Episode] = Field(default_factory=list)
    successes: list[Episode] = Field(default_factory=list)
    wisdom: list[WisdomNote] = Field(default_factory=list)


@dataclass(eq=False, repr=False)
class PlanAdvisor:
    """Builds :class:`Advice` for a new question from recalled episodes and the scope's
    wisdom notes. Recall already keeps to what the person may see; the advisor applies
    :mod:`memory.privacy` again, so a backend bug cannot turn a pending exchange, someone
    else's failure or note, into advice."""

    store: Recall

    async def advice_from(
        self, scope: Scope, user_id: str, recalled: Sequence[RecalledEpisode]
    ) -> Advice | None:
        """None when nothing is left."""
        visibility = self.store.visibility
        episodes = [
            item.episode
            for item in recalled
            if visibility.may_see(item.episode, viewer_id=user_id, scope=scope)
        ]
        wisdom = [
            note
            for note in await self.store.wisdom(scope, user_id)
            if visibility.may_see_note(note, viewer_id=user_id, scope=scope)
        ]
        advice = Advice(
            failures=[episode for episode in episodes if episode.status is EpisodeStatus.FAILURE],
            successes=[episode for episode in episodes if episode.status is EpisodeStatus.SUCCESS],
            wisdom=wisdom,
        )
        return advice if advice.failures or advice.successes or advice.wisdom else None
