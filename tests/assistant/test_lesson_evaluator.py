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
from bot.assistant.lesson_evaluator import (
    NO_OTHER_ANSWER,
    NO_OTHER_ANSWER_GIVEN_REASON,
    REPEATS_FAILURE,
)
from bot.assistant.similarity import commands, repeats, rouge_l, shared_commands, stem
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
    assert "mentions Java" not in feedback.content, "violations are not for the model"
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


class CountsMentionsOf(RejectsMentionsOf):
    """Rejects drafts containing a word, with one violation for each time it occurs."""

    async def evaluate(self, draft: str, context: TurnContext) -> EvaluationResult:
        self.drafts.append(draft)
        count = draft.count(self.word)
        if not count:
            return EvaluationResult.passed()
        return EvaluationResult(
            success=False,
            feedback=f"Don't mention {self.word}.",
            details=EvaluationDetails(violations=[f"mentions {self.word}"] * count),
        )


async def test_after_the_last_round_the_least_faulty_draft_is_sent(context: TurnContext) -> None:
    evaluator = CountsMentionsOf("Java")
    provider = ScriptedProvider(["Java or Java.", "Java.", "Java, Java or Java."])
    collected = Collector()

    result = await make_agent(provider, evaluators=[evaluator], max_evaluation_rounds=2).run(
        ask("?"), context=context, on_text=collected
    )

    assert evaluator.drafts == ["Java or Java.", "Java.", "Java, Java or Java."], (
        "the last draft is checked too"
    )
    assert result.text == "Java."
    assert [request.temperature for request in provider.requests] == [None, 0.7, 0.7], (
        "a draft asked for again is sampled more freely"
    )
    assert collected.pieces == ["Java."]
    assert result.conversation.messages[-1].content == "Java."
    assert result.evaluation_rounds == 2


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
    assert result.feedback == REPEATS_FAILURE
    assert FAILED_ANSWER not in result.feedback, "the failed answer is never quoted back"
    assert any("distinctive words" in v for v in result.details.violations)


async def test_the_lesson_evaluator_rejects_a_draft_giving_a_failed_command_again() -> None:
    failure = episode(
        "How do I undo my last commit?", "Run `git reset --hard HEAD~1`, then push again."
    )
    draft = "Sure! Use `git reset --hard HEAD~1` to undo it."

    result = await LessonEvaluator().evaluate(draft, make_context(recalled=recalled(failure)))

    assert not result.success
    assert any("command" in v for v in result.details.violations)
    assert "git reset" not in result.feedback + " ".join(result.details.suggestions)


async def test_the_lesson_evaluator_rejects_a_draft_reading_like_the_failed_answer() -> None:
    failure = episode("Where are the VPN settings?", "Open the settings and look for the VPN tab.")
    draft = "Open the settings app and look for the VPN tab there."

    result = await LessonEvaluator().evaluate(draft, make_context(recalled=recalled(failure)))

    assert not result.success
    assert any("ROUGE-L" in v for v in result.details.violations)


async def test_the_lesson_evaluator_rejects_a_phrase_the_lesson_says_to_avoid() -> None:
    draft = "First, rerun the deploy job. If that fails, ping the platform team."

    result = await LessonEvaluator().evaluate(draft, lesson_context())

    assert not result.success
    assert any("rerun the deploy job" in v for v in result.details.violations)
    assert result.details.suggestions == [f"Instead: {LESSON}"]


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
    failure = episode(FAILED_QUESTION, FAILED_ANSWER).model_copy(
        update={"reason": "the retry flag is off in our CI"}
    )
    provider = ScriptedProvider([FAILED_ANSWER] * 3)

    result = await make_agent(provider, evaluators=[LessonEvaluator()]).run(
        ask(FAILED_QUESTION), context=make_context(recalled=recalled(failure))
    )

    assert result.text == NO_OTHER_ANSWER_GIVEN_REASON.format(
        reason="the retry flag is off in our CI"
    )
