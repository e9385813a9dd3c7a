"""The lesson evaluator: a draft that repeats a recalled failure, alone and through the loop."""

from __future__ import annotations

import pytest

from bot.agent import EvaluationResult
from bot.assistant import LessonEvaluator
from bot.assistant.lesson_evaluator import (
    FOLLOW_NOTES,
    NO_OTHER_ANSWER,
    NO_OTHER_ANSWER_GIVEN_REASON,
    REPEATS_FAILURE,
)
from bot.assistant.similarity import commands, repeats, rouge_l, shared_commands, stem
from memory import EpisodeStatus
from tests.episodes import make_episode
from tests.support.agent import Collector, ScriptedProvider, ask, make_agent, make_context, recalled

FAILED_QUESTION = "How do I fix the flaky deploy pipeline?"
FAILED_ANSWER = (
    "Just rerun the deploy job with the retry flag enabled and clear the runner cache; "
    "flakiness usually disappears after a couple of reruns."
)
LESSON = 'Avoid suggesting "rerun the deploy job"; find the failing step in the logs first.'


def lesson_context(*, status: EpisodeStatus = EpisodeStatus.FAILURE, lesson: str | None = LESSON):
    failure = make_episode(FAILED_QUESTION, FAILED_ANSWER, status, lesson=lesson)
    return make_context(recalled=recalled(failure))


async def test_the_lesson_evaluator_rejects_a_near_copy_of_a_failed_answer() -> None:
    draft = (
        "Rerun the deploy job with the retry flag enabled, and clear the runner cache: "
        "flakiness usually disappears after reruns."
    )

    result = await LessonEvaluator().evaluate(draft, lesson_context(lesson=None))

    assert not result.success
    assert result.feedback == REPEATS_FAILURE
    assert FAILED_ANSWER not in result.feedback, "the failed answer is never quoted back"
    assert any("distinctive words" in v for v in result.details.violations)


async def verdict(question: str, failed_answer: str, draft: str) -> EvaluationResult:
    """The lesson evaluator's verdict on ``draft`` once ``failed_answer`` to ``question``
    was 👎'd (and recalled, without a lesson yet)."""
    failure = make_episode(question, failed_answer, EpisodeStatus.FAILURE)
    return await LessonEvaluator().evaluate(draft, make_context(recalled=recalled(failure)))


@pytest.mark.parametrize(
    ("question", "failed_answer", "draft", "violation", "failed_part"),
    [
        pytest.param(
            "How do I undo my last commit?",
            "Run `git reset --hard HEAD~1`, then push again.",
            "Sure! Use `git reset --hard HEAD~1` to undo it.",
            "command",
            "git reset",
            id="giving-a-failed-command-again",
        ),
        pytest.param(
            "Where are the VPN settings?",
            "Open the settings and look for the VPN tab.",
            "Open the settings app and look for the VPN tab there.",
            "ROUGE-L",
            "VPN tab",
            id="reading-like-the-failed-answer",
        ),
    ],
)
async def test_the_lesson_evaluator_rejects_a_draft_like_the_failed_answer(
    question: str, failed_answer: str, draft: str, violation: str, failed_part: str
) -> None:
    result = await verdict(question, failed_answer, draft)

    assert not result.success
    assert any(violation in v for v in result.details.violations)
    assert failed_part not in result.feedback + " ".join(result.details.suggestions)


async def test_the_lesson_evaluator_rejects_a_phrase_the_lesson_says_to_avoid() -> None:
    draft = "First, rerun the deploy job. If that fails, ping the platform team."

    result = await LessonEvaluator().evaluate(draft, lesson_context())

    assert not result.success
    assert any("rerun the deploy job" in v for v in result.details.violations)
    assert result.details.suggestions == [FOLLOW_NOTES]


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
    sent_back = provider.requests[1].messages[-1].content
    assert FOLLOW_NOTES in sent_back
    assert LESSON not in sent_back, "the lesson is in the instructions; quoted here, it was copied"
    assert collected.pieces == [result.text]


async def test_without_recalled_failures_the_lesson_evaluator_lets_the_answer_stream() -> None:
    provider = ScriptedProvider([FAILED_ANSWER])

    result = await make_agent(provider, evaluators=[LessonEvaluator()], hold_back=0).run(
        ask(FAILED_QUESTION), context=make_context(), on_text=Collector()
    )

    assert provider.streamed_requests == 1
    assert result.evaluation_rounds == 0


def test_stemming_makes_inflections_meet() -> None:
    assert stem("resetting") == stem("reset") == "reset"
    assert stem("planned") == stem("plan")
    assert stem("servers") == stem("server")
    assert stem("falling") == "fall"


def test_rouge_l_weighs_the_longest_common_subsequence_of_words() -> None:
    assert rouge_l("The cat sat on the mat.", "the cat sat on the mat") == 1.0
    assert rouge_l("the cat sat on the mat", "the cat lay on the mat") == 5 / 6
    assert rouge_l("nothing shared", "the cat") == 0.0
    assert rouge_l("", "the cat") == 0.0


def test_commands_are_the_code_an_answer_gives() -> None:
    answer = (
        "Run `git revert HEAD` (not `-r`), then:\n"
        "```bash\n$ git push origin main\n\ngit log --oneline\n```\n"
    )

    assert commands(answer) == {"git revert head", "git push origin main", "git log --oneline"}
    assert shared_commands("Try  GIT push origin main  instead", answer) == {"git push origin main"}
    assert repeats("then git revert HEAD again", answer)
    assert not repeats("Use the web interface to undo it.", answer)


async def test_when_every_draft_repeats_the_failure_the_person_is_asked_instead() -> None:
    provider = ScriptedProvider([FAILED_ANSWER, FAILED_ANSWER, FAILED_ANSWER])
    collected = Collector()

    result = await make_agent(provider, evaluators=[LessonEvaluator()]).run(
        ask(FAILED_QUESTION), context=lesson_context(), on_text=collected
    )

    assert result.text == NO_OTHER_ANSWER
    assert collected.pieces == [NO_OTHER_ANSWER]
    assert provider.requests[-1].temperature == 0.7


async def test_the_question_instead_names_the_reason_the_person_gave() -> None:
    failure = make_episode(FAILED_QUESTION, FAILED_ANSWER, EpisodeStatus.FAILURE).model_copy(
        update={"reason": "the retry flag is off in our CI"}
    )
    provider = ScriptedProvider([FAILED_ANSWER] * 3)

    result = await make_agent(provider, evaluators=[LessonEvaluator()]).run(
        ask(FAILED_QUESTION), context=make_context(recalled=recalled(failure))
    )

    assert result.text == NO_OTHER_ANSWER_GIVEN_REASON.format(
        reason="the retry flag is off in our CI"
    )
