"""LLM_TEMPERATURE, LLM_SEED and LLM_MAX_TOKENS reach the model requests the bot sends."""

from __future__ import annotations

import asyncio

import pytest

from bot.assistant.lessons.reflector import REFLECTION_PROMPT
from bot.config import Settings
from bot.simulator import FakeLLMServer
from tests.support.harness import ALICE, SignedSlack, StartBot

QUESTION = "How do I rotate the staging database password?"


async def test_answers_are_sampled_at_the_configured_temperature_and_lessons_at_their_own(
    bot_with: StartBot, fake_llm: FakeLLMServer
) -> None:
    seeded = await bot_with(llm_temperature=0.0, llm_seed=1234, llm_max_tokens=180)
    answer = await seeded.ask_in_dm(QUESTION)
    asked = len(fake_llm.requests)

    await seeded.vote(answer, user=ALICE, reaction="-1")
    await asyncio.wait_for(fake_llm.wait_for_requests(asked + 1), 5)

    answering = fake_llm.request_for(QUESTION, agent_only=True)
    [reflecting] = fake_llm.requests[asked:]
    assert REFLECTION_PROMPT.splitlines()[0] in reflecting["messages"][0]["content"]
    assert (answering["temperature"], answering["seed"], answering["max_tokens"]) == (
        0.0,
        1234,
        180,
    )
    assert (reflecting["temperature"], reflecting["seed"]) == (0.2, 1234)
    assert reflecting["max_tokens"] != 180, "the lesson keeps its own length"


async def test_unset_the_server_samples_answers_as_it_likes(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    await slack.ask_in_dm(QUESTION)

    answering = fake_llm.request_for(QUESTION, agent_only=True)
    assert "seed" not in answering
    assert "temperature" not in answering
    assert "max_tokens" not in answering


def test_empty_values_in_the_environment_leave_them_unset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "secret")
    for name in ("LLM_TEMPERATURE", "LLM_SEED", "LLM_MAX_TOKENS"):
        monkeypatch.setenv(name, "")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.llm_temperature, settings.llm_seed, settings.llm_max_tokens) == (
        None,
        None,
        None,
    )
    monkeypatch.setenv("LLM_TEMPERATURE", "3")
    with pytest.raises(ValueError, match="llm_temperature"):
        Settings(_env_file=None)  # type: ignore[call-arg]
