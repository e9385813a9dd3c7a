"""The reflection worker: lessons for 👎, importance for 👍, never for a stale vote."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta

import pytest
from memory_helpers import CHANNEL, T0, Memory

from bot.composition import reflection_run, wake_for
from bot.scheduler import Job, Scheduler
from memory import Episode, EpisodeStatus, MemoryConfig, MemoryStore, RecallWeights, Vote
from memory.learning import ReflectionWorker

SECRET = "zanzibar-quokka"
"""A word people wrote; it must never reach the logs."""


class ScriptedModel:
    """A reflector and scorer whose answers, failures and pauses the test decides."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.failing: set[str] = set()
        """Questions the model fails on ("*" for all)."""
        self.while_thinking: Callable[[], Awaitable[None]] | None = None

    async def _think(self, question: str) -> None:
        self.calls.append(question)
        if self.while_thinking is not None:
            await self.while_thinking()
        if "*" in self.failing or question in self.failing:
            raise RuntimeError(f"model down while reading {question!r}")

    async def reflect(self, question: str, answer: str, *, reason: str | None = None) -> str:
        await self._think(question)
        return f"Lesson for {question}" + (f", given {reason}" if reason else "")

    async def score(self, question: str, answer: str, status: EpisodeStatus) -> int:
        await self._think(question)
        return 8 if status is EpisodeStatus.SUCCESS else 2


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def current(memory: Memory, episode: Episode) -> Episode:
    """The episode as the store holds it now."""
    [now] = [
        stored
        for stored in await memory.store.list_episodes(
            episode.requester_id, scope=episode.scope, statuses=frozenset(EpisodeStatus)
        )
        if stored.id == episode.id
    ]
    return now


async def take_back(memory: Memory, episode: Episode, reaction: str) -> None:
    """The asker removes their reaction from the answer."""
    ts = memory.sent[episode.id][0]
    outcome = await memory.react(CHANNEL, ts, episode.requester_id, reaction, added=False)
    assert outcome.applied, outcome.reason


async def deploy_failure(memory: Memory) -> Episode:
    """An answer in the channel its asker 👎'd."""
    return await memory.answered(
        "deploy billing?", "run make deploy", scope=CHANNEL, vote=Vote.DOWN
    )


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def worker(store: MemoryStore, model: ScriptedModel, clock: Clock) -> ReflectionWorker:
    return ReflectionWorker(
        store, model, model, batch=20, retry_interval=timedelta(minutes=5), clock=clock
    )


SCORING = MemoryConfig(weights=RecallWeights(importance=0.5))
"""Recall weighs importance, so successes wait for a score."""


@pytest.mark.parametrize("config", [SCORING])
async def test_failures_get_lessons_and_successes_get_importance(
    memory: Memory, model: ScriptedModel, worker: ReflectionWorker
) -> None:
    failed = await deploy_failure(memory)
    worked = await memory.answered(
        "restart search?", "kubectl rollout", scope=CHANNEL, vote=Vote.UP
    )
    pending = await memory.ask("what is staging?", "a cluster", scope=CHANNEL)

    report = await worker.run_once()

    assert (report.lessons, report.scored, report.deferred, report.stale) == (1, 1, 0, 0)
    assert (await current(memory, failed)).lesson == "Lesson for deploy billing?"
    assert (await current(memory, worked)).importance == 8
    untouched = await current(memory, pending)
    assert (untouched.lesson, untouched.importance) == (None, None)
    assert "what is staging?" not in model.calls

    again = await worker.run_once()
    assert (again.lessons, again.scored) == (0, 0)
    assert len(model.calls) == 2


async def test_without_a_scorer_successes_are_never_sent_to_the_model(
    store: MemoryStore, memory: Memory, model: ScriptedModel
) -> None:
    """Recall gives importance no weight by default, so no model call is spent scoring."""
    worked = [
        await memory.answered(f"worked {number}?", "yes", scope=CHANNEL, vote=Vote.UP)
        for number in range(3)
    ]
    failed = await memory.answered("deploy billing?", "no", scope=CHANNEL, vote=Vote.DOWN)
    worker = ReflectionWorker(store, model, None, batch=1)

    report = await worker.run_once()

    assert (report.lessons, report.scored, report.stale) == (1, 0, 0)
    assert model.calls == ["deploy billing?"]
    assert (await current(memory, failed)).lesson == "Lesson for deploy billing?"
    assert [(await current(memory, episode)).importance for episode in worked] == [None] * 3
    assert await store.episodes_awaiting_reflection(limit=10, with_successes=False) == []
    assert await store.episodes_awaiting_reflection(limit=10) == [], "no success waits a score"


