"""The model-backed reflector, scorer and summarizer, over real HTTP to FakeLLMServer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from bot.agent.provider import ModelUnavailable
from bot.assistant.lessons import (
    LLMEpisodeSummarizer,
    LLMFailureReflector,
    LLMImportanceScorer,
    UnusableReply,
)
from bot.assistant.lessons.reflector import DIFFERENT_ANSWER, FROM_REASON
from bot.llm import OpenAICompatibleProvider
from bot.simulator import FakeLLMServer, ScriptedReply
from memory import ConversationKind, Episode, EpisodeStatus, Scope
from tests.episodes import make_episode

SCOPE = Scope(team_id="T1", channel_id="C1", kind=ConversationKind.CHANNEL)


def episode(
    number: int, question: str, answer: str, status: EpisodeStatus, lesson: str | None = None
) -> Episode:
    return make_episode(question, answer, status, id=number, scope=SCOPE, lesson=lesson)


def prompt_of(fake_llm: FakeLLMServer) -> tuple[str, str]:
    """The system and user message of the one request the server received."""
    [request] = fake_llm.requests
    system, user = request["messages"]
    assert (system["role"], user["role"]) == ("system", "user")
    return system["content"], user["content"]


async def test_reflector_asks_about_the_rejected_answer(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(ScriptedReply.answer("Lesson: It guessed the port.\nAsk which service first."))

    lesson = await LLMFailureReflector(provider).reflect(
        "Which port does billing use?", "Port 8080."
    )

    assert lesson == "It guessed the port. Ask which service first."
    system, user = prompt_of(fake_llm)
    assert "👎" in system and "Never suggest what the rejected answer suggested" in system
    assert "Which port does billing use?" in user and "Port 8080." in user


REJECTED = "Run `git reset --hard HEAD~1` to drop the last commit."


async def test_a_lesson_naming_the_rejected_command_is_drafted_again_with_that_said(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(
        ScriptedReply.answer("Do not suggest `git reset --hard HEAD~1` again."),
        ScriptedReply.answer("Suggest git revert, which keeps the history others pulled."),
    )

    lesson = await LLMFailureReflector(provider).reflect("How do I undo a commit?", REJECTED)

    assert lesson == "Suggest git revert, which keeps the history others pulled."
    first, second = fake_llm.requests
    redraft = second["messages"]
    assert redraft[:2] == first["messages"]
    assert redraft[2] == {
        "role": "assistant",
        "content": "Do not suggest `git reset --hard HEAD~1` again.",
    }
    assert redraft[3]["role"] == "user"
    assert "git reset --hard head~1" in redraft[3]["content"]
    assert "without the rejected answer's commands" in redraft[3]["content"]


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        (None, DIFFERENT_ANSWER),
        (
            "it rewrote the shared history",
            FROM_REASON.format(reason="it rewrote the shared history"),
        ),
    ],
)
async def test_a_lesson_that_keeps_repeating_the_rejected_answer_is_written_without_the_model(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider, reason: str | None, expected: str
) -> None:
    fake_llm.script(*[ScriptedReply.answer(f"Just {REJECTED}")] * 3)

    lesson = await LLMFailureReflector(provider).reflect(
        "How do I undo a commit?", REJECTED, reason=reason
    )

    assert len(fake_llm.requests) == 3, "two drafts again at most"
    assert [request["temperature"] for request in fake_llm.requests] == [0.2, 0.7, 0.7]
    assert lesson == expected
    assert "git reset" not in lesson


async def test_reflector_gives_the_model_the_persons_reason(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(ScriptedReply.answer("Keep uncommitted work: use git stash first."))

    await LLMFailureReflector(provider).reflect(
        "How do I undo my last commit?",
        "git reset --hard HEAD~1",
        reason="that wiped out my uncommitted changes",
    )

    _, user = prompt_of(fake_llm)
    assert "What the person said went wrong:\nthat wiped out my uncommitted changes" in user
    assert "git reset --hard HEAD~1" in user


async def test_reflector_shortens_long_input(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(ScriptedReply.answer("Be brief."))

    await LLMFailureReflector(provider, max_input_chars=100).reflect("why? " * 500, "a " * 5000)

    _, user = prompt_of(fake_llm)
    assert len(user) < 400, "the question cut to 100 characters, the answer to its digest"


async def test_reflector_raises_when_the_model_is_down(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.down = True

    with pytest.raises(ModelUnavailable):
        await LLMFailureReflector(provider).reflect("q", "a")


@pytest.mark.parametrize(
    ("status", "verdict"),
    [(EpisodeStatus.SUCCESS, "approved"), (EpisodeStatus.FAILURE, "rejected")],
)
async def test_scorer_parses_the_score_and_tells_the_verdict(
    fake_llm: FakeLLMServer,
    provider: OpenAICompatibleProvider,
    status: EpisodeStatus,
    verdict: str,
) -> None:
    fake_llm.script(ScriptedReply.answer("Score: 9/10"))

    score = await LLMImportanceScorer(provider).score("Deploy billing?", "make deploy", status)

    assert score == 9
    system, user = prompt_of(fake_llm)
    assert "1 to 10" in system
    assert verdict in user and "Deploy billing?" in user


async def test_summarizer_describes_the_episodes_and_parses_the_notes(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(
        ScriptedReply.answer('```json\n["Prefers runnable commands.", "Staging is blue."]\n```')
    )
    episodes = [
        episode(1, "Deploy billing?", "make deploy-staging", EpisodeStatus.SUCCESS),
        episode(
            2, "Restart search?", "Reboot the VM.", EpisodeStatus.FAILURE, lesson="Use kubectl."
        ),
    ]

    notes = await LLMEpisodeSummarizer(provider, max_notes=3).summarize(episodes)

    assert notes == ["Prefers runnable commands.", "Staging is blue."]
    system, user = prompt_of(fake_llm)
    assert "at most 3" in system and "JSON array" in system
    assert "1. 👍\nQ: Deploy billing?\nA: make deploy-staging" in user
    assert "2. 👎\nQ: Restart search?\nA: Reboot the VM.\nLesson: Use kubectl." in user


Ask = Callable[[OpenAICompatibleProvider], Awaitable[object]]


@pytest.mark.parametrize(
    ("reply", "ask"),
    [
        pytest.param(
            "  ", lambda model: LLMFailureReflector(model).reflect("q", "a"), id="lesson-blank"
        ),
        *(
            pytest.param(
                reply,
                lambda model: LLMImportanceScorer(model).score("q", "a", EpisodeStatus.SUCCESS),
                id=f"score-{reply}",
            )
            for reply in ("very important", "0", "15")
        ),
        pytest.param(
            "[]",
            lambda model: LLMEpisodeSummarizer(model).summarize(
                [episode(1, "q", "a", EpisodeStatus.SUCCESS)]
            ),
            id="notes-none",
        ),
    ],
)
async def test_a_reply_without_a_usable_lesson_score_or_notes_raises(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider, reply: str, ask: Ask
) -> None:
    fake_llm.script(ScriptedReply.answer(reply))

    with pytest.raises(UnusableReply):
        await ask(provider)
