"""A 👎 becomes a lesson through the real store, the reflection worker and the model server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.assistant.lessons import LLMFailureReflector, LLMImportanceScorer
from bot.llm import OpenAICompatibleProvider
from bot.simulator import FakeLLMServer, ScriptedReply
from memory import (
    Episode,
    EpisodeStatus,
    MemoryConfig,
    MemoryStore,
    RecallWeights,
    open_store,
)
from memory.learning import ReflectionWorker
from tests.episodes import DM, T0
from tests.support.answers import record_answer


async def rated(store: MemoryStore, question: str, ts: str, reaction: str) -> Episode:
    """An exchange in the DM, then the asker's reaction on the answer."""
    answer = "Run make deploy-prod."
    return await record_answer(
        store, DM, "U1", ts=ts, question=question, answer=answer, at=T0, reaction=reaction
    )


@pytest.fixture
async def store(db_file: Path) -> AsyncIterator[MemoryStore]:
    """A store whose recall weighs importance, so 👍 answers wait for a score."""
    opened = await open_store(str(db_file), MemoryConfig(weights=RecallWeights(importance=0.5)))
    yield opened
    await opened.close()


async def test_votes_become_lessons_and_scores_once_the_model_answers(
    store: MemoryStore, fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    failed = await rated(store, "How do I deploy billing to staging?", "1.000100", "-1")
    worked = await rated(store, "How do I restart search?", "2.000100", "+1")
    worker = ReflectionWorker(
        store,
        LLMFailureReflector(provider),
        LLMImportanceScorer(provider),
        retry_interval=timedelta(0),
    )

    fake_llm.down = True
    assert (await worker.run_once()).deferred == 1
    [still_failed] = await store.list_episodes("U1", statuses=frozenset({EpisodeStatus.FAILURE}))
    assert (still_failed.id, still_failed.lesson) == (failed.id, None)

    fake_llm.down = False
    fake_llm.script(
        ScriptedReply.answer("It deployed to prod. Use make deploy-staging for staging."),
        ScriptedReply.answer("7"),
    )
    report = await worker.run_once()

    assert (report.lessons, report.scored) == (1, 1)
    episodes = {episode.id: episode for episode in await store.list_episodes("U1")}
    assert episodes[failed.id].lesson == "It deployed to prod. Use make deploy-staging for staging."
    assert episodes[worked.id].importance == 7
    assert "How do I deploy billing to staging?" in fake_llm.requests[-2]["messages"][1]["content"]