@pytest.mark.parametrize("config", [SCORING])
async def test_successes_wait_for_a_score_only_while_recall_weighs_importance(
    memory: Memory,
) -> None:
    worked = await memory.answered(
        "restart search?", "kubectl rollout", scope=CHANNEL, vote=Vote.UP
    )
    assert [e.id for e in await memory.store.episodes_awaiting_reflection(limit=10)] == [worked.id]
    await take_back(memory, worked, "+1")
    assert await memory.store.episodes_awaiting_reflection(limit=10) == []
    ts = memory.sent[worked.id][0]
    await memory.react(CHANNEL, ts, "U1", "+1", at=T0 + timedelta(minutes=2))
    assert [e.id for e in await memory.store.episodes_awaiting_reflection(limit=10)] == [worked.id]
    assert await memory.store.set_importance(worked.id, 6)
    assert await memory.store.episodes_awaiting_reflection(limit=10) == []


async def test_a_run_handles_at_most_one_batch(
    store: MemoryStore, memory: Memory, model: ScriptedModel
) -> None:
    for number in range(3):
        await memory.answered(f"question {number}", "answer", scope=CHANNEL, vote=Vote.DOWN)
    worker = ReflectionWorker(store, model, model, batch=2)

    assert (await worker.run_once()).lessons == 2
    assert (await worker.run_once()).lessons == 1


