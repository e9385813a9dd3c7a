"""Evaluators through the loop: feedback, rounds, the least faulty draft, a crashing evaluator."""

from __future__ import annotations

from bot.agent import (
    EvaluationDetails,
    EvaluationResult,
    Role,
    TurnContext,
)
from tests.support.agent import Collector, Recorder, ScriptedProvider, ask, make_agent


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


async def test_a_rejected_draft_stands_when_no_iteration_is_left(context: TurnContext) -> None:
    provider = ScriptedProvider(["Use Java."])

    result = await make_agent(
        provider, evaluators=[RejectsMentionsOf("Java")], max_iterations=1
    ).run(ask("?"), context=context)

    assert (result.text, result.stop_reason, result.llm_calls) == ("Use Java.", "answer", 1)
