"""The notes evaluator: a draft that copies a recalled lesson word for word goes back."""

from __future__ import annotations

from bot.assistant import LessonEvaluator, NotesEvaluator
from bot.assistant.lesson_evaluator import NO_OTHER_ANSWER, NO_OTHER_ANSWER_GIVEN_REASON
from bot.assistant.notes_evaluator import COPIES_NOTE
from memory import EpisodeStatus
from tests.episodes import make_episode
from tests.support.agent import (
    Collector,
    ScriptedProvider,
    ask,
    make_agent,
    make_context,
    recalled,
)

QUESTION = "How should I store the passwords for our team's shared accounts?"
LESSON = "A secure vault like Vault, shared by the whole team."
COPY = "Keep them in a secure vault like Vault, shared by the whole team."
OWN_WORDS = (
    "Put the passwords for your team's shared accounts in a password manager such as 1Password."
)


def noted(lesson: str | None = LESSON, *, requester_id: str = "U1"):
    failure = make_episode(
        QUESTION,
        "Use a spreadsheet.",
        EpisodeStatus.FAILURE,
        lesson=lesson,
        requester_id=requester_id,
    )
    return make_context(recalled=recalled(failure))


async def test_a_draft_copying_the_lesson_is_sent_back_without_quoting_it() -> None:
    result = await NotesEvaluator().evaluate(COPY, noted())

    assert not result.success
    assert result.feedback == COPIES_NOTE
    assert LESSON not in result.feedback + " ".join(result.details.suggestions)


async def test_the_questions_own_words_and_a_draft_in_its_own_words_pass() -> None:
    assert (await NotesEvaluator().evaluate(OWN_WORDS, noted())).success
    lesson = "Store the passwords for our team's shared accounts in one place."
    draft = "Store the passwords for our team's shared accounts with 1Password."

    assert (await NotesEvaluator().evaluate(draft, noted(lesson))).success


def test_it_applies_only_to_the_askers_own_lessons() -> None:
    assert NotesEvaluator().applies(noted())
    assert not NotesEvaluator().applies(noted(None))
    assert not NotesEvaluator().applies(noted(requester_id="U2"))


async def test_through_the_loop_the_answer_in_its_own_words_is_sent() -> None:
    provider = ScriptedProvider([COPY, "A password manager such as 1Password, shared by team."])
    agent = make_agent(provider, evaluators=[LessonEvaluator(), NotesEvaluator()])

    result = await agent.run(ask(QUESTION), context=noted())

    assert result.text == "A password manager such as 1Password, shared by team."
    assert provider.requests[1].messages[-1].content.count(COPY) == 0


async def test_when_every_draft_copies_the_lesson_the_person_is_asked_instead() -> None:
    provider = ScriptedProvider([COPY] * 3)
    collected = Collector()
    agent = make_agent(provider, evaluators=[LessonEvaluator(), NotesEvaluator()])

    result = await agent.run(ask(QUESTION), context=noted(), on_text=collected)

    assert result.text == collected.text == NO_OTHER_ANSWER
    assert provider.remaining == 0, "the draft was sent back twice first"


async def test_the_question_instead_names_the_reason_behind_the_copied_lesson() -> None:
    failure = make_episode(
        QUESTION, "Use a spreadsheet.", EpisodeStatus.FAILURE, lesson=LESSON
    ).model_copy(update={"reason": "we have no Vault licence"})
    provider = ScriptedProvider([COPY] * 3)
    agent = make_agent(provider, evaluators=[LessonEvaluator(), NotesEvaluator()])

    result = await agent.run(ask(QUESTION), context=make_context(recalled=recalled(failure)))

    assert result.text == NO_OTHER_ANSWER_GIVEN_REASON.format(reason="we have no Vault licence")