async def test_a_model_failure_keeps_the_vote_and_retries_after_a_back_off(
    memory: Memory,
    model: ScriptedModel,
    worker: ReflectionWorker,
    clock: Clock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    question = f"why does {SECRET} time out?"
    failed = await memory.answered(question, "restart it", scope=CHANNEL, vote=Vote.DOWN)
    model.failing = {"*"}

    with caplog.at_level(logging.DEBUG, logger="memory.learning"):
        assert (await worker.run_once()).deferred == 1
        assert (await worker.run_once()).deferred == 0  # backing off: the model is not asked
        clock.now += timedelta(minutes=5).total_seconds()
        assert (await worker.run_once()).deferred == 1

    assert len(model.calls) == 2
    kept = await current(memory, failed)
    assert (kept.status, kept.lesson) == (EpisodeStatus.FAILURE, None)
    warnings = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert all(SECRET not in record.getMessage() for record in caplog.records)

    model.failing = set()
    clock.now += timedelta(minutes=9).total_seconds()  # still backing off (10 minutes now)
    assert (await worker.run_once()).lessons == 0
    clock.now += timedelta(minutes=1).total_seconds()
    assert (await worker.run_once()).lessons == 1
    assert (await current(memory, failed)).lesson == f"Lesson for {question}"


async def test_an_episode_the_model_chokes_on_does_not_block_the_others(
    memory: Memory, model: ScriptedModel, worker: ReflectionWorker
) -> None:
    poison = await memory.answered("poison", "answer", scope=CHANNEL, vote=Vote.DOWN)
    healthy = await memory.answered("healthy", "answer", scope=CHANNEL, vote=Vote.DOWN)
    model.failing = {"poison"}

    first = await worker.run_once()
    second = await worker.run_once()

    assert (first.deferred, first.lessons) == (1, 0)
    assert (second.deferred, second.lessons) == (0, 1)
    assert (await current(memory, healthy)).lesson == "Lesson for healthy"
    assert (await current(memory, poison)).lesson is None


async def test_a_vote_removed_while_reflecting_gets_no_lesson(
    memory: Memory, model: ScriptedModel, worker: ReflectionWorker
) -> None:
    failed = await deploy_failure(memory)

    async def person_takes_back_the_thumbs_down() -> None:
        await take_back(memory, failed, "-1")

    model.while_thinking = person_takes_back_the_thumbs_down

    report = await worker.run_once()

    assert (report.stale, report.lessons) == (1, 0)
    now = await current(memory, failed)
    assert (now.status, now.lesson) == (EpisodeStatus.PENDING, None)


@pytest.mark.parametrize("config", [SCORING])
async def test_a_vote_flipped_to_thumbs_up_while_reflecting_gets_no_lesson(
    memory: Memory, model: ScriptedModel, worker: ReflectionWorker
) -> None:
    failed = await deploy_failure(memory)

    async def person_changes_their_mind() -> None:
        model.while_thinking = None
        await take_back(memory, failed, "-1")
        ts = memory.sent[failed.id][0]
        await memory.react(CHANNEL, ts, "U1", "+1", at=T0 + timedelta(minutes=2))

    model.while_thinking = person_changes_their_mind

    assert (await worker.run_once()).stale == 1
    flipped = await current(memory, failed)
    assert (flipped.status, flipped.lesson) == (EpisodeStatus.SUCCESS, None)

    assert (await worker.run_once()).scored == 1
    assert (await current(memory, failed)).importance == 8


class WrittenLessons:
    """Watches the store's ``set_lesson``, so a test can await the worker's writes."""

    def __init__(self, store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.episode_ids: list[int] = []
        self._changed = asyncio.Condition()
        self._set_lesson = store.set_lesson
        monkeypatch.setattr(store, "set_lesson", self._set_lesson_and_tell)

    async def _set_lesson_and_tell(
        self, episode_id: int, lesson: str, *, reason: str | None = None
    ) -> bool:
        attached = await self._set_lesson(episode_id, lesson, reason=reason)
        async with self._changed:
            self.episode_ids.append(episode_id)
            self._changed.notify_all()
        return attached

    async def until(self, count: int) -> None:
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(lambda: len(self.episode_ids) >= count), timeout=10
            )


@pytest.fixture
def written(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> WrittenLessons:
    return WrittenLessons(store, monkeypatch)


def scheduled(worker: ReflectionWorker) -> tuple[Scheduler, Job]:
    """The worker run as the app runs it: a scheduler job, at start and when woken."""
    scheduler = Scheduler()
    job = scheduler.add("reflection", reflection_run(worker), every_seconds=3600, at_start=True)
    scheduler.start()
    return scheduler, job


@pytest.mark.parametrize("scoring", [False, True])
def test_a_vote_wakes_reflection_only_for_work_it_has(
    store: MemoryStore, model: ScriptedModel, scoring: bool
) -> None:
    worker = ReflectionWorker(store, model, model if scoring else None)
    woken: list[int] = []
    wake = wake_for(worker, lambda: woken.append(1))

    wake(EpisodeStatus.PENDING)
    wake(EpisodeStatus.SUCCESS)
    assert len(woken) == (1 if scoring else 0)
    wake(EpisodeStatus.FAILURE)
    assert len(woken) == (2 if scoring else 1)


async def test_a_wake_up_runs_the_worker(
    store: MemoryStore, memory: Memory, model: ScriptedModel, written: WrittenLessons
) -> None:
    worker = ReflectionWorker(store, model, model, retry_interval=timedelta(hours=1))
    scheduler, job = scheduled(worker)

    failed = await deploy_failure(memory)
    job.wake()
    await written.until(1)
    await scheduler.stop()

    assert (await current(memory, failed)).lesson == "Lesson for deploy billing?"


async def test_a_burst_of_votes_is_worked_off_without_waiting_for_the_retry_interval(
    store: MemoryStore, memory: Memory, model: ScriptedModel, written: WrittenLessons
) -> None:
    for number in range(3):
        await memory.answered(f"question {number}", "answer", scope=CHANNEL, vote=Vote.DOWN)
    worker = ReflectionWorker(store, model, model, batch=1, retry_interval=timedelta(hours=1))
    scheduler, _ = scheduled(worker)

    await written.until(3)
    await scheduler.stop()

    assert len(set(written.episode_ids)) == 3


async def test_stop_ends_the_worker_while_the_model_hangs(
    store: MemoryStore, memory: Memory, model: ScriptedModel
) -> None:
    thinking = asyncio.Event()

    async def hang() -> None:
        thinking.set()
        await asyncio.Event().wait()

    model.while_thinking = hang
    failed = await deploy_failure(memory)
    worker = ReflectionWorker(store, model, model, retry_interval=timedelta(hours=1))
    scheduler, _ = scheduled(worker)
    await asyncio.wait_for(thinking.wait(), timeout=10)

    async with asyncio.timeout(5):
        await scheduler.stop()

    kept = await current(memory, failed)
    assert (kept.status, kept.lesson) == (EpisodeStatus.FAILURE, None)


async def test_stop_right_after_a_wake_ends_the_idle_worker(
    store: MemoryStore, model: ScriptedModel
) -> None:
    """The app stops the worker just after a vote woke it (a shutdown after a 👍)."""
    worker = ReflectionWorker(store, model, model, retry_interval=timedelta(hours=1))
    scheduler, job = scheduled(worker)
    await asyncio.sleep(0.2)  # it finds nothing to do and waits to be woken

    job.wake()
    async with asyncio.timeout(5):
        await scheduler.stop()

    assert model.calls == []
