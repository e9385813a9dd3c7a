"""Evaluators through the loop, and the lesson evaluator on its own."""

from __future__ import annotations

from agent_support import Recorder, ask, episode, recalled

from bot.agent import (
    EvaluationDetails,
    EvaluationResult,
    Role,
    TurnContext,
)
from bot.assistant import LessonEvaluator
from bot.assistant.similarity import stem
from memory import EpisodeStatus
from tests.support.agent import ScriptedProvider, make_agent, make_context


class RejectsMentionsOf:
    """Rejects drafts containing a word; passes the rest."""

    def __init__(self, word: str) -> None:
        self.word = word
        self.drafts: list[str] = []

    async def evaluate(self, draft: str, context: TurnContext) -> EvaluationResult:
        self.drafts.append(draft)
        if self.word in draft:
            return EvaluationResult(
                success=False,
                feedback=f"Don't mention {self.word}.",
                details=EvaluationDetails(violations=[f"mentions {self.word}"]),
            )
        return EvaluationResult.passed()


class Crashes:
    async def evaluate(self, draft: str, context: TurnContext) -> EvaluationResult:
        raise RuntimeError("evaluator bug")


class Collector:
    def __init__(self) -> None:
        self.pieces: list[str] = []

    async def __call__(self, text: str) -> None:
        self.pieces.append(text)


async def test_a_negative_verdict_sends_the_draft_back_with_its_feedback(
    context: TurnContext,
) -> None:
    evaluator = RejectsMentionsOf("Java")
    provider = ScriptedProvider(["Use Java.", "Use Python."])
    collected = Collector()

    result = await make_agent(provider, evaluators=[evaluator]).run(
        ask("Which language?"), context=context, on_text=collected
    )

    assert result.text == "Use Python."
    assert result.evaluation_rounds == 1
    assert evaluator.drafts == ["Use Java.", "Use Python."]
    feedback = provider.requests[1].messages[-1]
    assert feedback.role is Role.USER
    assert "Don't mention Java." in feedback.content
    assert "mentions Java" in feedback.content
    assert provider.streamed_requests == 0
    assert collected.pieces == ["Use Python."]


async def test_after_the_last_round_the_last_draft_is_sent(context: TurnContext) -> None:
    provider = ScriptedProvider(["Java 1.", "Java 2.", "Java 3."])

    result = await make_agent(
        provider, evaluators=[RejectsMentionsOf("Java")], max_evaluation_rounds=2
    ).run(ask("?"), context=context)

    assert result.text == "Java 3."
    assert result.stop_reason == "answer"
    assert result.evaluation_rounds == 2
    assert result.llm_calls == 3


async def test_a_crashing_evaluator_is_reported_and_is_not_a_negative_verdict(
    context: TurnContext,
) -> None:
    recorder = Recorder()
    provider = ScriptedProvider(["The draft."])

    result = await make_agent(provider, evaluators=[Crashes()], callbacks=[recorder]).run(
        ask("?"), context=context
    )

    assert result.text == "The draft."
    assert result.evaluation_rounds == 0
    assert result.llm_calls == 1
    assert ("evaluator_error", "Crashes") in recorder.events


FAILED_QUESTION = "How do I fix the flaky deploy pipeline?"
FAILED_ANSWER = (
    "Just rerun the deploy job with the retry flag enabled and clear the runner cache; "
    "flakiness usually disappears after a couple of reruns."
)
LESSON = 'Avoid suggesting "rerun the deploy job"; find the failing step in the logs first.'


def lesson_context(*, status: EpisodeStatus = EpisodeStatus.FAILURE, lesson: str | None = LESSON):
    failure = episode(FAILED_QUESTION, FAILED_ANSWER, status, lesson=lesson)
    return make_context(recalled=recalled(failure))


async def test_the_lesson_evaluator_rejects_a_near_copy_of_a_failed_answer() -> None:
    draft = (
        "Rerun the deploy job with the retry flag enabled, and clear the runner cache: "
        "flakiness usually disappears after reruns."
    )

    result = await LessonEvaluator().evaluate(draft, lesson_context(lesson=None))

    assert not result.success
    assert "marked a similar answer 👎" in result.feedback
    assert any("distinctive words" in v for v in result.details.violations)


async def test_the_lesson_evaluator_rejects_a_phrase_the_lesson_says_to_avoid() -> None:
    draft = "First, rerun the deploy job. If that fails, ping the platform team."

    result = await LessonEvaluator().evaluate(draft, lesson_context())

    assert not result.success
    assert any("rerun the deploy job" in v for v in result.details.violations)
    assert result.details.suggestions == [LESSON]


async def test_the_lesson_evaluator_accepts_an_answer_that_follows_the_lesson() -> None:
    draft = (
        "Open the pipeline logs and find which step fails; a timeout in the integration "
        "tests points at the shared database, a checksum error at the artifact store."
    )

    result = await LessonEvaluator().evaluate(draft, lesson_context())

    assert result.success


def test_the_lesson_evaluator_only_applies_when_failures_were_recalled() -> None:
    evaluator = LessonEvaluator()

    assert evaluator.applies(lesson_context())
    assert not evaluator.applies(lesson_context(status=EpisodeStatus.SUCCESS))
    assert not evaluator.applies(make_context())


async def test_successes_are_never_held_against_a_draft() -> None:
    result = await LessonEvaluator().evaluate(
        FAILED_ANSWER, lesson_context(status=EpisodeStatus.SUCCESS)
    )

    assert result.success


async def test_the_loop_with_the_lesson_evaluator_does_not_repeat_a_failed_answer() -> None:
    provider = ScriptedProvider([FAILED_ANSWER, "Check the logs for the failing step first."])
    collected = Collector()

    result = await make_agent(provider, evaluators=[LessonEvaluator()]).run(
        ask(FAILED_QUESTION), context=lesson_context(), on_text=collected
    )

    assert result.text == "Check the logs for the failing step first."
    assert LESSON in provider.requests[1].messages[-1].content
    assert collected.pieces == [result.text]


async def test_without_recalled_failures_the_lesson_evaluator_lets_the_answer_stream(
    context: TurnContext,
) -> None:
    provider = ScriptedProvider([FAILED_ANSWER])

    result = await make_agent(provider, evaluators=[LessonEvaluator()], hold_back=0).run(
        ask(FAILED_QUESTION), context=context, on_text=Collector()
    )

    assert provider.streamed_requests == 1
    assert result.evaluation_rounds == 0


async def test_a_rejected_draft_stands_when_no_iteration_is_left(context: TurnContext) -> None:
    provider = ScriptedProvider(["Use Java."])

    result = await make_agent(
        provider, evaluators=[RejectsMentionsOf("Java")], max_iterations=1
    ).run(ask("?"), context=context)

    assert (result.text, result.stop_reason, result.llm_calls) == ("Use Java.", "answer", 1)


def test_stemming_makes_inflections_meet() -> None:
    assert stem("resetting") == stem("reset") == "reset"
    assert stem("planned") == stem("plan")
    assert stem("servers") == stem("server")
    assert stem("falling") == "fall"
